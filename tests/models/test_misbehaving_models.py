"""CONTRACT.md §1 and "Models and fallback": models that misbehave the way real ones do.

A local OpenAI-compatible server on 127.0.0.1 (tests/fake_openai.py) never calls tools,
hangs, streams forever, ignores or honours the token cap, or answers without citations;
every case runs over `/chat` and `/chat/stream` against the real app. Behaviour only:
the deadlines here are short so that the suite stays quick, and nothing asserts a time.
"""

from __future__ import annotations

import json
from typing import Any

from docent.agent.graph import build_graph
from docent.config import Settings, load_settings
from docent.exit_reasons import CANNED, REFUSAL, ExitReason
from docent.models.factory import build_chat_models
from tests.fake_openai import NO_PASSAGES, fake_openai
from tests.fakes import GUIDE, FakeRetriever
from tests.http import client_for, parse_sse

QUESTION = {"message": "How do I change the tool-call limit?"}
LIMIT_SENTENCE = "The tool-call limit caps retriever calls per run"


def settings_for(tmp_path, url: str, chain: str = "openai,extractive", **overrides: Any
                 ) -> Settings:
    return load_settings(
        _env_file=None, data_dir=tmp_path, llm_providers=chain, openai_base_url=url,
        openai_model="fake", retry_max_wait_seconds=0, llm_timeout_seconds=1.0,
        rate_limit_enabled=False, llm_cache_size=0, **overrides,
    )


def ask_both(settings: Settings, body: dict[str, Any] = QUESTION, times: int = 1):
    """POST `body` to /chat then /chat/stream on ONE app (one breaker), `times` rounds.

    Returns [(chat JSON, stream terminal data, stream token text)] per round.
    """
    graph = build_graph(build_chat_models(settings), FakeRetriever(chunks=list(GUIDE)), settings)
    rounds = []
    with client_for(graph, settings) as client:
        for _ in range(times):
            chat = client.post("/chat", json=body)
            stream = client.post("/chat/stream", json=body)
            assert chat.status_code == 200 and stream.status_code == 200
            frames = [f for f in parse_sse(stream.content) if "event" in f]
            assert frames[-1]["event"] == "on_chain_end"
            tokens = "".join(json.loads(f["data"])["content"] for f in frames
                             if f["event"] == "on_chat_model_stream")
            rounds.append((chat.json(), json.loads(frames[-1]["data"]), tokens))
    return rounds


