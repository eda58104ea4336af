"""Real `docent serve` processes for tests, on free 127.0.0.1 ports, each with its own log."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.processes import free_port, terminate, wait_for


def docent_env(**settings: str) -> dict[str, str]:
    """This environment without any DOCENT_ setting, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return {**env, "DOCENT_LLM_PROVIDER": "extractive", **settings}


def run_docent(env: dict[str, str], *args: str, check: bool = True,
               cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`docent ARGS...`, checked unless `check` is False (a test of a failing command)."""
    return subprocess.run([sys.executable, "-m", "docent.cli", *args], env=env, check=check,
                          capture_output=True, text=True, timeout=300, cwd=cwd, input=stdin)


def ingested_env(tmp_path: Path) -> dict[str, str]:
    """A settings environment whose data dir holds one ingested page (the tool-call limit),
    rate limits off."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "limits.md").write_text("# Limits\n\nSet `DOCENT_MAX_TOOL_CALLS` to change the "
                                    "tool-call limit; the default is 3.\n")
    env = docent_env(DOCENT_DATA_DIR=str(tmp_path / "data"), DOCENT_RATE_LIMIT_ENABLED="false")
    run_docent(env, "ingest", str(docs), "--quiet")
    return env


@contextmanager
def serving(env: dict[str, str], log: Path, *args: str,
            pids: list[int] | None = None) -> Iterator[str]:
    """`docent serve ARGS` until the block ends; yields its URL once /health answers (and
    appends the process id to `pids`, if given)."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "docent.cli", "serve", "--port", str(port), *args],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    if pids is not None:
        pids.append(proc.pid)
    url = f"http://127.0.0.1:{port}"
    try:
        def healthy() -> bool:
            try:
                return httpx.get(url + "/health", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        if not wait_for(proc, healthy, 180, interval=0.2):
            pytest.fail(f"docent serve did not start:\n{log.read_text()[-2000:]}")
        yield url
    finally:
        terminate(proc)
