"""Shared fixtures: settings on a temp data dir, fakes, and graphs built from them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from docent.agent.graph import build_graph
from docent.config import Settings, load_settings
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    """No developer .env or keys leak into tests."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    for key in ("GOOGLE_API_KEY", "DOCENT_GOOGLE_API_KEY", "DOCENT_LLM_PROVIDER"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return load_settings(data_dir=tmp_path / "data", retry_max_wait_seconds=0)


@pytest.fixture
def retriever() -> FakeRetriever:
    return FakeRetriever(chunks=list(GUIDE))


@pytest.fixture
def make_graph(settings: Settings, retriever: FakeRetriever) -> Callable[..., Any]:
    """Build a graph around a scripted model; settings overrides lower the guards."""

    def make(*steps: Any, retriever_: FakeRetriever | None = None, **overrides: Any):
        model = ScriptedChatModel(steps=list(steps))
        s = settings.model_copy(update=overrides) if overrides else settings
        return build_graph(model, retriever_ or retriever, s), model

    return make


@pytest.fixture
def run_both(settings: Settings, retriever: FakeRetriever) -> Callable[..., Any]:
    """Run one scripted conversation over HTTP twice: `/chat`, then `/chat/stream`.

    Each mode gets its own copy of the script, so both see the same model behaviour.
    Returns (chat JSON, stream terminal data, stream frames, chat model, stream model).
    """
    from tests.http import post_chat, post_stream

    def run(steps: list[Any], body: dict[str, Any] | None = None,
            retriever_factory: Callable[[], FakeRetriever] | None = None, **overrides: Any):
        s = settings.model_copy(update=overrides) if overrides else settings
        body = body or {"message": "How do I change the tool-call limit?"}
        results = []
        for post in (post_chat, post_stream):
            model = ScriptedChatModel(steps=list(steps))
            r = retriever_factory() if retriever_factory else FakeRetriever(chunks=list(GUIDE))
            results.append((post(build_graph(model, r, s), s, body), model))
        (chat, chat_model), ((frames, terminal), stream_model) = results
        return chat, terminal, frames, chat_model, stream_model

    return run
