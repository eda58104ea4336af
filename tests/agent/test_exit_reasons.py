"""CONTRACT.md, exit reasons: each one driven for real, over /chat and /chat/stream."""

from __future__ import annotations

import json

import pytest
from langchain_core.exceptions import ModelAPIError, ModelRateLimitError
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from docent.exit_reasons import CANNED, REFUSAL, ExitReason
from docent.prompts import TOOL_LIMIT_MESSAGE
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel, call, chunk
from tests.http import client_for, post_chat


def both(chat, terminal):
    """The /chat body and the stream's terminal event carry the same answer."""
    for key in ("response", "exit_reason", "retryable", "sources"):
        assert chat[key] == terminal[key], key
    return chat


def test_the_extractive_model_answers_from_the_first_search_without_searching_again(settings):
    from docent.agent.graph import build_graph
    from docent.models.extractive import ExtractiveChatModel

    retriever = FakeRetriever(chunks=list(GUIDE))
    graph = build_graph(ExtractiveChatModel(), retriever, settings)
    chat = post_chat(graph, settings, {"message": "How do I change the tool-call limit?"})
    assert chat["exit_reason"] == "COMPLETED" and "DOCENT_MAX_TOOL_CALLS" in chat["response"]
    assert chat["metadata"]["turns"] == 1 and chat["metadata"]["tool_calls"] == 1
    assert retriever.queries == ["How do I change the tool-call limit?"]


def test_completed_answer_is_cited_and_sources_list_only_cited(run_both):
    steps = [AIMessage("Set DOCENT_MAX_TOOL_CALLS [1].")]
    chat, terminal, frames, model, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "COMPLETED"
    assert out["response"] == "Set DOCENT_MAX_TOOL_CALLS [1]."
    assert [s["n"] for s in out["sources"]] == [1]
    assert out["sources"][0]["chunk_id"] == "chunk0001"
    assert out["retryable"] is False
    # The question was searched before the first model call: one search, one model call.
    assert out["metadata"]["turns"] == 1 and out["metadata"]["tool_calls"] == 1
    assert len(model.calls) == 1 and model.calls[0]["tools"] is True
    first_prompt = model.calls[0]["messages"]
    assert isinstance(first_prompt[-1], ToolMessage) and "[1] Guide > Limits" in first_prompt[-1].text
    assert [f["event"] for f in frames][:2] == ["on_tool_start", "on_tool_end"]


@pytest.mark.parametrize(
    "message",
    ["", "   ", "\n\t ", "\u200b\u200b\u200b", "\x00\x00", "\u200b \ufeff\u2060\u200d\x00",
     "\u3164\u2800"],
    ids=["empty", "spaces", "whitespace", "zero-width", "NUL", "mixed invisible", "blank glyphs"],
)
def test_empty_input_is_a_400_on_both_endpoints(settings, message):
    model = ScriptedChatModel(steps=[])
    from docent.agent.graph import build_graph

    graph = build_graph(model, FakeRetriever(), settings)
    with client_for(graph, settings) as client:
        for path in ("/chat", "/chat/stream"):
            r = client.post(path, json={"message": message})
            assert r.status_code == 400
            body = r.json()
            assert body["error_code"] == "EMPTY_QUERY"
            assert body["exit_reason"] == "EMPTY_INPUT"
            assert body["timestamp"] and body["error"]
    assert model.calls == []


async def test_empty_input_exits_without_llm_call_in_invoke_and_stream(make_graph):
    graph, model = make_graph()
    state = await graph.ainvoke({"messages": [HumanMessage("  ")]})
    assert state["exit_reason"] == ExitReason.EMPTY_INPUT
    state = await graph.ainvoke({"messages": [HumanMessage("\u200b\x00\ufeff")]})
    assert state["exit_reason"] == ExitReason.EMPTY_INPUT
    ends = [
        e async for e in graph.astream_events({"messages": [HumanMessage("")]}, version="v2")
        if e["event"] == "on_chain_end" and e["name"] == "docent"
    ]
    assert ends[-1]["data"]["output"]["exit_reason"] == ExitReason.EMPTY_INPUT
    assert model.calls == []


