"""Issue 15, the replica layout (docs/deployment.md): two `docent serve` processes sharing a
Redis and a Chroma server, all on 127.0.0.1, started by the test.

Shows, through HTTP only: a session continued across replicas, one rate limit counted
across both, a re-ingestion seen by both (and the reply cache shared), and a Redis restart
survived, with the degraded mode observable on /ready, in the answers and in the log.
"""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest

from docent.exit_reasons import REFUSAL
from docent.state.health import RedisHealth
from tests.chroma_server import ChromaServer
from tests.redis_server import RedisServer
from tests.serve_process import docent_env, run_docent, serving

pytestmark = pytest.mark.slow

PAGES = {
    "limits.md": "# Limits\n\n## Tool-call limit\n\nThe tool-call limit caps how many searches "
    "one answer may run. Set `DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the "
    "default is 3.\n\n## Turn limit\n\nThe turn limit caps how many model calls one answer "
    "may make. Set `DOCENT_MAX_TURNS` to change the turn limit; the default is 6.\n",
    "sessions.md": "# Sessions\n\nA session keeps the last ten turns of a conversation. A "
    "session expires after thirty minutes without activity.\n",
}
NEW_PAGE = ("# Zanzibar mode\n\nZanzibar mode writes every answer as a single line. Turn "
            "Zanzibar mode on with `DOCENT_ZANZIBAR=true`.\n")
NEW_QUESTION = "What does Zanzibar mode do?"


def chat(url: str, **body) -> httpx.Response:
    return httpx.post(url + "/chat", json=body, timeout=120)


def log_messages(path) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line)["message"])
        except (ValueError, KeyError):
            continue
    return out


def test_two_replicas_share_sessions_limits_index_and_caches(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    chroma = ChromaServer(tmp_path / "chroma")
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text)
    redis.start()
    chroma.start()
    env = docent_env(DOCENT_REDIS_URL=redis.url, DOCENT_CHROMA_URL=chroma.url,
                     DOCENT_COLLECTION="replicas", DOCENT_DATA_DIR=str(tmp_path / "data"),
                     DOCENT_RATE_LIMIT_SESSION_PER_MINUTE="4")
    try:
        run_docent(env, "ingest", str(docs), "--quiet")
        with serving(env, tmp_path / "a.log") as a, serving(env, tmp_path / "b.log") as b:
            for url in (a, b):
                assert httpx.get(url + "/ready", timeout=10).json()["checks"]["redis"] == "ok"

            # 1. A session started on A continues on B, then on A again.
            first = chat(a, message="What is the tool-call limit?").json()
            sid = first["session_id"]
            assert first["exit_reason"] == "COMPLETED"
            second = chat(b, message="And the turn limit?", session_id=sid).json()
            assert second["metadata"]["session_status"] == "continued"
            assert chat(a, message="hello", session_id=sid).json()["metadata"][
                "session_status"] == "continued"

            # 2. One session limit (4 a minute) counted across both replicas.
            limited = str(uuid.uuid4())
            codes = [chat(url, message="hello", session_id=limited).status_code
                     for url in (a, b, a, b)]
            refused = chat(a, message="hello", session_id=limited)
            assert codes == [200] * 4 and refused.status_code == 429
            assert 1 <= int(refused.headers["Retry-After"]) <= 60

            # 3. A re-ingestion is seen by both; the reply cache is shared.
            for url in (a, b):
                assert chat(url, message=NEW_QUESTION, messages=[]).json()["response"] == REFUSAL
            (docs / "zanzibar.md").write_text(NEW_PAGE)
            run_docent(env, "ingest", str(docs), "--quiet")
            on_a = chat(a, message=NEW_QUESTION, messages=[]).json()
            on_b = chat(b, message=NEW_QUESTION, messages=[]).json()
            for answer in (on_a, on_b):
                assert answer["exit_reason"] == "COMPLETED", answer
                assert [s["source_file"] for s in answer["sources"]] == ["zanzibar.md"]
            assert on_b["metadata"]["cached"] is True  # B reused A's reply, from Redis
            scraped = httpx.get(b + "/metrics", timeout=10).text
            assert "docent_ingest_last_chunks_written 1.0" in scraped  # the one new page
            assert "docent_redis_up 1.0" in scraped

            # 4. Redis restarts: a clear degraded mode meanwhile, then all as before.
            redis.stop()
            ready = httpx.get(a + "/ready", timeout=10)
            assert ready.status_code == 200 and ready.json()["status"] == "degraded"
            assert ready.json()["checks"]["redis"] == "unreachable"
            down = chat(a, message="And retries?", session_id=sid)
            assert down.status_code == 503 and down.json()["error_code"] == "SESSIONS_UNAVAILABLE"
            assert chat(b, message="What is the turn limit?", messages=[]).status_code == 200
            assert "docent_redis_up 0.0" in httpx.get(b + "/metrics", timeout=10).text
            redis.start()
            time.sleep(RedisHealth().retry_seconds + 0.2)
            assert httpx.get(a + "/ready", timeout=10).json()["status"] == "ready"
            back = chat(a, message="And the turn limit again?", session_id=sid).json()
            assert back["metadata"]["session_status"] == "continued"  # Redis kept it (AOF)
        log_a = log_messages(tmp_path / "a.log")
        assert sum(m.startswith("redis unreachable") for m in log_a) == 1
        assert sum(m.startswith("redis reachable again") for m in log_a) == 1
    finally:
        chroma.stop()
        redis.stop()
