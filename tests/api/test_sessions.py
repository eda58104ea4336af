"""CONTRACT.md, sessions: server-side history, expiry, a sliding window, no interleaving."""

from __future__ import annotations

import threading
import uuid

from langchain_core.messages import AIMessage

from docent.agent.graph import build_graph
from docent.sessions import InMemorySessions
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel, call, slow_answers
from tests.http import client_for, post_at_once


def answering(text: str = "Set it [1]."):
    """A model step list long enough for many turns: search, then answer."""
    def step(messages):
        if messages[-1].type == "tool":
            return AIMessage(text)
        return call("tool-call limit", call_id=f"c{len(messages)}")
    return [step] * 200


def client_with(settings, steps, **overrides):
    s = settings.model_copy(update=overrides)
    model = ScriptedChatModel(steps=steps)
    graph = build_graph(model, FakeRetriever(chunks=list(GUIDE)), s)
    return client_for(graph, s), model


def human_texts(call_record):
    return [m.content for m in call_record["messages"] if m.type == "human"]


def test_a_session_is_created_and_continued(settings):
    client, model = client_with(settings, answering(), llm_cache_size=0)
    with client:
        first = client.post("/chat", json={"message": "What is the tool-call limit?"}).json()
        sid = first["session_id"]
        assert uuid.UUID(sid) and first["metadata"]["session_status"] == "new"
        second = client.post("/chat", json={"message": "And the turn limit?", "session_id": sid})
    body = second.json()
    assert body["session_id"] == sid and body["metadata"]["session_status"] == "continued"
    assert human_texts(model.calls[-1])[:2] == ["What is the tool-call limit?", "And the turn limit?"]
    assert model.calls[-1]["messages"][2].content == first["response"]


def test_unknown_or_expired_session_starts_fresh_and_says_so(settings):
    client, model = client_with(settings, answering(), llm_cache_size=0)
    now = [1000.0]
    with client:
        client.app.state.gate.sessions = InMemorySessions(1800, 10, clock=lambda: now[0])
        sid = str(uuid.uuid4())
        r = client.post("/chat", json={"message": "limit?", "session_id": sid}).json()
        assert r["session_id"] == sid and r["metadata"]["session_status"] == "restarted"
        now[0] += 1799
        assert client.post("/chat", json={"message": "limit?", "session_id": sid}).json()[
            "metadata"]["session_status"] == "continued"
        now[0] += 1801
        r = client.post("/chat", json={"message": "turn limit?", "session_id": sid}).json()
    assert r["metadata"]["session_status"] == "restarted"
    assert human_texts(model.calls[-1]) == ["turn limit?"]  # the old history is gone


def test_sessions_keep_a_sliding_window_of_ten_turns(settings):
    client, model = client_with(settings, answering("A [1]."), llm_cache_size=0,
                                rate_limit_enabled=False)
    with client:
        sid = client.post("/chat", json={"message": "q0 limit"}).json()["session_id"]
        for i in range(1, 12):
            client.post("/chat", json={"message": f"q{i} limit", "session_id": sid})
    asked = human_texts(model.calls[-1])
    assert len(asked) == 11 and asked[0] == "q1 limit" and asked[-1] == "q11 limit"


def test_session_id_and_messages_together_is_invalid_session(settings):
    client, _ = client_with(settings, [])
    with client:
        r = client.post("/chat", json={"message": "q", "session_id": str(uuid.uuid4()),
                                       "messages": [{"role": "user", "content": "x"}]})
        bad = client.post("/chat", json={"message": "q", "session_id": "not-a-uuid"})
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_SESSION"
    assert bad.status_code == 400 and bad.json()["error_code"] == "INVALID_SESSION"


def test_stateless_messages_make_no_session(settings):
    client, model = client_with(settings, answering())
    with client:
        r = client.post("/chat", json={"message": "limit?", "messages": [
            {"role": "user", "content": "hi there friend"}, {"role": "assistant", "content": "hello"}]})
    assert r.json()["session_id"] is None
    assert human_texts(model.calls[0]) == ["hi there friend", "limit?"]


def test_concurrent_requests_on_one_session_never_interleave(settings):
    client, model = client_with(settings, [slow_answers(0.3)] * 20, llm_cache_size=0)
    with client:
        sid = client.post("/chat", json={"message": "first limit"}).json()["session_id"]
        post_at_once([(client, {"message": q, "session_id": sid}) for q in ("A limit", "B limit")])
        client.post("/chat", json={"message": "last limit", "session_id": sid})
    asked = human_texts(model.calls[-1])
    assert asked[0] == "first limit" and asked[-1] == "last limit"
    assert sorted(asked[1:3]) == ["A limit", "B limit"]  # both kept, one after the other
    later = asked[2]
    # whichever ran second saw the first one's finished turn in its history
    seen = [c for c in model.calls if human_texts(c)[-1] == later]
    assert asked[1] in human_texts(seen[0])


def test_a_turn_that_says_try_again_is_not_recorded(settings):
    """CONTRACT.md §5 sessions: a retryable turn (here a rate limit after the tool cap,
    whose exit reason stays MAX_TOOL_CALLS_REACHED) leaves no trace in the history."""
    from langchain_core.exceptions import ModelRateLimitError

    # Each turn's first search is the graph's; with a cap of one, the second turn's own
    # search hits the cap and its last call is rate-limited.
    steps = [AIMessage("First [1]."), call("turn limit", call_id="c"),
             ModelRateLimitError("429"), AIMessage("Third [1].")]
    client, model = client_with(settings, steps, llm_cache_size=0, llm_retries=0,
                                max_tool_calls=1)
    with client:
        sid = client.post("/chat", json={"message": "first limit"}).json()["session_id"]
        failed = client.post("/chat", json={"message": "second limit", "session_id": sid}).json()
        assert failed["exit_reason"] == "MAX_TOOL_CALLS_REACHED" and failed["retryable"] is True
        client.post("/chat", json={"message": "third limit", "session_id": sid})
    assert human_texts(model.calls[-1]) == ["first limit", "third limit"]


def test_a_full_store_of_busy_sessions_answers_503_server_busy(settings):
    """DOCENT_SESSION_MAX_COUNT reaches the store; a new conversation while every session
    is mid-turn is refused (and not counted), and is answered once one is free."""
    started, release = threading.Event(), threading.Event()

    def slow(messages):
        started.set()
        release.wait(30)
        return call("tool-call limit", call_id=f"c{len(messages)}")

    def answer(messages):
        return AIMessage("Set it [1].")

    client, _ = client_with(settings, [slow, answer, call("tool-call limit"), answer],
                            session_max_count=1, llm_cache_size=0)
    with client:
        first: dict = {}
        worker = threading.Thread(target=lambda: first.update(
            client.post("/chat", json={"message": "limit?"}).json()))
        worker.start()
        try:
            assert started.wait(30)
            busy = client.post("/chat", json={"message": "limit?"})
        finally:
            release.set()
            worker.join(30)
        after = client.post("/chat", json={"message": "limit?"})
    assert busy.status_code == 503 and busy.json()["error_code"] == "SERVER_BUSY"
    assert busy.headers["retry-after"] == "1"
    assert first["exit_reason"] == "COMPLETED"
    assert after.status_code == 200 and after.json()["metadata"]["session_status"] == "new"