def test_max_turns_reached_stops_with_canned_message(run_both):
    steps = [call("limit"), call("turn"), call("stream"), AIMessage("never [1]")]
    chat, terminal, _, model, _ = run_both(steps, max_turns=2, max_tool_calls=5)
    out = both(chat, terminal)
    assert out["exit_reason"] == "MAX_TURNS_REACHED"
    assert out["response"] == CANNED[ExitReason.MAX_TURNS_REACHED]
    assert out["sources"] == []
    assert len(model.calls) == 2


def test_max_tool_calls_gets_one_last_call_without_tools(run_both):
    # The first search (the graph's, with the question) used the only allowed call.
    steps = [call("turn limit"), AIMessage("Use the limit [1].")]
    chat, terminal, frames, model, _ = run_both(steps, max_tool_calls=1)
    out = both(chat, terminal)
    assert out["exit_reason"] == "MAX_TOOL_CALLS_REACHED"
    assert out["response"] == "Use the limit [1]."  # the last model answer is shown
    assert TOOL_LIMIT_MESSAGE not in out["response"]
    assert [c["tools"] for c in model.calls] == [True, False]
    last_prompt = model.calls[-1]["messages"]
    assert isinstance(last_prompt[-1], ToolMessage) and last_prompt[-1].content == TOOL_LIMIT_MESSAGE
    assert out["metadata"]["tool_calls"] == 1
    assert sum(f["event"] == "on_tool_start" for f in frames) == 1


def test_max_context_reached_before_any_model_call(run_both):
    history = [{"role": "user", "content": "x" * 400}, {"role": "assistant", "content": "y" * 400}]
    body = {"message": "And the tool-call limit?", "messages": history}
    chat, terminal, frames, model, _ = run_both([AIMessage("unused")], body=body,
                                                max_context_chars=500)
    out = both(chat, terminal)
    assert out["exit_reason"] == "MAX_CONTEXT_REACHED"
    assert "new conversation" in out["response"]
    assert model.calls == []
    assert not any(f["event"] == "on_chat_model_stream" for f in frames)


def test_the_default_budget_holds_one_question_with_every_search_it_may_make(run_both):
    # A search returns up to ~11,000 characters on the eval corpora (5 passages and 2 more of
    # the best page): one question, its selection and three full searches must fit.
    pages = [GUIDE[0].__class__(**{**GUIDE[0].to_dict(), "chunk_id": f"big{i}",
                                   "text": "tool-call limit " + "pad " * 480}) for i in range(5)]
    big = lambda: FakeRetriever(chunks=pages)  # noqa: E731
    body = {"message": "tool-call limit? " + "q" * 9_900, "selected_text": "s" * 10_000}
    chat, terminal, _, model, _ = run_both(
        [call("limit one"), call("limit two"), AIMessage("Done [1].")],
        body=body, retriever_factory=big)
    out = both(chat, terminal)
    assert out["exit_reason"] == "COMPLETED" and out["response"] == "Done [1]."
    assert len(model.calls) == 3 and out["metadata"]["tool_calls"] == 3


def test_max_context_reached_when_tool_results_overflow(run_both):
    big = FakeRetriever(chunks=[GUIDE[0].__class__(**{**GUIDE[0].to_dict(),
                                                      "text": GUIDE[0].text + " pad" * 200})])
    chat, terminal, _, model, _ = run_both(
        [AIMessage("never")], retriever_factory=lambda: big, max_context_chars=600)
    out = both(chat, terminal)
    assert out["exit_reason"] == "MAX_CONTEXT_REACHED"
    assert len(model.calls) == 0  # never answers on a truncated history


