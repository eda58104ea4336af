"""CONTRACT.md, errors: one envelope, stable codes, never a stack trace."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from tests.fakes import call
from tests.http import client_for


@pytest.fixture
def client(make_graph, settings, retriever):
    graph, _ = make_graph(call("limit"), AIMessage("A [1]."))
    with client_for(graph, settings, retriever) as c:
        yield c


def assert_envelope(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error_code"] == code
    assert set(body) >= {"error", "error_code", "timestamp", "request_id"}
    text = r.text
    for leak in ("Traceback", "File \"", ".py", "ValidationError", "pydantic"):
        assert leak not in text, leak
    return body


@pytest.mark.parametrize("path", ["/chat", "/chat/stream"])
def test_malformed_json_is_invalid_query(client, path):
    r = client.post(path, content=b'{"message": "hi",', headers={"content-type": "application/json"})
    assert_envelope(r, 400, "INVALID_QUERY")


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"message": "q", "sessionid": "x"}, "unknown field 'sessionid'"),
        ({"message": 42}, "'message'"),
        ({}, "missing field 'message'"),
        ({"message": "q", "top_k": 0}, "'top_k'"),
        ({"message": "q", "messages": [{"role": "system", "content": "x"}]}, "role"),
        ([1, 2], "body"),
    ],
)
def test_bad_bodies_are_invalid_query_with_a_useful_message(client, body, fragment):
    body = assert_envelope(client.post("/chat", json=body), 400, "INVALID_QUERY")
    assert fragment in body["error"]


def test_too_long_question(make_graph, settings):
    graph, _ = make_graph()
    s = settings.model_copy(update={"max_message_chars": 20})
    with client_for(graph, s) as c:
        assert_envelope(c.post("/chat", json={"message": "x" * 21}), 400, "QUERY_TOO_LONG")


def test_unknown_path_uses_the_envelope(client):
    assert_envelope(client.get("/nope"), 404, "NOT_FOUND")


def test_request_id_is_echoed_or_generated(client):
    r = client.post("/chat", json={"message": "limit?"}, headers={"X-Request-ID": "abc-123"})
    assert r.headers["X-Request-ID"] == "abc-123"
    r2 = client.post("/chat", json={"message": ""})
    assert r2.headers["X-Request-ID"].startswith("req-")
    assert r2.json()["request_id"] == r2.headers["X-Request-ID"]


def test_health_reports_chunks_and_model(client):
    body = client.get("/health").json()
    assert body == {"status": "ok", "chunks": 3, "provider": "extractive", "model": "scripted"}


def test_history_and_top_k_reach_the_agent(make_graph, settings, retriever):
    graph, model = make_graph(call("limit"), AIMessage("A [1]."))
    with client_for(graph, settings, retriever) as c:
        r = c.post("/chat", json={
            "message": "and the limit?", "top_k": 1,
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "hello"}],
        })
    assert r.status_code == 200
    sent = model.calls[0]["messages"]
    assert [m.type for m in sent] == ["system", "human", "ai", "human"]
    tool_msg = model.calls[1]["messages"][-1]
    assert tool_msg.content.count("\n[") == 0 and tool_msg.content.startswith("[1]")  # top_k=1
