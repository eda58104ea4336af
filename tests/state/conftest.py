"""One real Redis for the module's tests; each test gets its own key prefix."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from docent.config import Settings
from tests.redis_server import RedisServer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_settings(settings: Settings, redis_server: RedisServer) -> Settings:
    """Settings whose shared state is the test Redis, under a prefix no other test uses."""
    from pydantic import SecretStr

    return settings.model_copy(update={
        "redis_url": SecretStr(redis_server.url), "redis_prefix": f"t{uuid.uuid4().hex[:8]}:",
    })


def replica(settings: Settings, steps: list[Any], retriever: Any = None) -> tuple[Any, Any]:
    """An app like one `docent serve` replica on `settings`' Redis, around a scripted model;
    (TestClient, model). Two of them on one Redis stand for two replicas."""
    from fastapi.testclient import TestClient

    from docent.agent.graph import build_graph
    from docent.api.app import create_app
    from docent.runtime import Runtime, shared_caches
    from docent.state.client import shared_state
    from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel

    shared = shared_state(settings)
    _, replies = shared_caches(settings, shared)
    model = ScriptedChatModel(steps=list(steps))
    retriever = retriever or FakeRetriever(chunks=list(GUIDE))
    graph = build_graph(model, retriever, settings, reply_cache=replies)
    runtime = Runtime(settings=settings, graph=graph, retriever=retriever, model_id="scripted",
                      shared=shared)
    app = create_app(settings, lambda _s: runtime)
    return TestClient(app, raise_server_exceptions=False), model
