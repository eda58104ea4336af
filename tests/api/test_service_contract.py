"""CONTRACT.md, the chat service: request fields, response shape, limits, leaks, ops."""

from __future__ import annotations

import json
import logging
import re
import time

import pytest
from langchain_core.messages import AIMessage

from docent.agent.graph import build_graph
from docent.agent.sanitize import strip_internal_metadata
from docent.greeting import ABOUT, ASK_ON, WELCOME, YOU_ARE_WELCOME, courtesy_reply
from docent.logs import JsonFormatter
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel, call
from tests.http import client_for, parse_sse

SECRET = "AIzaSy-very-secret-key"


def build(settings, steps, retriever=None, **overrides):
    s = settings.model_copy(update=overrides)
    model = ScriptedChatModel(steps=list(steps))
    r = retriever if retriever is not None else FakeRetriever(chunks=list(GUIDE))
    return client_for(build_graph(model, r, s), s, r), model, r


def test_response_has_every_contract_field(settings):
    client, _, _ = build(settings, [call("tool-call limit"), AIMessage("Set it [1].")])
    with client:
        body = client.post("/chat", json={"query": "How do I change the tool-call limit?"}).json()
    assert set(body) == {"response", "response_html", "exit_reason", "retryable", "session_id",
                         "query_id", "timestamp", "execution_time_ms", "sources", "metadata"}
    assert body["response_html"].startswith("<p>Set it <a class=\"cite\"")
    assert re.fullmatch(r"req-[0-9a-f-]{36}", body["query_id"])
    assert set(body["sources"][0]) == {"n", "chunk_id", "source_file", "title", "section_title",
                                       "slug", "page_url", "similarity_score", "content_preview"}
    assert 0 <= body["sources"][0]["similarity_score"] <= 1
    assert set(body["metadata"]) >= {"model", "fallback_used", "cached", "tokens_used",
                                     "context_chunks", "retrieval_time_ms", "turns", "tool_calls"}
    assert body["metadata"]["context_chunks"] == 2 and body["metadata"]["fallback_used"] is False


def test_selected_text_and_user_context_reach_the_model(settings):
    client, model, _ = build(settings, [call("limit"), AIMessage("A [1].")])
    with client:
        client.post("/chat", json={"message": "What does this mean?",
                                   "selected_text": "DOCENT_MAX_TOOL_CALLS=3",
                                   "user_context": {"technical_level": "beginner"}})
    system, question = model.calls[0]["messages"][:2]
    assert "technical_level: beginner" in system.content
    assert question.content.startswith("What does this mean?")
    assert "> DOCENT_MAX_TOOL_CALLS=3" in question.content


@pytest.mark.parametrize(("text", "reply"), [
    *((g, WELCOME) for g in ["hi", "Hello!", "HEY", "salam", "Assalam o Alaikum!!", "hii",
                             "helo", "hi hi", "hello docent", "Heyyy there!"]),
    *((t, YOU_ARE_WELCOME) for t in ["thanks!", "Thank you", "thx", "Thanks a lot, docent!",
                                     "ok, thanks", "Thank you very much!!", "cheers"]),
    *((a, ABOUT) for a in ["help", "Help!", "What can you do?", "what can you do, docent?",
                           "Who are you?", "how does this work?"]),
    *((k, ASK_ON) for k in ["ok", "OK.", "okay!", "Got it", "makes sense", "cool"]),
])
def test_greetings_and_thanks_take_the_fast_path(settings, text, reply):
    client, model, retriever = build(settings, [])
    with client:
        body = client.post("/chat", json={"message": text}).json()
        frames = parse_sse(client.post("/chat/stream", json={"message": text}).content)
    assert body["response"] == reply and body["exit_reason"] == "COMPLETED"
    assert body["sources"] == [] and body["metadata"]["model"] == "greeting"
    assert model.calls == [] and retriever.queries == []
    assert [f["event"] for f in frames if "event" in f] == ["on_chain_end"]
    assert json.loads(frames[-1]["data"])["response"] == reply


