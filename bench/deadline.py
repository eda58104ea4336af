"""How long a hung model costs, over HTTP, with the default deadline.

A local OpenAI-compatible server on 127.0.0.1 accepts each request and never answers.
docent (chain `openai,extractive`, default DOCENT_LLM_TIMEOUT_SECONDS) must fall back to
the extractive model within the deadline + 5 s, over `/chat` and `/chat/stream`; with the
circuit breaker on, the requests after the first skip the hung server.

    .venv/bin/python bench/deadline.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docent.agent.graph import build_graph  # noqa: E402
from docent.api.app import create_app  # noqa: E402
from docent.config import load_settings  # noqa: E402
from docent.models.factory import build_chat_models  # noqa: E402
from docent.runtime import Runtime  # noqa: E402
from tests.fake_openai import fake_openai  # noqa: E402
from tests.fakes import GUIDE, FakeRetriever  # noqa: E402
from tests.http import parse_sse  # noqa: E402
from tests.live import LiveServer  # noqa: E402

QUESTION = {"message": "How do I change the tool-call limit?"}


def timed(client: httpx.Client, path: str) -> tuple[float, str, str]:
    began = time.perf_counter()
    r = client.post(path, json=QUESTION)
    seconds = time.perf_counter() - began
    if path == "/chat":
        body = r.json()
    else:
        ends = [f for f in parse_sse(r.content) if f.get("event") == "on_chain_end"]
        body = json.loads(ends[0]["data"])
    return seconds, body["exit_reason"], body["metadata"]["model"]


def main() -> None:
    with fake_openai("hang") as fake:
        for cooldown in (0.0, 60.0):
            settings = load_settings(
                _env_file=None, data_dir=Path(tempfile.mkdtemp()),
                llm_providers="openai,extractive",
                openai_base_url=fake.url, openai_model="hung", rate_limit_enabled=False,
                llm_breaker_cooldown_seconds=cooldown, llm_cache_size=0,
            )
            retriever = FakeRetriever(chunks=list(GUIDE))
            graph = build_graph(build_chat_models(settings), retriever, settings)
            runtime = Runtime(settings=settings, graph=graph, retriever=retriever, model_id="x")
            with LiveServer(create_app(settings, lambda _s, r=runtime: r)) as server:
                with httpx.Client(base_url=server.url, timeout=300) as client:
                    print(f"deadline {settings.llm_timeout_seconds:g} s, breaker cool-down "
                          f"{cooldown:g} s ({'off' if not cooldown else 'on'})")
                    for path in ("/chat", "/chat/stream"):
                        seconds, reason, model = timed(client, path)
                        print(f"  {path:13} {seconds:6.2f} s  {reason}  answered by {model}")
    print(f"requests the hung server received: {len(fake.requests)}")


if __name__ == "__main__":
    main()
