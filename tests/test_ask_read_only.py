"""`docent ask` only reads: the store it answers from is left as it was, and nothing is
written under the user's home (strace showed both: the vector index files re-created on
every run, onnxruntime's telemetry database under ~/.cache)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from docent.config import load_settings
from docent.ingest import ingest_path

pytestmark = pytest.mark.slow

DOC = """# Configuration

## Changing the tool-call limit

The tool-call limit caps how many searches the agent runs in one answer. Set
`DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3.
"""


def _files(root: Path) -> dict[str, tuple[str, int]]:
    """Every file but the SQLite database: content hash and modification time."""
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "chroma.sqlite3"
    }


def _database(path: Path) -> list[str]:
    """The database's content as SQL, without Chroma's `acquire_write` table: every Chroma
    client appends a row there when it starts, to take SQLite's write lock (not docent's
    data, and it cannot be turned off)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [line for line in db.iterdump() if '"acquire_write"' not in line]


def test_ask_leaves_the_store_and_the_home_directory_as_they_were(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "configuration.md").write_text(DOC, encoding="utf-8")
    data = tmp_path / "data"
    ingest_path(docs, load_settings(_env_file=None, data_dir=data), progress=False)
    store = data / "chroma"
    files, database = _files(store), _database(store / "chroma.sqlite3")
    assert any(name.endswith("data_level0.bin") for name in files)  # the index is on disk

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("ORT_DISABLE_TELEMETRY", "GOOGLE_API_KEY")}
    env.update(HOME=str(home), DOCENT_DATA_DIR=str(data))
    for _ in range(2):
        out = subprocess.run([sys.executable, "-m", "docent.cli", "ask",
                              "How do I change the tool-call limit?"],
                             capture_output=True, text=True, env=env, timeout=180, cwd=tmp_path)
        assert out.returncode == 0 and "Exit reason: COMPLETED" in out.stdout, out.stderr

    assert _files(store) == files  # same bytes, same mtimes: the index files were not rewritten
    assert _database(store / "chroma.sqlite3") == database
    assert list(home.rglob("*")) == []
