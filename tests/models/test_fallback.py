"""CONTRACT.md, provider fallback: a failing provider hands over to the next one."""

from __future__ import annotations

import pytest
from langchain_core.exceptions import ModelAPIError, ModelRateLimitError
from langchain_core.messages import AIMessage

from docent.agent.graph import build_graph
from docent.config import load_settings
from docent.models.extractive import ExtractiveChatModel
from docent.models.factory import NamedModel, build_chat_models
from tests.fake_servers import failing_api
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel, call
from tests.http import client_for


def chain_client(settings, *chain):
    graph = build_graph(list(chain), FakeRetriever(chunks=list(GUIDE)), settings)
    return client_for(graph, settings)


def test_rate_limited_primary_falls_back_silently(settings):
    primary = ScriptedChatModel(steps=[ModelRateLimitError("429")] * 3)
    backup = ScriptedChatModel(steps=[call("tool-call limit"), AIMessage("Backup says [1].")])
    with chain_client(settings, NamedModel("primary", primary), NamedModel("backup", backup)) as c:
        body = c.post("/chat", json={"message": "tool-call limit?"}).json()
    assert body["exit_reason"] == "COMPLETED" and body["response"] == "Backup says [1]."
    assert body["metadata"]["model"] == "backup" and body["metadata"]["fallback_used"] is True
    assert len(primary.calls) == 3  # its own retries first (LLM_RETRIES=2)


def test_whole_chain_rate_limited_is_rate_limited(settings):
    a = ScriptedChatModel(steps=[ModelRateLimitError("429")] * 3)
    b = ScriptedChatModel(steps=[ModelRateLimitError("429")] * 3)
    with chain_client(settings, NamedModel("a", a), NamedModel("b", b)) as c:
        body = c.post("/chat", json={"message": "limit?"}).json()
    assert body["exit_reason"] == "RATE_LIMITED" and body["retryable"] is True


def test_whole_chain_failing_otherwise_is_llm_error(settings):
    a = ScriptedChatModel(steps=[ModelRateLimitError("429")] * 3)
    b = ScriptedChatModel(steps=[ModelAPIError("500")] * 3)
    with chain_client(settings, NamedModel("a", a), NamedModel("b", b)) as c:
        body = c.post("/chat", json={"message": "limit?"}).json()
    assert body["exit_reason"] == "LLM_ERROR"


@pytest.mark.parametrize("status", [429, 500])
def test_openai_compatible_server_failing_hands_over_to_extractive(tmp_path, status):
    with failing_api("openai", status) as (url, seen):
        settings = load_settings(data_dir=tmp_path, llm_providers="openai,extractive",
                                 openai_base_url=url + "/v1", retry_max_wait_seconds=0,
                                 llm_retries=1)
        chain = build_chat_models(settings)
        assert [m.id for m in chain] == ["openai:gpt-4o-mini", "extractive"]
        with chain_client(settings, *chain) as c:
            body = c.post("/chat", json={"message": "How do I change the tool-call limit?"}).json()
    assert seen and all(p.endswith("/chat/completions") for p in seen)
    assert len(seen) == 2  # one try + LLM_RETRIES, then the next provider
    assert body["exit_reason"] == "COMPLETED" and body["metadata"]["model"] == "extractive"
    assert body["metadata"]["fallback_used"] is True and "DOCENT_MAX_TOOL_CALLS" in body["response"]


@pytest.mark.parametrize("status, reason", [(429, "RATE_LIMITED"), (500, "LLM_ERROR")])
def test_gemini_endpoint_failing_alone_ends_the_run(tmp_path, status, reason):
    with failing_api("gemini", status) as (url, seen):
        settings = load_settings(data_dir=tmp_path, llm_provider="gemini",
                                 google_api_key="test-key", gemini_base_url=url,
                                 retry_max_wait_seconds=0, llm_retries=1)
        with chain_client(settings, *build_chat_models(settings)) as c:
            body = c.post("/chat", json={"message": "tool-call limit?"}).json()
    assert seen and "generateContent" in seen[0]
    assert body["exit_reason"] == reason and body["metadata"]["model"].startswith("gemini")
    assert "test-key" not in str(body)


def test_gemini_then_extractive_by_default_when_a_key_is_set(tmp_path):
    settings = load_settings(data_dir=tmp_path, google_api_key="k")
    assert settings.provider_chain == ["gemini", "extractive"]
    chain = build_chat_models(settings)
    assert isinstance(chain[-1].model, ExtractiveChatModel)
