"""CONTRACT.md §5 Sessions, on Redis: the same contract as in memory, kept across replicas.

Two apps on one Redis stand for two replicas (`replica` in conftest.py); the store's own
tests run against a real redis-server.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from docent.sessions import SessionsFull
from docent.state.client import shared_state
from docent.state.sessions import RedisSessions
from tests.api.test_sessions import answering, human_texts
from tests.fakes import slow_answers
from tests.http import post_at_once
from tests.state.conftest import replica


def _store(settings, max_sessions=3, ttl=100.0, max_turns=10, lock_seconds=30.0):
    shared = shared_state(settings)
    return RedisSessions(shared, ttl, max_turns, max_sessions, lock_seconds), shared


def test_a_session_started_on_one_replica_continues_on_another(redis_settings):
    settings = redis_settings.model_copy(update={"llm_cache_size": 0})
    a, _ = replica(settings, answering())
    b, model_b = replica(settings, answering())
    with a, b:
        first = a.post("/chat", json={"message": "What is the tool-call limit?"}).json()
        sid = first["session_id"]
        second = b.post("/chat", json={"message": "And the turn limit?", "session_id": sid})
        third = a.post("/chat", json={"message": "Thanks, and retries?", "session_id": sid})
    assert first["metadata"]["session_status"] == "new"
    assert second.json()["metadata"]["session_status"] == "continued"
    assert third.json()["metadata"]["session_status"] == "continued"
    # Replica B answered with the history replica A recorded.
    assert human_texts(model_b.calls[-1]) == ["What is the tool-call limit?", "And the turn limit?"]
    assert model_b.calls[-1]["messages"][2].content == first["response"]


def test_the_turn_window_is_kept_in_redis(redis_settings):
    settings = redis_settings.model_copy(update={"llm_cache_size": 0, "session_max_turns": 3,
                                                 "rate_limit_enabled": False})
    a, model = replica(settings, answering("A [1]."))
    with a:
        sid = a.post("/chat", json={"message": "q0 limit"}).json()["session_id"]
        for i in range(1, 6):
            a.post("/chat", json={"message": f"q{i} limit", "session_id": sid})
    assert human_texts(model.calls[-1]) == ["q2 limit", "q3 limit", "q4 limit", "q5 limit"]


def test_concurrent_turns_on_two_replicas_never_interleave(redis_settings):
    """Each turn outlasts the lock's timeout (1 s): only its renewal keeps the other out."""
    settings = redis_settings.model_copy(update={"llm_cache_size": 0, "session_lock_seconds": 1})
    a, model_a = replica(settings, [slow_answers(1.6)] * 20)
    b, model_b = replica(settings, [slow_answers(1.6)] * 20)
    with a, b:
        sid = a.post("/chat", json={"message": "first limit"}).json()["session_id"]
        post_at_once([(a, {"message": "A limit", "session_id": sid}),
                      (b, {"message": "B limit", "session_id": sid})])
        a.post("/chat", json={"message": "last limit", "session_id": sid})
    asked = human_texts(model_a.calls[-1])
    assert asked[0] == "first limit" and asked[-1] == "last limit"
    assert sorted(asked[1:3]) == ["A limit", "B limit"]  # both kept, one after the other
    # Whichever ran second saw the first's turn in its history: one after the other.
    turns = {human_texts(c)[-1]: human_texts(c) for c in model_a.calls + model_b.calls}
    seen = [turns["A limit"], turns["B limit"]]
    assert ["first limit", "A limit", "B limit"] in seen or ["first limit", "B limit", "A limit"] in seen


async def test_at_the_cap_the_least_recently_used_idle_session_is_evicted(redis_settings):
    store, shared = _store(redis_settings, max_sessions=3)
    for sid in ("a", "b", "c"):
        await store.open(sid)
    assert (await store.open("a"))[1] == "continued"  # a is now the most recently used
    await store.open("d")  # b goes: the least recently used
    assert [(await store.open(s))[1] for s in ("a", "c", "d")] == ["continued"] * 3
    assert (await store.open("b"))[1] == "restarted"
    assert await shared.aio.zcard(shared.key("sessions")) == 3
    await shared.aclose()


async def test_a_session_mid_turn_is_never_evicted_and_a_full_store_refuses(redis_settings):
    store, shared = _store(redis_settings, max_sessions=2)
    busy, _ = await store.open("busy")
    async with store.hold(busy):  # a turn is running on it
        await store.open("b")
        await store.open("c")  # busy is the least recently used, but mid-turn: b goes
        assert (await store.open("busy"))[1] == "continued"
        assert (await store.open("b"))[1] == "restarted"  # ... and c went for it
        other, _ = await store.open("b")
        async with store.hold(other):
            with pytest.raises(SessionsFull):
                await store.open(None)
    assert (await store.open(None))[1] == "new"
    await shared.aclose()


async def test_an_idle_session_expires_and_restarts_empty(redis_settings):
    store, shared = _store(redis_settings, max_sessions=10, ttl=0.3)
    ref, _ = await store.open(str(uuid.uuid4()))
    async with store.hold(ref):
        await store.record(ref, "q", "a")
    await asyncio.sleep(0.5)
    again, status = await store.open(ref.id)
    assert status == "restarted"
    async with store.hold(again) as history:
        assert history == []
    await shared.aclose()


async def test_a_turn_recorded_after_eviction_is_kept_nowhere(redis_settings):
    store, shared = _store(redis_settings, max_sessions=1)
    first, _ = await store.open("first")
    await store.open("second")  # evicts first
    await store.record(first, "q", "a")
    assert (await store.open("first"))[1] == "restarted"
    async with store.hold(first) as history:
        assert history == []
    await shared.aclose()


async def test_uses_within_one_clock_tick_keep_their_order(redis_settings):
    """Ids made in quick succession (many per millisecond), named so that their sort order
    is the reverse of their age: the oldest is still the one evicted."""
    store, shared = _store(redis_settings, max_sessions=50)
    ids = [f"{49 - i:02d}" for i in range(50)]  # "49" is made first, "00" last
    burst = shared.aio.pipeline(transaction=False)  # sent together: run within a millisecond
    for sid in ids:
        await store._open(keys=[store._index], client=burst,
                          args=[sid, store._ttl_us, 50, store._prefix, 100])
    assert [bytes(r).decode() for r in await burst.execute()] == ["created"] * 50
    await store.open("new")
    assert (await store.open("48"))[1] == "continued"
    assert (await store.open("49"))[1] == "restarted"  # the least recently used went
    await shared.aclose()
