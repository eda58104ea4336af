"""A real docent server for tests: uvicorn as `docent serve` configures it, on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from docent.api.server import server_config
from docent.config import Settings


@dataclass
class LiveServer:
    """uvicorn serving `app` from a background thread on a free 127.0.0.1 port."""

    app: Any
    settings: Settings

    def __enter__(self) -> LiveServer:
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.host, self.port = sock.getsockname()
        self.url = f"http://127.0.0.1:{self.port}"
        quiet = self.settings.model_copy(update={"log_level": "WARNING"})
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
