"""CONTRACT.md, streaming: the SSE wire format, parsed from a real stream."""

from __future__ import annotations

import asyncio
import json
import time

from langchain_core.messages import AIMessage

from docent.chat import ChatTurn, stream_chat
from docent.runtime import Runtime
from tests.fakes import call
from tests.http import client_for, parse_sse

QUESTION = {"message": "How do I change the tool-call limit?"}


def test_frames_are_byte_exact_and_ordered(make_graph, settings):
    graph, _ = make_graph(AIMessage("Set it [1]."))
    with client_for(graph, settings) as client:
        r = client.post("/chat/stream", json={"message": "tool-call limit"})
    assert r.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert r.content.startswith(
        b'id: 1\r\nevent: on_tool_start\r\n'
        b'data: {"name": "search_docs", "input": {"query": "tool-call limit"}}\r\n\r\n'
    )
    frames = parse_sse(r.content)
    assert [f["event"] for f in frames] == [
        "on_tool_start", "on_tool_end",
        "on_chat_model_stream", "on_chat_model_stream", "on_chat_model_stream",
        "on_chain_end",
    ]
    assert [int(f["id"]) for f in frames] == list(range(1, 7))
    tokens = "".join(json.loads(f["data"])["content"] for f in frames[2:5])
    assert tokens == "Set it [1]."
    tool_end = json.loads(frames[1]["data"])
    assert tool_end["output"]["results"] == 2
    assert tool_end["output"]["sources"][0] == {"source_file": "guide.md",
                                                "section_title": "Guide > Limits"}
    final = json.loads(frames[-1]["data"])
    assert final["exit_reason"] == "COMPLETED" and final["response"] == "Set it [1]."
    assert final["query_id"].startswith("req-")


def test_tool_call_chunks_are_not_streamed_as_tokens(make_graph, settings):
    graph, _ = make_graph(call("tool-call limit"), AIMessage("Ok [1]."))
    with client_for(graph, settings) as client:
        frames = parse_sse(client.post("/chat/stream", json=QUESTION).content)
    tokens = [json.loads(f["data"])["content"] for f in frames
              if f.get("event") == "on_chat_model_stream"]
    assert all(tokens) and "".join(tokens) == "Ok [1]."


def test_keep_alive_pings_while_the_model_is_slow(make_graph, settings):
    def slow(_messages):
        time.sleep(0.6)
        return AIMessage("Late [1].")

    graph, _ = make_graph(slow, sse_ping_seconds=0.1)
    s = settings.model_copy(update={"sse_ping_seconds": 0.1})
    with client_for(graph, s) as client:
        frames = parse_sse(client.post("/chat/stream", json=QUESTION).content)
    assert any("comment" in f and "ping" in f["comment"] for f in frames)
    assert frames[-1]["event"] == "on_chain_end"


def test_terminal_event_comes_even_when_the_graph_crashes(settings):
    class Exploding:
        async def astream_events(self, *a, **k):
            yield {"event": "on_chain_start", "name": "docent", "data": {}}
            raise RuntimeError("kaboom /etc/secret")

    runtime = Runtime(settings=settings, graph=Exploding(), retriever=None, model_id="x")

    async def collect():
        return [e async for e in stream_chat(runtime, ChatTurn(message="q"))]

    events = asyncio.run(collect())
    assert [name for name, _ in events] == ["on_chain_end"]
    assert events[-1][1]["exit_reason"] == "LLM_ERROR"
    assert "kaboom" not in json.dumps(events)


async def test_closing_the_stream_stops_the_run(make_graph, settings):
    """sse-starlette closes the generator when the client disconnects; the run must stop."""
    started = asyncio.Event()

    def slow(_messages):
        time.sleep(0.3)
        return AIMessage("unused [1].")

    graph, model = make_graph(call("tool-call limit"), slow, AIMessage("never"))
    runtime = Runtime(settings=settings, graph=graph, retriever=None, model_id="x")
    stream = stream_chat(runtime, ChatTurn(message="tool-call limit?"))
    first = await stream.__anext__()
    started.set()
    await stream.aclose()
    await asyncio.sleep(0.8)
    assert first[0] == "on_tool_start"
    assert len(model.calls) <= 2  # the third scripted step was never reached
    assert model.steps  # and remains unused
