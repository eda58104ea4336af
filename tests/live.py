"""Real servers for tests: docent's app under uvicorn on a free 127.0.0.1 port, and waiting
for a subprocess server to come up."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from docent.api.server import server_config
from docent.config import Settings, load_settings


@dataclass
class LiveServer:
    """uvicorn serving `app` from a background thread on a free 127.0.0.1 port, configured
    as `docent serve` configures it (`settings`, else the defaults)."""

    app: Any
    settings: Settings | None = None

    def __enter__(self) -> LiveServer:
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.host, self.port = sock.getsockname()
        self.url = f"http://127.0.0.1:{self.port}"
        settings = self.settings or load_settings()
        quiet = settings.model_copy(update={"log_level": "WARNING"})
        self.server = uvicorn.Server(server_config(self.app, quiet))
        self.sock = sock
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the docent test server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *_: Any) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, proc: subprocess.Popen[bytes], what: str, seconds: float = 180) -> None:
    """Poll `url` until it answers 200; RuntimeError when `proc` dies or time runs out."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.5)
