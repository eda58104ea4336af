"""Drive the real FastAPI app around a given graph, and parse its SSE bytes."""

from __future__ import annotations

import json
import threading
from typing import Any

from fastapi.testclient import TestClient

from docent.api.app import create_app
from docent.config import Settings
from docent.runtime import Runtime


def client_for(graph: Any, settings: Settings, retriever: Any = None) -> TestClient:
    runtime = Runtime(settings=settings, graph=graph, retriever=retriever, model_id="scripted")
    return TestClient(create_app(settings, lambda _s: runtime), raise_server_exceptions=False)


def post_at_once(posts: list[tuple[TestClient, dict[str, Any]]]) -> None:
    """POST each body to /chat of its client at the same moment, one thread each; wait."""
    threads = [threading.Thread(target=c.post, args=("/chat",), kwargs={"json": body})
               for c, body in posts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def parse_sse(raw: bytes) -> list[dict[str, Any]]:
    """Frames as dicts of their fields; comment lines (pings) kept as {'comment': ...}."""
    frames = []
    for block in raw.decode().replace("\r\n", "\n").split("\n\n"):
        if not block.strip():
            continue
        frame: dict[str, Any] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                frame["comment"] = line[1:].strip()
                continue
            key, _, value = line.partition(": ")
            frame[key] = frame.get(key, "") + value if key == "data" else value
        frames.append(frame)
    return frames


def post_chat(graph: Any, settings: Settings, body: dict[str, Any]) -> dict[str, Any]:
    with client_for(graph, settings) as client:
        r = client.post("/chat", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def post_stream(graph: Any, settings: Settings, body: dict[str, Any]):
    with client_for(graph, settings) as client:
        r = client.post("/chat/stream", json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/event-stream")
    frames = [f for f in parse_sse(r.content) if "event" in f]
    assert frames[-1]["event"] == "on_chain_end", frames[-1]
    assert sum(f["event"] == "on_chain_end" for f in frames) == 1
    return frames, json.loads(frames[-1]["data"])