@pytest.mark.parametrize("text", ["hi docent how do I ingest", "hello limits", "docent"])
def test_near_greetings_that_ask_something_are_not_greetings(text):
    assert courtesy_reply(text) is None


@pytest.mark.parametrize("text", ["thanks! what is the tool-call limit?",
                                  "Thank you. And the tool-call limit?"])
def test_a_thanks_that_asks_something_is_answered_normally(settings, text):
    client, model, _ = build(settings, [call("tool-call limit"), AIMessage("A [1].")])
    with client:
        body = client.post("/chat", json={"message": text}).json()
    assert body["response"] == "A [1]." and len(model.calls) == 2


@pytest.mark.parametrize("text", ["no thanks", "thank you letters", "thanks for nothing at all",
                                  "help me change the port", "what can you do with sessions",
                                  "ok so how do I ingest", "is ok a valid status", "what is docent"])
def test_near_thanks_get_no_courtesy_reply(text):
    assert courtesy_reply(text) is None


def test_a_question_that_starts_with_hello_is_not_a_greeting(settings):
    client, model, _ = build(settings, [call("tool-call limit"), AIMessage("A [1].")])
    with client:
        body = client.post("/chat", json={"message": "hello, what is the tool-call limit?"}).json()
    assert body["response"] == "A [1]." and len(model.calls) == 2


def test_metadata_never_leaks_into_the_answer(settings):
    leaky = ("## Limits\n\nSet DOCENT_MAX_TOOL_CALLS [1] (similarity_score: 0.83). "
             "Source: chunk_3f1c9a2b7d\nRetrieved from: configuration.md\n"
             "The default is 3 [1] (score: 0.71), chunk_id=chunk0001.")
    client, _, _ = build(settings, [call("tool-call limit"), AIMessage(leaky)])
    with client:
        text = client.post("/chat", json={"message": "limit?"}).json()["response"]
    for leak in ("chunk_", "chunk0001", "similarity", "score", "Retrieved from", "Source:"):
        assert leak not in text, leak
    assert "Set DOCENT_MAX_TOOL_CALLS [1]" in text and "The default is 3 [1]" in text
    assert strip_internal_metadata("```\nscore: 0.5\n```") == "```\nscore: 0.5\n```"


def test_stripping_metadata_keeps_markdown_structure():
    """Nested list items and indented lines keep their indentation; only runs of spaces
    inside a line are squeezed."""
    text = "- Gas model: [1]  \n  - Minimum gas: 21,000 [1]\n    more  words  here\n\n    code line"
    assert strip_internal_metadata(text) == (
        "- Gas model: [1]\n  - Minimum gas: 21,000 [1]\n    more words here\n\n    code line"
    )


def test_rate_limits_per_session_and_per_client(settings):
    steps = [call("tool-call limit"), AIMessage("A [1].")] * 20
    client, _, _ = build(settings, steps, rate_limit_session_per_minute=2,
                         rate_limit_client_per_hour=4)
    with client:
        sid = client.post("/chat", json={"message": "limit?"}).json()["session_id"]
        codes = [client.post("/chat", json={"message": "limit?", "session_id": sid}).status_code
                 for _ in range(2)]
        assert codes == [200, 429]  # the session's first request counts too
        codes = [client.post("/chat", json={"message": "limit?"}).status_code for _ in range(2)]
        assert codes == [200, 200]  # refused requests don't count: 4 from this client so far
        r = client.post("/chat/stream", json={"message": "limit?"})
    assert r.status_code == 429 and r.json()["error_code"] == "RATE_LIMITED"
    assert int(r.headers["Retry-After"]) > 0