def test_passages_too_long_together_leave_out_the_lower_ranked_ones(run_both):
    # Five long passages (a generated reference page, or top_k 20) overflow the budget
    # together; each fits alone. The best ones that fit are shown, not MAX_CONTEXT_REACHED.
    pages = [chunk(n, f"tool-call limit {n} " + "pad " * 70) for n in range(1, 6)]
    chat, terminal, _, model, _ = run_both(
        [AIMessage("Done [1].")], retriever_factory=lambda: FakeRetriever(chunks=pages),
        max_context_chars=1_000)
    out = both(chat, terminal)
    assert out["exit_reason"] == "COMPLETED" and out["metadata"]["context_chunks"] == 2
    (shown,) = [m for m in model.calls[0]["messages"] if isinstance(m, ToolMessage)]
    assert "tool-call limit 1 " in shown.content and "tool-call limit 2 " in shown.content
    assert "tool-call limit 3 " not in shown.content
    assert sum(len(m.text) for m in model.calls[0]["messages"][1:]) <= 1_000


def test_rate_limited_after_retries(run_both):
    steps = [ModelRateLimitError("429 quota")] * 3
    chat, terminal, _, model, _ = run_both(steps, llm_retries=2)
    out = both(chat, terminal)
    assert out["exit_reason"] == "RATE_LIMITED" and out["retryable"] is True
    assert out["response"] == CANNED[ExitReason.RATE_LIMITED]
    assert len(model.calls) == 3  # one try + LLM_RETRIES


def test_rate_limit_that_clears_within_retries_completes(run_both):
    steps = [ModelRateLimitError("429"), AIMessage("Done [1].")]
    chat, terminal, _, model, _ = run_both(steps, llm_retries=2)
    assert both(chat, terminal)["exit_reason"] == "COMPLETED"
    assert chat["metadata"]["tool_calls"] == 1


def test_llm_error_is_generic_and_not_retried_when_permanent(run_both):
    steps = [ValueError("boom at /srv/secret.py with key sk-123")]
    chat, terminal, _, model, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_ERROR" and out["retryable"] is True
    assert out["response"] == CANNED[ExitReason.LLM_ERROR]
    assert "boom" not in json.dumps(chat) and "ValueError" not in json.dumps(terminal)
    assert len(model.calls) == 1


def test_llm_error_after_transient_failures_exhaust_retries(run_both):
    chat, terminal, _, model, _ = run_both([ModelAPIError("503")] * 3, llm_retries=2)
    assert both(chat, terminal)["exit_reason"] == "LLM_ERROR"
    assert len(model.calls) == 3


def test_empty_reply_is_reasked_once_and_the_reask_answer_shown(run_both):
    steps = [call("tool-call limit"), AIMessage(""), AIMessage("Set it [1].")]
    chat, terminal, _, model, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE"
    assert out["response"] == "Set it [1]."
    assert len(model.calls) == 3 and model.calls[-1]["tools"] is False


def test_two_empty_replies_end_with_canned_message(run_both):
    steps = [call("tool-call limit"), AIMessage(""), AIMessage("  ")]
    chat, terminal, _, _, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE"
    assert out["response"] == CANNED[ExitReason.LLM_GENERATION_FAILURE]


def test_an_empty_first_search_refuses_without_calling_the_model(run_both):
    steps = [AIMessage("Quantum things are great [1].")]
    chat, terminal, frames, model, _ = run_both(steps, body={"message": "Quantum entanglement?"})
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE"
    assert out["response"] == REFUSAL and out["sources"] == []
    assert out["metadata"]["turns"] == 0 and out["metadata"]["tool_calls"] == 1
    assert model.calls == []  # so no token that the refusal would overrule is streamed
    assert [f["event"] for f in frames] == ["on_tool_start", "on_tool_end", "on_chain_end"]
    assert json.loads(frames[1]["data"])["output"]["results"] == 0


def test_empty_searches_the_model_asks_for_later_still_refuse_its_answer(run_both):
    # A first search with passages, then the model searches for something absent and
    # answers from nothing it was given: [1] is a real source, so the answer stands cited.
    steps = [call("quantum entanglement"), AIMessage("Quantum things are great [1].")]
    chat, terminal, frames, _, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "COMPLETED" and out["sources"][0]["n"] == 1
    ends = [json.loads(f["data"])["output"]["results"] for f in frames
            if f["event"] == "on_tool_end"]
    assert ends == [2, 0]


