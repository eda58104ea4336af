"""Local stand-ins for hosted model APIs, on 127.0.0.1 only, answering with errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERRORS = {
    429: {"openai": {"error": {"message": "Rate limit reached", "type": "rate_limit_error",
                               "code": "rate_limit_exceeded"}},
          "gemini": {"error": {"code": 429, "message": "Resource has been exhausted",
                               "status": "RESOURCE_EXHAUSTED"}}},
    500: {"openai": {"error": {"message": "Internal server error", "type": "server_error"}},
          "gemini": {"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}}},
}


@contextmanager
def failing_api(kind: str, status: int) -> Iterator[tuple[str, list[str]]]:
    """Serve `status` to every POST; yields (base URL, paths requested)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            seen.append(self.path)
            body = json.dumps(ERRORS[status][kind]).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}", seen
    finally:
        server.shutdown()
        server.server_close()
