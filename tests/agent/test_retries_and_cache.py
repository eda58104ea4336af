"""CONTRACT.md, retries and caching: transient errors retried, retries never counted."""

from __future__ import annotations

import json
import threading

from langchain_core.messages import AIMessage, HumanMessage

from docent.agent.retry import is_transient
from tests.fakes import GUIDE, FakeRetriever, call
from tests.http import client_for, parse_sse


def test_retrieval_retries_do_not_count_as_tool_calls(run_both):
    flaky = lambda: FakeRetriever(chunks=list(GUIDE), failures=[TimeoutError(), ConnectionError()])  # noqa: E731
    chat, terminal, _, _, _ = run_both([AIMessage("Done [1].")],
                                       retriever_factory=flaky, tool_retries=3)
    assert chat["exit_reason"] == terminal["exit_reason"] == "COMPLETED"
    assert chat["metadata"]["tool_calls"] == 1


async def test_permanent_retrieval_error_is_not_retried(make_graph):
    r = FakeRetriever(chunks=list(GUIDE), failures=[ValueError("bad query syntax")] * 5)
    graph, _ = make_graph(call("tool-call limit"), AIMessage("never"), retriever_=r,
                          tool_retries=3)
    state = await graph.ainvoke({"messages": [HumanMessage("limit?")]})
    assert state["error_code"] == "RETRIEVAL_FAILED"
    assert len(r.queries) == 1


class HangingRetriever(FakeRetriever):
    """A store that stops answering: every search blocks until the test lets it go."""

    def __init__(self) -> None:
        super().__init__(chunks=list(GUIDE))
        self.release = threading.Event()
        self.calls = 0

    def search(self, query: str, k: int):
        self.calls += 1
        self.release.wait(60)
        return super().search(query, k)


async def test_a_store_that_stops_answering_fails_the_search_instead_of_hanging(make_graph):
    r = HangingRetriever()
    graph, _ = make_graph(call("tool-call limit"), AIMessage("never"), retriever_=r,
                          tool_retries=1, retrieval_timeout_seconds=0.05)
    try:
        state = await graph.ainvoke({"messages": [HumanMessage("limit?")]})
        assert not r.release.is_set()  # the run ended while the store still hung
    finally:
        r.release.set()
    assert state["error_code"] == "RETRIEVAL_FAILED" and state["sources"] == []
    assert r.calls == 2  # timed out, retried once, timed out again


def test_transient_classification():
    from langchain_core.exceptions import (
        ModelAuthenticationError,
        ModelRateLimitError,
        ModelTimeoutError,
    )

    assert is_transient(ModelRateLimitError("429"))
    assert is_transient(ModelTimeoutError("slow"))
    assert is_transient(ConnectionError())
    assert not is_transient(ModelAuthenticationError("401"))
    assert not is_transient(ValueError("x"))


async def test_identical_question_is_answered_from_the_model_cache(make_graph):
    graph, model = make_graph(call("tool-call limit"), AIMessage("Set it [1]."))
    first = await graph.ainvoke({"messages": [HumanMessage("tool-call limit?")]})
    second = await graph.ainvoke({"messages": [HumanMessage("tool-call limit?")]})
    assert len(model.calls) == 2  # the second run never reached the model
    assert second["response"] == first["response"] == "Set it [1]."
    assert second["cached"] is True and not first.get("cached")


async def test_cached_says_whether_the_answer_came_from_the_cache(make_graph):
    # Same question, other passages (top_k 1): the search request is a cache hit, the
    # answer is not, so the answer streams and `cached` must say false.
    graph, model = make_graph(call("tool-call limit"), AIMessage("Set it [1]."),
                              AIMessage("Set it here [1]."))
    await graph.ainvoke({"messages": [HumanMessage("tool-call limit?")]})
    state = await graph.ainvoke({"messages": [HumanMessage("tool-call limit?")]},
                                config={"configurable": {"top_k": 1}})
    assert len(model.calls) == 3 and state["response"] == "Set it here [1]."
    assert not state.get("cached")


async def test_errors_and_empty_replies_are_never_cached(make_graph):
    from langchain_core.exceptions import ModelAPIError

    # No cool-down: the failed model is asked again at once rather than skipped.
    graph, model = make_graph(ModelAPIError("500"), AIMessage("A [1]."), AIMessage("A [1]."),
                              llm_retries=0, llm_breaker_cooldown_seconds=0)
    question = {"messages": [HumanMessage("How do I change the tool-call limit?")]}
    assert (await graph.ainvoke(question))["exit_reason"] == "LLM_ERROR"
    assert (await graph.ainvoke(question))["exit_reason"] == "COMPLETED"
    assert len(model.calls) == 2