def test_a_model_that_never_calls_tools_answers_from_the_passages(tmp_path):
    with fake_openai("cited") as fake:
        [(chat, terminal, tokens)] = ask_both(settings_for(tmp_path, fake.url, chain="openai"))
    for out in (chat, terminal):
        assert out["exit_reason"] == "COMPLETED", out
        assert out["response"] == f"{LIMIT_SENTENCE} [1]."
        assert [s["chunk_id"] for s in out["sources"]] == ["chunk0001"]
        assert out["metadata"]["model"] == "openai:fake"
        assert out["metadata"]["turns"] == 1 and out["metadata"]["tool_calls"] == 1
    assert tokens == f"{LIMIT_SENTENCE} [1]."
    # The passages reached the model as the answer to a search call, before its first turn.
    first = fake.requests[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user", "assistant", "tool"]
    assert first[2]["tool_calls"][0]["function"]["name"] == "search_docs"
    assert len(fake.requests) == 2  # one model call per mode, no more


def test_a_model_without_tool_support_reads_the_passages_as_text(tmp_path):
    # DOCENT_OPENAI_TOOLS=false: for servers whose chat template drops tool messages.
    with fake_openai("cited") as fake:
        settings = settings_for(tmp_path, fake.url, chain="openai", openai_tools=False)
        [(chat, terminal, _)] = ask_both(settings)
    for out in (chat, terminal):
        assert out["exit_reason"] == "COMPLETED" and out["response"] == f"{LIMIT_SENTENCE} [1]."
    for request in fake.requests:
        assert "tools" not in request and "tool_choice" not in request
        assert [m["role"] for m in request["messages"]] == ["system", "user"]  # alternating
        question = request["messages"][1]["content"]
        assert question.startswith("How do I change the tool-call limit?\n\n")
        assert 'Documentation search for "How do I change' in question
        assert "[1] Guide > Limits (guide.md)" in question


def test_forcing_the_tool_is_no_help_with_a_model_that_ignores_tool_choice(tmp_path):
    # first_search=tool asks the provider to require search_docs; a server that ignores
    # tool_choice answers without searching, and the answer is overruled by the refusal.
    with fake_openai("cited") as fake:
        settings = settings_for(tmp_path, fake.url, chain="openai", first_search="tool")
        [(chat, terminal, tokens)] = ask_both(settings)
    assert fake.requests[0]["tool_choice"] == {"type": "function",
                                               "function": {"name": "search_docs"}}
    for out in (chat, terminal):
        assert out["exit_reason"] == "LLM_GENERATION_FAILURE"
        assert out["response"] == REFUSAL and out["sources"] == []
    assert tokens == NO_PASSAGES  # streamed, then overruled: why `search` is the default


def test_an_answer_without_citations_lists_the_passages_it_was_given(tmp_path):
    with fake_openai("uncited") as fake:
        [(chat, terminal, _)] = ask_both(settings_for(tmp_path, fake.url, chain="openai"))
    for out in (chat, terminal):
        assert out["exit_reason"] == "COMPLETED"
        assert out["response"] == f"{LIMIT_SENTENCE}."
        assert [s["n"] for s in out["sources"]] == [1, 2]  # every passage of the run
        assert out["response_html"].count('class="cite"') == 0


def test_a_hung_model_falls_back_after_one_deadline_and_is_then_skipped(tmp_path, caplog):
    with fake_openai("hang") as fake:
        rounds = ask_both(settings_for(tmp_path, fake.url, llm_retries=2), times=2)
    # One call, cut at the deadline and not retried (LLM_RETRIES=2 notwithstanding); the
    # open circuit then skips the server for the other three runs.
    assert len(fake.requests) == 1
    for chat, terminal, _ in rounds:
        for out in (chat, terminal):
            assert out["exit_reason"] == "COMPLETED", out
            assert out["metadata"]["model"] == "extractive"
            assert out["metadata"]["fallback_used"] is True
            assert "DOCENT_MAX_TOOL_CALLS" in out["response"]
    assert "skipped" in caplog.text and "failed recently" in caplog.text


def test_a_hung_model_alone_is_an_llm_error_and_is_tried_again_having_no_fallback(tmp_path):
    with fake_openai("hang") as fake:
        rounds = ask_both(settings_for(tmp_path, fake.url, chain="openai"), times=2)
    assert len(fake.requests) == 4  # its circuit is open, but nothing comes after it
    for chat, terminal, tokens in rounds:
        for out in (chat, terminal):
            assert out["exit_reason"] == "LLM_ERROR" and out["retryable"] is True
            assert out["response"] == CANNED[ExitReason.LLM_ERROR]
        assert tokens == ""


def test_the_circuit_closes_again_after_its_cool_down(tmp_path):
    with fake_openai("hang") as fake:
        settings = settings_for(tmp_path, fake.url, llm_breaker_cooldown_seconds=0)
        ask_both(settings, times=1)
    assert len(fake.requests) == 2  # no cool-down: each mode tried the server again


def test_a_runaway_stream_is_cut_at_the_deadline(tmp_path):
    with fake_openai("runaway") as fake:
        [(chat, terminal, tokens)] = ask_both(settings_for(tmp_path, fake.url))
    assert len(fake.requests) == 1  # /chat's trickled body was cut; the stream then skipped it
    for out in (chat, terminal):
        assert out["exit_reason"] == "COMPLETED"
        assert out["metadata"]["model"] == "extractive" and out["metadata"]["fallback_used"]


def test_a_runaway_stream_alone_is_cut_and_the_terminal_event_still_comes(tmp_path):
    with fake_openai("runaway") as fake:
        settings = settings_for(tmp_path, fake.url, chain="openai",
                                llm_breaker_cooldown_seconds=0)
        [(chat, terminal, tokens)] = ask_both(settings)
    assert [r.get("stream", False) for r in fake.requests] == [False, True]
    assert tokens.startswith("more more")  # it streamed until the deadline cut it
    for out in (chat, terminal):
        assert out["exit_reason"] == "LLM_ERROR"
        assert out["response"] == CANNED[ExitReason.LLM_ERROR]


def test_the_token_cap_is_sent_and_a_capped_reply_is_kept(tmp_path):
    with fake_openai("capped") as fake:
        settings = settings_for(tmp_path, fake.url, chain="openai", llm_max_output_tokens=16)
        [(chat, terminal, tokens)] = ask_both(settings)
    assert [r["max_tokens"] for r in fake.requests] == [16, 16]
    assert "max_completion_tokens" not in fake.requests[0]  # not OpenAI itself: the old name
    for out in (chat, terminal):
        assert out["exit_reason"] == "COMPLETED" and out["response"] == ("word " * 16).strip()


def test_a_rate_limited_provider_alone_ends_rate_limited_each_time_it_is_asked(tmp_path):
    from tests.fake_servers import failing_api

    with failing_api("openai", 429) as (url, seen):
        settings = settings_for(tmp_path, url + "/v1", chain="openai", llm_retries=0)
        rounds = ask_both(settings)
    assert len(seen) == 2  # open after the first, but the last of its chain: asked again
    for out in rounds[0][:2]:
        assert out["exit_reason"] == "RATE_LIMITED" and out["retryable"] is True
