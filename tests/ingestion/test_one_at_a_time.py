"""docs/ingestion.md, "Incremental updates": two `docent ingest` runs on one data dir do not
write the embedded store at once; the second waits for the first, says so, then finds
little left to do. Before the lock, the second failed halfway with SQLite's "database is
locked" and a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from filelock import FileLock

from docent.ingest import INGEST_LOCK

PAGE = "# Limits\n\nSet `DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3.\n"


def test_a_second_ingestion_waits_for_the_first(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "limits.md").write_text(PAGE)
    data = tmp_path / "data"
    data.mkdir()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")},
           "DOCENT_DATA_DIR": str(data)}
    first = FileLock(data / INGEST_LOCK)  # another ingestion, under way
    first.acquire()
    try:
        second = subprocess.Popen(
            [sys.executable, "-m", "docent.cli", "ingest", str(docs), "--quiet"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        waiting = ""
        while "waiting for it to finish" not in waiting:
            assert second.poll() is None, second.communicate()  # it must not go ahead
            assert time.monotonic() < deadline, "the second ingestion never said it waits"
            waiting += second.stderr.readline()  # type: ignore[union-attr]
        time.sleep(0.5)
        assert second.poll() is None  # still waiting while the lock is held
    finally:
        first.release()
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "1 added" in out and "Traceback" not in err
