"""Small helpers for the servers tests start: a free 127.0.0.1 port, a clean stop."""

from __future__ import annotations

import socket
import subprocess


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
