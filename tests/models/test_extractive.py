"""The built-in extractive model: same protocol as a hosted model, a real answerer."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage

from docent.agent.tools import SEARCH_TOOL, make_search_tool
from docent.exit_reasons import REFUSAL
from docent.models.extractive import ExtractiveChatModel, compose_answer, condense_query
from docent.models.text import parse_references, split_units
from tests.fakes import FakeRetriever

TOOL_TEXT = """[1] Configuration > Guards (configuration.md)
The tool-call limit caps retriever calls per run. Set `DOCENT_MAX_TOOL_CALLS` to change the \
tool-call limit; the default is 3.

```bash
DOCENT_MAX_TOOL_CALLS=5 docent serve
```

[2] Streaming (streaming.md)
Answers stream as server-sent events. Copy

- Keep-alive pings arrive every 15 seconds."""


def bound():
    return ExtractiveChatModel().bind_tools([make_search_tool(FakeRetriever(), 5)])


def test_first_turn_calls_the_search_tool_with_the_question():
    reply = bound().invoke([HumanMessage("How do I change the tool-call limit?")])
    assert reply.tool_calls[0]["name"] == SEARCH_TOOL
    assert reply.tool_calls[0]["args"] == {"query": "How do I change the tool-call limit?"}


def test_streaming_a_tool_call_yields_tool_call_chunks():
    chunks = list(bound().stream([HumanMessage("tool-call limit?")]))
    assert isinstance(chunks[0], AIMessageChunk) and chunks[0].tool_call_chunks
    merged = chunks[0]
    for c in chunks[1:]:
        merged += c
    assert merged.tool_calls[0]["args"]["query"] == "tool-call limit?"


def test_answer_quotes_matching_sentences_with_citations_and_streams():
    messages = [HumanMessage("How do I change the tool-call limit?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "1"}]),
                ToolMessage(TOOL_TEXT, tool_call_id="1")]
    answer = bound().invoke(messages).content
    assert answer.startswith("## Guards")
    assert "Set `DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3. [1]" in answer
    assert "DOCENT_MAX_TOOL_CALLS=5 docent serve" in answer  # the relevant example, whole
    streamed = "".join(c.content for c in bound().stream(messages))
    assert streamed == answer


def test_refuses_on_empty_search_and_on_irrelevant_passages():
    empty = [HumanMessage("What is the airspeed of a swallow?"),
             ToolMessage("DOCUMENTATION_SEARCH_RESULT: EMPTY", tool_call_id="1")]
    assert bound().invoke(empty).content == REFUSAL
    assert compose_answer("airspeed swallow", parse_references(TOOL_TEXT)) == REFUSAL


def test_page_chrome_and_headings_are_not_answer_sentences():
    units = [u for u, _ in split_units("## Title\nReal sentence here. Copy\n\nPrevious\n")]
    assert "## Title" not in units and "Real sentence here." in units[0]


def test_follow_up_questions_are_condensed_with_the_previous_one():
    assert condense_query("How do I configure it?", ["What is the retriever cache?"]) == (
        "What is the retriever cache? How do I configure it?"
    )
    assert condense_query("How do I change the tool-call limit?", ["What is docent?"]) == (
        "How do I change the tool-call limit?"
    )
    assert condense_query("anything", []) == "anything"


def test_without_tools_and_without_passages_it_refuses():
    assert ExtractiveChatModel().invoke([HumanMessage("q")]).content == REFUSAL


def test_sentences_split_on_any_case_but_not_after_abbreviations():
    from docent.models.text import sentences

    assert sentences('docent cites sources. it refuses, e.g. when nothing matches. Then "done."') == [
        "docent cites sources.", "it refuses, e.g. when nothing matches.", 'Then "done."']
    assert sentences("The default is 3. The limit is per run.") == [
        "The default is 3.", "The limit is per run."]
