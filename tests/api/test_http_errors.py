"""CONTRACT.md, errors: one envelope, stable codes, never a stack trace."""

from __future__ import annotations

import gzip
import json
import zlib

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
        ([1, 2], "The request body is not a JSON object"),
    ],
)
def test_bad_bodies_are_invalid_query_with_a_useful_message(client, body, fragment):
    body = assert_envelope(client.post("/chat", json=body), 400, "INVALID_QUERY")
    assert fragment in body["error"]


@pytest.mark.parametrize("path", ["/chat", "/chat/stream"])
@pytest.mark.parametrize(("content", "headers", "what"), [
    (b"", {}, "missing"),
    (b"", {"content-type": "application/json"}, "missing"),
    (b'{"message": "hi"}', {"content-type": "text/plain"}, "not a JSON object"),
    (b"message=hi", {"content-type": "application/x-www-form-urlencoded"}, "not a JSON object"),
])
def test_a_body_missing_or_not_sent_as_json_says_how_to_send_it(client, path, content, headers,
                                                               what):
    body = assert_envelope(client.post(path, content=content, headers=headers), 400,
                           "INVALID_QUERY")
    assert body["error"] == (f'The request body is {what}: send one such as {{"message": "..."}}, '
                             "with the header Content-Type: application/json.")


def test_an_unknown_field_is_named_but_not_echoed_at_length(client):
    r = client.post("/chat", json={"message": "q", "x" * 100_000: 1})
    body = assert_envelope(r, 400, "INVALID_QUERY")
    assert "unknown field" in body["error"] and len(body["error"]) < 200


def post_raw(client, path, raw: bytes):
    return client.post(path, content=raw, headers={"content-type": "application/json"})


@pytest.mark.parametrize("path", ["/chat", "/chat/stream"])
@pytest.mark.parametrize(
    "raw",
    [
        rb'{"message": "How do I set the turn limit? \ud800"}',
        rb'{"message": "limit?", "user_context": {"level": "\ud800"}}',
        rb'{"message": "limit?", "user_context": {"\ud800": "beginner"}}',
    ],
    ids=["message", "user_context value", "user_context key"],
)
def test_a_lone_surrogate_in_any_text_is_invalid_query(client, path, raw):
    body = assert_envelope(post_raw(client, path, raw), 400, "INVALID_QUERY")
    assert "valid Unicode" in body["error"]


@pytest.mark.parametrize("path", ["/chat", "/chat/stream"])
@pytest.mark.parametrize(
    "raw",
    [b'{"message": "caf\xe9"}', b"[" * 200_000 + b"]" * 200_000],
    ids=["not UTF-8", "nested 200000 deep"],
)
def test_a_body_that_cannot_be_parsed_is_invalid_query(client, path, raw):
    body = assert_envelope(post_raw(client, path, raw), 400, "INVALID_QUERY")
    assert "not valid JSON" in body["error"]


@pytest.mark.parametrize("path", ["/chat", "/chat/stream"])
@pytest.mark.parametrize(("encoding", "raw"), [
    ("gzip", gzip.compress(b'{"message": "limit?"}')),
    ("deflate", zlib.compress(b'{"message": "limit?"}')),
    ("br", b"(bytes that happen to be UTF-8)"),
], ids=["gzip", "deflate", "utf-8 but not JSON"])
def test_a_compressed_body_is_refused_saying_so(client, path, encoding, raw):
    response = client.post(path, content=raw, headers={"Content-Type": "application/json",
                                                        "Content-Encoding": encoding})
    body = assert_envelope(response, 400, "INVALID_QUERY")
    assert body["error"] == (f"The request body is compressed (Content-Encoding: {encoding}): "
                             "send it uncompressed.")


def test_other_http_errors_keep_their_codes(client):
    assert_envelope(client.get("/chat"), 405, "METHOD_NOT_ALLOWED")
    assert_envelope(client.post("/nope", json={"message": "q"}), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (b'{"message": "limit?", "top_k": true}', "'top_k'"),
        (b'{"message": "limit?", "top_k": "5"}', "'top_k'"),
        (b'{"message": "limit?", "top_k": 5.0}', "'top_k'"),
        (b'{"message": "limit?", "user_context": {"a": NaN}}', "finite"),
        (b'{"message": "limit?", "user_context": {"a": -Infinity}}', "finite"),
    ],
)
def test_wrong_types_and_non_finite_numbers_are_not_coerced(client, raw, fragment):
    body = assert_envelope(post_raw(client, "/chat", raw), 400, "INVALID_QUERY")
    assert fragment in body["error"]


@pytest.mark.parametrize(
    "context, limit",
    [
        ({"k" * 65: "beginner"}, "64 characters"),
        ({"level": "x" * 501}, "500 characters"),
        ({f"k{i}": "x" * 450 for i in range(10)}, "4000 characters"),
        ({f"k{i}": "x" * 45_000 for i in range(20)}, "500 characters"),  # 0.9 MB
    ],
    ids=["key", "value", "total", "audit 0.9 MB"],
)
def test_user_context_over_its_limits_is_invalid_query(client, context, limit):
    r = client.post("/chat", json={"message": "limit?", "user_context": context})
    body = assert_envelope(r, 400, "INVALID_QUERY")
    assert limit in body["error"]
    assert "kkkk" not in body["error"]  # the caller's keys are not echoed


def test_user_context_at_its_limits_is_accepted(client):
    context = {"k" * 64: "x" * 500, **{f"t{i}": "x" * 500 for i in range(6)},
               **{f"n{i}": 1.5 for i in range(13)}}
    assert len(context) == 20 and 3700 < len(json.dumps(context, ensure_ascii=False)) <= 4000
    r = client.post("/chat", json={"message": "and the limit?", "user_context": context})
    assert r.status_code == 200, r.text
    too_many = {f"n{i}": i for i in range(21)}
    r = client.post("/chat", json={"message": "limit?", "user_context": too_many})
    assert_envelope(r, 400, "INVALID_QUERY")


def test_too_long_question(make_graph, settings):
    graph, _ = make_graph()
    s = settings.model_copy(update={"max_message_chars": 20})
    with client_for(graph, s) as c:
        assert_envelope(c.post("/chat", json={"message": "x" * 21}), 400, "QUERY_TOO_LONG")


def test_a_405_says_which_methods_are_allowed(client):
    r = client.get("/chat")
    assert_envelope(r, 405, "METHOD_NOT_ALLOWED")
    assert r.headers["allow"] == "POST"
    assert client.post("/health").headers["allow"] == "GET"


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
    graph, model = make_graph(AIMessage("A [1]."))
    with client_for(graph, settings, retriever) as c:
        r = c.post("/chat", json={
            "message": "and the limit?", "top_k": 1,
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "hello"}],
        })
    assert r.status_code == 200
    sent = model.calls[0]["messages"]  # the history, the question, then the first search
    assert [m.type for m in sent] == ["system", "human", "ai", "human", "ai", "tool"]
    tool_msg = sent[-1]
    assert tool_msg.content.count("\n[") == 0 and tool_msg.content.startswith("[1]")  # top_k=1
