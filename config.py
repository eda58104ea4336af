"""Print the effective settings, secrets masked: `python config.py` (same as `docent config`)."""

import sys

from docent.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["config", *sys.argv[1:]]))
