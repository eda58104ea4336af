"""CONTRACT.md §5, sessions: a capped store with O(1) expiry; at the cap the least recently
used idle session goes, never one that is mid-turn."""

from __future__ import annotations

import pytest

import docent.sessions as sessions_module
from docent.sessions import InMemorySessions, Session, SessionsFull


def _store(max_sessions: int = 3, ttl: float = 100.0):
    now = [0.0]
    return InMemorySessions(ttl, 10, clock=lambda: now[0], max_sessions=max_sessions), now


def test_at_the_cap_the_least_recently_used_idle_session_is_evicted():
    store, now = _store(max_sessions=3)
    for sid in ("a", "b", "c"):
        now[0] += 1
        store.open_now(sid)
    now[0] += 1
    assert store.open_now("a")[1] == "continued"  # a is now the most recently used
    store.open_now("d")  # b goes: the least recently used
    assert len(store) == 3
    assert [store.open_now(sid)[1] for sid in ("a", "c", "d")] == ["continued"] * 3
    assert store.open_now("b")[1] == "restarted"
    assert len(store) == 3


def test_recording_a_turn_counts_as_use():
    store, now = _store(max_sessions=2)
    a, _ = store.open_now("a")
    store.open_now("b")
    now[0] += 1
    store.record_now(a, "q", "answer")
    store.open_now("c")  # b is the least recently used now
    assert store.open_now("a")[1] == "continued"
    assert store.open_now("b")[1] == "restarted"


async def test_a_session_mid_turn_is_never_evicted():
    store, now = _store(max_sessions=2)
    busy, _ = store.open_now("busy")
    await busy.lock.acquire()  # a turn is running on it
    try:
        now[0] += 1
        store.open_now("b")
        now[0] += 1
        store.open_now("c")  # busy is the least recently used, but mid-turn: b goes
        assert store.open_now("busy")[0] is busy
        assert store.open_now("b")[1] == "restarted"
    finally:
        busy.lock.release()


async def test_when_every_session_is_mid_turn_a_new_one_is_refused():
    store, _ = _store(max_sessions=2)
    held = [store.open_now(sid)[0] for sid in ("a", "b")]
    for s in held:
        await s.lock.acquire()
    try:
        with pytest.raises(SessionsFull):
            store.open_now(None)
        assert store.open_now("a")[0] is held[0]  # a live session still continues
    finally:
        for s in held:
            s.lock.release()
    assert store.open_now(None)[1] == "new"


def test_idle_sessions_expire_and_a_mid_turn_one_outlives_its_ttl():
    store, now = _store(max_sessions=100, ttl=10.0)
    for sid in ("a", "b", "c"):
        store.open_now(sid)
    now[0] += 11
    store.open_now("d")
    assert len(store) == 1  # a, b and c expired
    assert store.open_now("a")[1] == "restarted"


def test_opening_a_session_does_not_look_at_every_other_session(monkeypatch):
    """The old store scanned all sessions on every request (13.5k sessions: a greeting
    took 10.8 ms instead of 3.8). Count how many sessions one `open` looks at."""
    looked = [0]

    class Counted(Session):
        def __getattribute__(self, name: str):
            if name == "last_active":
                looked[0] += 1
            return super().__getattribute__(name)

    monkeypatch.setattr(sessions_module, "Session", Counted)
    store, now = _store(max_sessions=10_000, ttl=1000.0)
    for i in range(2000):
        now[0] += 0.01
        store.open_now(f"s{i}")
    looked[0] = 0
    store.open_now("s1000")
    store.open_now(None)
    assert looked[0] <= 6  # the oldest session and the one asked for, not 2000
