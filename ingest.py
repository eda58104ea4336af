"""Ingest markdown docs: `python ingest.py [PATH] [--reset]` (same as `docent ingest`)."""

import sys

from docent.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["ingest", *sys.argv[1:]]))
