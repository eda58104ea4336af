"""A real Redis for tests: Debian's `redis-server` on 127.0.0.1, skipped when not installed.

`.ci/run` installs it (`apt-get install redis-server`). Data survive a stop and start (an
append-only file in the test's directory), as in a deployment that persists Redis.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.processes import free_port, terminate, wait_for

SKIP_REASON = "redis-server not installed (apt-get install redis-server; .ci/run installs it)"


class RedisServer:
    """`redis-server` on a free 127.0.0.1 port, stopped and started at will."""

    def __init__(self, path: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip(SKIP_REASON)
        self.binary, self.path = binary, path
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir",
             str(self.path), "--save", "", "--appendonly", "yes", "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        if not wait_for(self.proc, self._pong, 20, interval=0.05):
            self.stop()
            pytest.fail("redis-server did not start within 20 s")

    def _pong(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        """SIGTERM: Redis writes its append-only file and exits."""
        if self.proc is None:
            return
        terminate(self.proc)
        self.proc = None
