"""docs/getting-started.md, "Stopping the server": Ctrl+C (SIGINT) or SIGTERM stops a real
`docent serve`; it takes no new connection, finishes the answer it is still writing, then
exits. A second Ctrl+C stops it at once, cutting off the answer under way.

The answer in progress is held by a local OpenAI-compatible model on 127.0.0.1 that answers
only when the test lets it (`held`).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.fake_openai import fake_openai
from tests.serve_process import ingested_env, serving

pytestmark = pytest.mark.slow

GENEROUS = 30.0  # seconds to wait for what takes a fraction of one


def _asking(url: str, answer: dict[str, object]) -> threading.Thread:
    """POST /chat from a thread; the response, or the error that ended it, lands in `answer`."""
    def ask() -> None:
        try:
            answer["response"] = httpx.post(
                url + "/chat", json={"message": "How do I change the tool-call limit?"},
                timeout=GENEROUS)
        except httpx.HTTPError as error:
            answer["error"] = error

    thread = threading.Thread(target=ask)
    thread.start()
    return thread


def _wait(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + GENEROUS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _refused(url: str) -> bool:
    try:
        httpx.get(url + "/health", timeout=2)
    except httpx.ConnectError:
        return True
    except httpx.HTTPError:
        return False
    return False


def _exited(pid: int) -> bool:
    """Whether process `pid` has exited (its zombie, before `serving` reaps it, counts)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


@pytest.mark.parametrize(("signum", "args"), [
    (signal.SIGINT, ()), (signal.SIGTERM, ()), (signal.SIGINT, ("--workers", "2"))])
def test_a_signal_lets_the_answer_under_way_finish(tmp_path, signum, args):
    with fake_openai("held") as model:
        env = {**ingested_env(tmp_path), "DOCENT_LLM_PROVIDER": "openai",
               "DOCENT_OPENAI_BASE_URL": model.url, "DOCENT_OPENAI_MODEL": "fake"}
        pids: list[int] = []
        with serving(env, tmp_path / "serve.log", *args, pids=pids) as url:
            answer: dict[str, object] = {}
            asking = _asking(url, answer)
            _wait(lambda: model.requests, "the model was never asked")
            os.kill(pids[0], signum)
            _wait(lambda: _refused(url), "a new connection was still taken after the signal")
            assert not _exited(pids[0])  # still writing the answer
            model.released.set()
            asking.join(GENEROUS)
            response = answer.get("response")
            assert isinstance(response, httpx.Response), answer
            assert response.status_code == 200
            body = response.json()
            assert body["exit_reason"] == "COMPLETED"
            assert "DOCENT_MAX_TOOL_CALLS" in body["response"]
            _wait(lambda: _exited(pids[0]), "the server did not exit once it had answered")
        log = (tmp_path / "serve.log").read_text()
        assert "Traceback" not in log
        if not args:  # one process binds its socket first, and still says where it listens
            assert f"Uvicorn running on {url} (Press CTRL+C to quit)" in log


def test_a_second_signal_stops_the_server_at_once(tmp_path):
    with fake_openai("held") as model:
        env = {**ingested_env(tmp_path), "DOCENT_LLM_PROVIDER": "openai",
               "DOCENT_OPENAI_BASE_URL": model.url, "DOCENT_OPENAI_MODEL": "fake"}
        pids: list[int] = []
        with serving(env, tmp_path / "serve.log", pids=pids) as url:
            answer: dict[str, object] = {}
            asking = _asking(url, answer)
            _wait(lambda: model.requests, "the model was never asked")
            os.kill(pids[0], signal.SIGINT)
            _wait(lambda: _refused(url), "a new connection was still taken after the signal")
            os.kill(pids[0], signal.SIGINT)
            _wait(lambda: _exited(pids[0]), "a second Ctrl+C did not stop the server")
            asking.join(GENEROUS)
            # the answer under way was cut off: the connection dropped, or uvicorn's bare 500
            response = answer.get("response")
            assert "error" in answer or (isinstance(response, httpx.Response)
                                         and response.status_code == 500), answer