def test_no_failure_path_leaks_internals(settings, monkeypatch):
    class Boom(RuntimeError):
        pass

    failing = FakeRetriever(chunks=list(GUIDE), failures=[ConnectionError(f"db {SECRET} /srv/x.py")] * 9)
    bodies = []
    client, _, _ = build(settings, [ValueError(f"bad {SECRET} at /app/x.py line 3")])
    with client:
        bodies.append(client.post("/chat", json={"message": "limit?"}).text)
        bodies.append(client.post("/chat", content=b"{oops", headers={"content-type": "application/json"}).text)
        bodies.append(client.post("/chat", json={"message": "q", "session_id": "../../etc"}).text)
        bodies.append(client.get("/missing").text)
    client, _, _ = build(settings, [call("limit"), AIMessage("x")], retriever=failing)
    with client:
        bodies.append(client.post("/chat", json={"message": "limit?"}).text)
    client, _, _ = build(settings, [call("limit"), AIMessage("x")])

    async def explode(*_a, **_k):
        raise Boom(f"kaboom {SECRET} in /srv/docent/chat.py")

    monkeypatch.setattr("docent.api.app.run_chat", explode)
    with client:
        r = client.post("/chat", json={"message": "limit?"})
        assert r.status_code == 500 and r.json()["error_code"] == "INTERNAL_ERROR"
        bodies.append(r.text)
    for body in bodies:
        for leak in (SECRET, "Traceback", ".py", "/srv", "/app", "ValueError", "ConnectionError",
                     "Boom", "kaboom"):
            assert leak not in body, (leak, body)


def test_failures_are_logged_as_classified_json(settings, caplog):
    client, _, _ = build(settings, [ValueError("model exploded")], llm_retries=0)
    with caplog.at_level(logging.ERROR, logger="docent"), client:
        rid = client.post("/chat", json={"message": "limit?"},
                          headers={"X-Request-ID": "trace-1"}).json()["query_id"]
    record = next(r for r in caplog.records if getattr(r, "category", None) == "llm")
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == rid and line["error_type"] == "ValueError"
    assert line["detail"] == "model exploded" and line["retryable"] is False
    assert "Traceback" in line["stack"] and line["timestamp"]


def test_ready_reports_store_chunks_and_models(settings):
    client, _, _ = build(settings, [])
    with client:
        ok = client.get("/ready")
    assert ok.status_code == 200 and ok.json()["checks"]["chunks"] == 3
    client, _, _ = build(settings, [], retriever=FakeRetriever(chunks=[]))
    with client:
        empty = client.get("/ready")
    assert empty.status_code == 503 and empty.json()["error_code"] == "NOT_READY"


def test_keep_alive_pings_are_exactly_the_ping_comment(settings):
    def slow(_messages):
        time.sleep(0.5)
        return AIMessage("Late [1].")

    client, _, _ = build(settings, [slow], sse_ping_seconds=0.1)
    with client:
        raw = client.post("/chat/stream",
                          json={"message": "How do I change the tool-call limit?"}).content
    comments = [line for line in raw.split(b"\r\n") if line.startswith(b":")]
    assert comments and set(comments) == {b": ping"}
    assert b"\r\n\r\n: ping\r\n\r\n" in raw  # a frame of its own


def test_cors_allows_configured_origins_only(settings):
    client, _, _ = build(settings, [], cors_origins=["https://docs.example.com"])
    with client:
        ok = client.options("/chat", headers={"Origin": "https://docs.example.com",
                                              "Access-Control-Request-Method": "POST"})
        other = client.options("/chat", headers={"Origin": "https://evil.example",
                                                 "Access-Control-Request-Method": "POST"})
    assert ok.headers["access-control-allow-origin"] == "https://docs.example.com"
    assert "access-control-allow-origin" not in other.headers


def test_openapi_documents_both_chat_endpoints_with_examples(settings):
    client, _, _ = build(settings, [])
    with client:
        spec = client.get("/openapi.json").json()
        assert client.get("/docs").status_code == 200
    stream = spec["paths"]["/chat/stream"]["post"]["responses"]["200"]["content"]
    assert "on_chain_end" in stream["text/event-stream"]["example"]
    body = spec["components"]["schemas"]["ChatRequest"]
    assert body["examples"][0]["message"]
    assert "/chat" in spec["paths"] and "/ready" in spec["paths"]