@pytest.mark.parametrize("reply", [
    REFUSAL,
    "\u201cI don\u2019t have enough information in the current documentation to answer that\u201d",
    "**I don't have enough information in the current documentation to answer that.**\n",
])
def test_the_models_own_refusal_after_a_search_cites_nothing(run_both, reply):
    """A hosted model judges sufficiency too: its refusal, however it quotes or punctuates
    it, ends the run with exactly the refusal sentence and no sources."""
    chat, terminal, _, _, _ = run_both([call("tool-call limit"), AIMessage(reply)])
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE"
    assert out["response"] == REFUSAL and out["sources"] == []


def test_answer_without_any_search_is_refused(run_both):
    # Only `first_search=tool` leaves the first search to the model, which may skip it.
    chat, terminal, _, model, _ = run_both([AIMessage("From memory: it is 3 [1].")],
                                           first_search="tool")
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE" and out["response"] == REFUSAL
    assert model.calls[0]["tools"] is True and len(model.calls) == 1


def test_invalid_tool_call_twice_in_a_row_ends_the_run(run_both):
    steps = [call(name="web_search", q="x"), call(name="search_docs", raw=True, q="x"),
             AIMessage("never")]
    chat, terminal, _, model, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "INVALID_TOOL_CALL"
    assert out["response"] == CANNED[ExitReason.INVALID_TOOL_CALL]
    assert out["metadata"]["tool_calls"] == 3  # the first search, then both invalid calls
    assert len(model.calls) == 2
    error = model.calls[1]["messages"][-1]
    assert isinstance(error, ToolMessage) and error.status == "error"
    assert "unknown tool 'web_search'" in error.content


def test_one_invalid_call_then_a_valid_one_recovers(run_both):
    steps = [call(name="search_docs", raw=True, query=""), call("tool-call limit"),
             AIMessage("Fine [2].")]
    chat, terminal, _, _, _ = run_both(steps)
    out = both(chat, terminal)
    assert out["exit_reason"] == "COMPLETED"
    assert out["metadata"]["tool_calls"] == 3


def test_retrieval_failure_after_retries_is_a_friendly_interruption(run_both):
    failing = lambda: FakeRetriever(chunks=list(GUIDE), failures=[ConnectionError("db")] * 4)  # noqa: E731
    chat, terminal, _, model, _ = run_both([AIMessage("never")],
                                           retriever_factory=failing, tool_retries=3)
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE"
    assert out["metadata"]["error_code"] == "RETRIEVAL_FAILED"
    assert "temporary service interruption" in out["response"]
    assert out["sources"] == [] and len(model.calls) == 0  # the first search failed


def test_a_rate_limit_after_the_tool_cap_keeps_the_reason_and_is_retryable(run_both):
    """CONTRACT.md §1: the first reason stays; `retryable` follows the text the user got."""
    # The first search is the one tool call allowed; the model's own call hits the cap.
    steps = [call("turn limit"), ModelRateLimitError("429")]
    chat, terminal, _, _, _ = run_both(steps, max_tool_calls=1, llm_retries=0)
    out = both(chat, terminal)
    assert out["exit_reason"] == "MAX_TOOL_CALLS_REACHED"
    assert out["response"] == CANNED[ExitReason.RATE_LIMITED]
    assert out["retryable"] is True


def test_a_store_failure_says_try_again_and_is_retryable(run_both):
    failing = lambda: FakeRetriever(chunks=list(GUIDE), failures=[ConnectionError("db")] * 4)  # noqa: E731
    chat, terminal, _, _, _ = run_both([AIMessage("never")],
                                       retriever_factory=failing, tool_retries=1)
    out = both(chat, terminal)
    assert out["exit_reason"] == "LLM_GENERATION_FAILURE" and out["retryable"] is True
    assert "try again" in out["response"]
