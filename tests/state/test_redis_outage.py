"""CONTRACT.md §5, "Redis outage": a clear degraded mode, one log line per transition, and
recovery without a restart."""

from __future__ import annotations

import json
import logging
import time
import uuid
from contextlib import asynccontextmanager

from langchain_core.messages import AIMessage
from pydantic import SecretStr

from docent.state.health import RedisHealth, StateUnavailable
from tests.fakes import call
from tests.http import parse_sse
from tests.redis_server import RedisServer
from tests.state.conftest import replica


def answering():
    def step(messages):
        return AIMessage("Set it [1].") if messages[-1].type == "tool" else call("limit")
    return [step] * 100


def _transitions(caplog):
    return [r.getMessage().split(":")[0] for r in caplog.records
            if r.name == "docent.state.health"]


def test_a_redis_outage_degrades_clearly_and_recovers_without_a_restart(settings, tmp_path,
                                                                        caplog):
    server = RedisServer(tmp_path / "redis")  # its port: nothing listens there yet
    s = settings.model_copy(update={"redis_url": SecretStr(server.url),
                                    "rate_limit_client_per_hour": 2})
    app, _ = replica(s, answering())
    stateless = {"message": "What is the tool-call limit?", "messages": []}
    caplog.set_level(logging.INFO, logger="docent.state.health")
    try:
        with app:
            new = app.post("/chat", json={"message": "limit?"})
            known = app.post("/chat", json={"message": "limit?", "session_id": str(uuid.uuid4())})
            stream = app.post("/chat/stream", json={"message": "limit?"})
            answered = [app.post("/chat", json=stateless) for _ in range(3)]
            ready = app.get("/ready")
            time.sleep(RedisHealth().retry_seconds + 0.1)
            probe = app.post("/chat", json={"message": "limit?"})  # tries Redis again: down
            assert probe.status_code == 503
            assert _transitions(caplog) == ["redis unreachable"]  # once, for all of that

            server.start()
            time.sleep(RedisHealth().retry_seconds + 0.1)  # the next probe is allowed then
            back = app.post("/chat", json={"message": "limit?"})
            ready_again = app.get("/ready")
            counted = [app.post("/chat", json=stateless).status_code for _ in range(3)]
    finally:
        server.stop()

    for r in (new, known, stream):  # a server-side session needs Redis: refused, clearly
        assert r.status_code == 503 and r.headers["Retry-After"] == "5"
        body = r.json()
        assert body["error_code"] == "SESSIONS_UNAVAILABLE" and "try again" in body["error"]
        assert "Error" not in r.text and "127.0.0.1" not in r.text
    # Stateless turns still answer; the rate limit failed open (3 > 2 went through).
    assert [r.status_code for r in answered] == [200, 200, 200]
    assert all(r.json()["exit_reason"] == "COMPLETED" for r in answered)
    assert ready.status_code == 200 and ready.json()["status"] == "degraded"
    assert ready.json()["checks"]["redis"] == "unreachable"

    assert back.status_code == 200 and back.json()["metadata"]["session_status"] == "new"
    assert ready_again.json()["status"] == "ready"
    assert ready_again.json()["checks"]["redis"] == "ok"
    # The limit counts again: the `back` request and two more, then 429.
    assert counted == [200, 429, 429]
    assert _transitions(caplog) == ["redis unreachable", "redis reachable again"]


def test_a_session_lost_between_admission_and_the_turn(redis_settings):
    """Redis answered the admission, then went away: /chat is a 503, a stream (already
    begun) ends with its one terminal frame saying so."""
    app, model = replica(redis_settings, answering())

    @asynccontextmanager
    async def unavailable(session):
        raise StateUnavailable("sessions.lock")
        yield

    with app:
        app.app.state.gate.sessions.hold = unavailable
        chat = app.post("/chat", json={"message": "limit?"})
        stream = app.post("/chat/stream", json={"message": "limit?"})
    assert chat.status_code == 503 and chat.json()["error_code"] == "SESSIONS_UNAVAILABLE"
    frames = [f for f in parse_sse(stream.content) if "event" in f]
    assert stream.status_code == 200 and [f["event"] for f in frames] == ["on_chain_end"]
    final = json.loads(frames[0]["data"])
    assert final["retryable"] is True and final["sources"] == []
    assert final["metadata"]["error_code"] == "SESSIONS_UNAVAILABLE"
    assert final["session_id"] and model.calls == []


def test_while_down_calls_fail_at_once_except_one_probe_a_second():
    now = [0.0]
    health = RedisHealth(retry_seconds=1.0, clock=lambda: now[0])
    tried = []

    def failing():
        tried.append(now[0])
        raise ConnectionError("refused")

    for _ in range(3):
        try:
            health.call("cache.get", failing)
        except StateUnavailable:
            pass
    assert tried == [0.0] and not health.up  # one real attempt, then refused at once
    now[0] = 1.5
    assert health.call("cache.get", lambda: "ok") == "ok" and health.up


async def test_a_lock_that_expired_is_not_an_outage(redis_settings):
    from redis.asyncio.lock import Lock
    from redis.exceptions import LockError

    from docent.state.client import shared_state

    shared = shared_state(redis_settings)
    lock = Lock(shared.aio, shared.key("some-lock"), timeout=5, thread_local=False)
    await lock.acquire()
    await shared.aio.delete(shared.key("some-lock"))  # it expired, as after a long stall
    try:
        await shared.health.acall("sessions.renew", lock.reacquire)
    except LockError:
        pass
    assert shared.health.up  # Redis answered: no degraded mode
    await shared.aclose()


def test_a_turn_answered_as_redis_went_away_is_returned_not_recorded(redis_settings):
    app, _ = replica(redis_settings, answering())

    async def unavailable(session, question, answer):
        raise StateUnavailable("sessions.record")

    with app:
        app.app.state.gate.sessions.record = unavailable
        chat = app.post("/chat", json={"message": "What is the tool-call limit?"})
        stream = app.post("/chat/stream", json={"message": "What is the tool-call limit?"})
    assert chat.status_code == 200 and chat.json()["exit_reason"] == "COMPLETED"
    final = json.loads([f for f in parse_sse(stream.content) if "event" in f][-1]["data"])
    assert final["exit_reason"] == "COMPLETED" and final["session_id"]
