"""Small helpers for the servers tests start: a free 127.0.0.1 port, waiting for one to
answer, a clean stop."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable


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


def wait_for(
    proc: subprocess.Popen[bytes], ready: Callable[[], bool], seconds: float,
    interval: float = 0.1,
) -> bool:
    """Poll `ready()` until it is true; False once `proc` exited or `seconds` passed.
    `ready` may raise OSError (nothing listens yet): that counts as not ready."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if ready():
                return True
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(interval)
