"""A local OpenAI-compatible chat server on 127.0.0.1 that misbehaves the way real ones do.

`behaviour` picks how it answers `POST /v1/chat/completions` (streamed or not):
- `cited`: answers from the first passage in its prompt, with `[1]`; never calls a tool
  (so it is also the model that "never calls tools", whatever `tool_choice` says);
- `uncited`: the same answer without any citation;
- `runaway`: never stops: a stream of tokens (or a body trickled byte by byte) that
  ignores `max_tokens`;
- `capped`: writes words until the request's `max_tokens`, then stops (`length`);
- `hang`: reads the request and never answers;
- `held`: answers as `cited` does, once `released` is set.
Every request body is kept in `requests`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NO_PASSAGES = "You can change it in the settings."  # what a model says from its own knowledge


@dataclass
class FakeOpenAI:
    url: str
    behaviour: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)


def answer_from(body: dict[str, Any], cite: bool) -> str:
    """A one-sentence answer quoting the first passage of the prompt's tool messages."""
    for message in body.get("messages", []):
        if message.get("role") in ("tool", "user"):  # user: passages shown as text
            match = re.search(r"^\[1\][^\n]*\n([^.\n]+)", message.get("content") or "", re.M)
            if match:
                return f"{match.group(1).strip()}" + (" [1]." if cite else ".")
    return NO_PASSAGES


def _completion(text: str, finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _chunk(text: str | None, finish: str | None = None) -> bytes:
    delta = {"role": "assistant", "content": text} if text is not None else {}
    body = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
            "model": "fake", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n".encode()


@contextmanager
def fake_openai(behaviour: str) -> Iterator[FakeOpenAI]:
    """Serve `behaviour` on a free 127.0.0.1 port; yields the server (url ends in /v1)."""
    fake: FakeOpenAI

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            fake.requests.append(body)
            try:
                if behaviour in ("hang", "held"):
                    fake.released.wait(120)
                    if behaviour == "hang":
                        return
                if body.get("stream"):
                    self._stream(body)
                else:
                    self._whole(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up: what a deadline does

        def _headers(self, content_type: str, length: int | None = None) -> None:
            self.send_response(200)
            self.send_header("content-type", content_type)
            if length is None:
                self.send_header("transfer-encoding", "chunked")
            else:
                self.send_header("content-length", str(length))
            self.end_headers()

        def _send_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _whole(self, body: dict[str, Any]) -> None:
            if behaviour == "runaway":  # a body that never ends, a byte at a time
                self._headers("application/json")
                self._send_chunk(b'{"id": "chatcmpl-fake", "choices": [')
                while not fake.released.is_set():
                    self._send_chunk(b" ")
                    time.sleep(0.05)
                return
            if behaviour == "capped":
                cap = int(body.get("max_tokens") or 10_000)
                payload = json.dumps(_completion("word " * cap, "length")).encode()
            else:
                payload = json.dumps(_completion(answer_from(body, behaviour in ("cited", "held"))))
                payload = payload.encode()
            self._headers("application/json", len(payload))
            self.wfile.write(payload)

        def _stream(self, body: dict[str, Any]) -> None:
            self._headers("text/event-stream")
            if behaviour == "runaway":
                while not fake.released.is_set():
                    self._send_chunk(_chunk("more "))
                    time.sleep(0.02)
                return
            if behaviour == "capped":
                cap = int(body.get("max_tokens") or 10_000)
                pieces, finish = ["word "] * cap, "length"
            else:
                text = answer_from(body, behaviour in ("cited", "held"))
                pieces, finish = re.findall(r"\s*\S+", text), "stop"
            for piece in pieces:
                self._send_chunk(_chunk(piece))
            self._send_chunk(_chunk(None, finish))
            self._send_chunk(b"data: [DONE]\n\n")
            self._send_chunk(b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    fake = FakeOpenAI(f"http://{host}:{port}/v1", behaviour)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.released.set()
        server.shutdown()
        server.server_close()