def test_cached_answer_streams_no_tokens_only_the_final_state(make_graph, settings):
    graph, model = make_graph(call("tool-call limit"), AIMessage("Set the limit [1]."))
    body = {"message": "How do I change the tool-call limit?"}
    with client_for(graph, settings) as client:
        cold = parse_sse(client.post("/chat/stream", json=body).content)
        warm = parse_sse(client.post("/chat/stream", json=body).content)
    assert any(f.get("event") == "on_chat_model_stream" for f in cold)
    assert not any(f.get("event") == "on_chat_model_stream" for f in warm)
    final = json.loads([f for f in warm if f.get("event") == "on_chain_end"][0]["data"])
    assert final["response"] == "Set the limit [1]." and final["metadata"]["cached"] is True
    assert len(model.calls) == 2


async def test_cache_size_zero_disables_it(make_graph):
    graph, model = make_graph(AIMessage("no docs"), AIMessage("no docs"), llm_cache_size=0)
    question = {"messages": [HumanMessage("How do I change the tool-call limit?")]}
    await graph.ainvoke(question)
    await graph.ainvoke(question)
    assert len(model.calls) == 2


async def test_a_disabled_cache_is_never_keyed(make_graph, monkeypatch):
    # Hashing the whole prompt is work a disabled cache has no use for.
    from docent.agent import graph as graph_module

    keyed: list[str] = []
    real = graph_module.payload_key
    monkeypatch.setattr(graph_module, "payload_key",
                        lambda *a: keyed.append("key") or real(*a))
    question = {"messages": [HumanMessage("How do I change the tool-call limit?")]}
    off, _ = make_graph(AIMessage("no docs"), llm_cache_size=0)
    await off.ainvoke(question)
    assert keyed == []
    on, _ = make_graph(AIMessage("no docs"))
    await on.ainvoke(question)
    assert keyed == ["key"]


async def test_the_same_model_name_behind_another_server_is_not_served_from_the_cache(tmp_path):
    """The reply cache is keyed by provider and endpoint, not only by the model's name."""
    from docent.agent.graph import build_graph
    from docent.agent.llm_cache import ReplyCache
    from docent.config import load_settings
    from docent.models.factory import build_chat_models
    from tests.fake_openai import fake_openai

    shared = ReplyCache(16, 3600)  # one process-wide cache, as a long-lived server keeps it
    question = {"messages": [HumanMessage("How do I change the tool-call limit?")]}
    answers = []
    with fake_openai("cited") as first, fake_openai("uncited") as second:
        for server in (first, second):
            settings = load_settings(_env_file=None, data_dir=tmp_path, llm_provider="openai",
                                     openai_base_url=server.url, openai_model="same-name")
            graph = build_graph(build_chat_models(settings), FakeRetriever(chunks=list(GUIDE)),
                                settings, reply_cache=shared)
            answers.append((await graph.ainvoke(question))["response"])
        assert len(first.requests) == 1 and len(second.requests) == 1
    assert answers[0].endswith("[1].") and not answers[1].endswith("[1].")


def test_a_model_timeout_is_not_retried_on_the_same_provider_other_transients_are():
    import httpx
    from langchain_core.exceptions import ModelAPIError, ModelTimeoutError

    from docent.agent.deadline import ModelDeadlineExceeded
    from docent.agent.retry import is_retryable_model_error, is_transient

    for timeout in (ModelTimeoutError("client timeout"), ModelDeadlineExceeded("deadline"),
                    httpx.ReadTimeout("read"), TimeoutError()):
        assert not is_retryable_model_error(timeout), timeout
    assert is_transient(ModelTimeoutError("client timeout"))  # a search's timeout is retried
    assert is_retryable_model_error(ModelAPIError("503"))
    assert is_retryable_model_error(httpx.ConnectError("refused"))


def _tool_frames(frames):
    return [(f["event"], json.loads(f["data"])) for f in frames
            if f["event"] in ("on_tool_start", "on_tool_end")]


def test_a_retried_search_is_one_tool_start_and_one_tool_end(run_both):
    """CONTRACT.md §3: retries are invisible, also in the stream."""
    flaky = lambda: FakeRetriever(chunks=list(GUIDE), failures=[TimeoutError(), ConnectionError()])  # noqa: E731
    _, terminal, frames, _, _ = run_both([AIMessage("Done [1].")],
                                         retriever_factory=flaky, tool_retries=3)
    assert terminal["exit_reason"] == "COMPLETED"
    tools = _tool_frames(frames)
    assert [event for event, _ in tools] == ["on_tool_start", "on_tool_end"]
    assert tools[1][1]["output"]["results"] == 2


def test_a_failed_search_still_ends_with_its_tool_end(run_both):
    broken = lambda: FakeRetriever(chunks=list(GUIDE), failures=[ConnectionError()] * 5)  # noqa: E731
    chat, terminal, frames, _, _ = run_both([AIMessage("never")],
                                            retriever_factory=broken, tool_retries=2)
    assert chat["metadata"]["error_code"] == terminal["metadata"]["error_code"] == "RETRIEVAL_FAILED"
    tools = _tool_frames(frames)
    assert [event for event, _ in tools] == ["on_tool_start", "on_tool_end"]
    assert tools[1][1] == {"name": "search_docs", "output": {"results": 0, "sources": []}}
    assert not any(f["event"] == "on_tool_error" for f in frames)
