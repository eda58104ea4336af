"""CONTRACT.md §4 Caches and §5 Rate limits, on Redis: one count and one cache for all
replicas (two apps on one Redis stand for two replicas)."""

from __future__ import annotations

import uuid

from langchain_core.messages import AIMessage

from docent.agent.llm_cache import ReplyCache, decode_reply, encode_reply
from docent.retrieval.cache import ResultCache, decode_hits, encode_hits
from docent.retrieval.types import Hit
from docent.state.caches import AsyncRedisStore, RedisStore
from docent.state.client import shared_state
from tests.fakes import GUIDE, call
from tests.state.conftest import replica


def answering():
    def step(messages):
        return AIMessage("Set it [1].") if messages[-1].type == "tool" else call("limit")
    return [step] * 50


def test_one_session_limit_is_counted_across_replicas(redis_settings):
    settings = redis_settings.model_copy(update={"rate_limit_session_per_minute": 3})
    a, _ = replica(settings, answering())
    b, _ = replica(settings, answering())
    with a, b:
        sid = str(uuid.uuid4())
        codes = [c.post("/chat", json={"message": "limit?", "session_id": sid}).status_code
                 for c in (a, b, a)]
        refused = b.post("/chat", json={"message": "limit?", "session_id": sid})
        again = a.post("/chat", json={"message": "limit?", "session_id": sid})
    assert codes == [200, 200, 200]
    assert refused.status_code == 429 and refused.json()["error_code"] == "RATE_LIMITED"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert again.status_code == 429  # still limited: refused requests did not reset anything


def test_one_client_limit_is_counted_across_replicas_and_refusals_do_not_count(redis_settings):
    settings = redis_settings.model_copy(update={"rate_limit_client_per_hour": 4})
    a, _ = replica(settings, answering())
    b, _ = replica(settings, answering())
    stateless = {"message": "hello", "messages": []}
    with a, b:
        codes = [c.post("/chat", json=stateless).status_code for c in (a, b, a, b, a, b)]
        waits = [int(c.post("/chat", json=stateless).headers["Retry-After"]) for c in (a, b)]
    assert codes == [200, 200, 200, 200, 429, 429]
    assert all(3500 <= w <= 3600 for w in waits)  # the oldest of the 4 leaves in an hour


def test_a_reply_cached_by_one_replica_is_a_hit_on_another(redis_settings):
    a, model_a = replica(redis_settings, answering())
    b, model_b = replica(redis_settings, answering())
    body = {"message": "What is the tool-call limit?", "messages": []}
    with a, b:
        first = a.post("/chat", json=body).json()
        second = b.post("/chat", json=body).json()
    assert first["metadata"]["cached"] is False and second["metadata"]["cached"] is True
    assert second["response"] == first["response"]
    assert len(model_b.calls) == 0  # B never asked its model


def test_search_results_cached_by_one_replica_are_read_by_another(redis_settings):
    shared_a, shared_b = shared_state(redis_settings), shared_state(redis_settings)
    caches = [ResultCache(10, 60, RedisStore(s, "retrieval", 60, 10, encode_hits, decode_hits))
              for s in (shared_a, shared_b)]
    hits = [Hit(chunk=c, score=0.5 + i / 10) for i, c in enumerate(GUIDE)]
    caches[0].put("k", hits)
    caches[0].put("empty", [])
    assert caches[1].get("k") == hits
    assert caches[1].get("empty") is None  # empty results are never kept
    assert caches[1].info().hits == 1 and caches[1].info().misses == 1


async def test_an_entry_docent_cannot_read_is_a_miss(redis_settings):
    shared = shared_state(redis_settings)
    cache = ReplyCache(10, 60, AsyncRedisStore(shared, "reply", 60, 10, encode_reply, decode_reply))
    await shared.aio.set(shared.key("cache", "reply", "k"), b"\x80not json")
    assert await cache.get("k") is None
    await cache.put("k", AIMessage("fine"))
    assert (await cache.get("k")).content == "fine"
    await shared.aclose()


def test_a_shared_cache_keeps_at_most_its_size_dropping_the_oldest(redis_settings):
    shared = shared_state(redis_settings)
    store = RedisStore(shared, "retrieval", 60, 3, encode_hits, decode_hits)
    hits = (Hit(chunk=GUIDE[0], score=0.5),)
    for key in "abcde":
        store.put(key, hits)
    assert [store.get(k) is not None for k in "abcde"] == [False, False, True, True, True]
    assert shared.sync.zcard(shared.key("cache", "retrieval")) == 3
    assert len(list(shared.sync.scan_iter(shared.key("cache", "retrieval", "*")))) == 3
