"""A real Chroma server for tests: `chroma run` on 127.0.0.1, skipped without the CLI."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import free_port, terminate, wait_for


class ChromaServer:
    """`chroma run` on a fixed 127.0.0.1 port and path, stopped and started at will."""

    def __init__(self, path: Path) -> None:
        cli = Path(sys.executable).with_name("chroma")
        if not cli.exists():
            if not shutil.which("chroma"):
                pytest.skip("chroma CLI not installed")
            cli = Path("chroma")
        self.cli, self.path = cli, path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [str(self.cli), "run", "--host", "127.0.0.1", "--port", str(self.port),
             "--path", str(self.path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        if not wait_for(self.proc, self._listening, 30, interval=0.3):
            self.stop()
            pytest.skip("chroma server did not start within 30 s")

    def _listening(self) -> bool:
        socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        return True

    def stop(self) -> None:
        if self.proc is None:
            return
        terminate(self.proc)
        self.proc = None
