"""CONTRACT.md §5, errors: a body over DOCENT_MAX_BODY_BYTES is 413 BODY_TOO_LARGE before
anything parses it, and a client over its limit is refused before its body is read."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from tests.api.test_http_errors import assert_envelope
from tests.fakes import call
from tests.http import client_for


@pytest.fixture
def small(make_graph, settings):
    """A client of an app whose bodies may be at most 2,000 bytes."""
    graph, model = make_graph(*[call("limit"), AIMessage("A [1].")] * 5)
    s = settings.model_copy(update={"max_body_bytes": 2000})
    with client_for(graph, s) as c:
        yield c, model


def _json_of_size(size: int) -> bytes:
    """A valid /chat body of exactly `size` bytes (the padding is JSON whitespace)."""
    base = json.dumps({"message": "What is the tool-call limit?"}).encode()
    return base[:-1] + b" " * (size - len(base)) + b"}"


@pytest.mark.parametrize("path", ["/chat", "/chat/stream"])
def test_a_declared_length_over_the_cap_is_413(small, path):
    client, model = small
    r = client.post(path, content=_json_of_size(2001), headers={"content-type": "application/json"})
    body = assert_envelope(r, 413, "BODY_TOO_LARGE")
    assert "2000 bytes" in body["error"]
    assert r.headers["connection"] == "close" and r.headers["x-request-id"] == body["request_id"]
    assert model.calls == []


def test_a_streamed_body_without_a_length_is_counted_as_it_arrives(small):
    client, model = small
    chunks = [b'{"message": "', b"x" * 1500, b"y" * 1500, b'"}']
    r = client.post("/chat", content=iter(chunks), headers={"content-type": "application/json"})
    assert "content-length" not in r.request.headers  # sent chunked: only counting sees it
    assert_envelope(r, 413, "BODY_TOO_LARGE")
    assert model.calls == []


def test_the_cap_comes_before_parsing(small):
    client, _ = small
    deep = b"[" * 5000 + b"]" * 5000  # would be 400 INVALID_QUERY if it were parsed
    r = client.post("/chat", content=deep, headers={"content-type": "application/json"})
    assert_envelope(r, 413, "BODY_TOO_LARGE")


def test_a_body_at_the_cap_is_answered(small):
    client, _ = small
    r = client.post("/chat", content=_json_of_size(2000), headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["exit_reason"] == "COMPLETED"


def test_the_default_cap_is_one_mebibyte(make_graph, settings):
    graph, _ = make_graph()
    with client_for(graph, settings) as client:
        r = client.post("/chat", json={"message": "q", "messages": [
            {"role": "user", "content": "x" * 90_000} for _ in range(12)]})  # 1.08 MB
    assert_envelope(r, 413, "BODY_TOO_LARGE")


def test_a_limited_client_is_refused_before_its_body_is_read(make_graph, settings):
    graph, _ = make_graph(*[call("limit"), AIMessage("A [1].")] * 5)
    s = settings.model_copy(update={"rate_limit_client_per_hour": 1})
    with client_for(graph, s) as client:
        assert client.post("/chat", json={"message": "limit?"}).status_code == 200
        # Not JSON at all: parsed, it would be 400; refused first, it is 429.
        r = client.post("/chat", content=b"{not json", headers={"content-type": "application/json"})
    body = assert_envelope(r, 429, "RATE_LIMITED")
    assert int(r.headers["retry-after"]) > 0 and r.headers["connection"] == "close"
    assert "retry in" in body["error"]
