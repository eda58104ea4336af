"""langgraph.json under LangGraph's own server: `langgraph dev` and langgraph-sdk.

The server (langgraph-cli[inmem]) runs as a subprocess on a free 127.0.0.1 port, without
`--allow-blocking` (a blocking call on its event loop fails the run), with its analytics
and version check off. Two questions on one thread must each get their own answer.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live import free_port, wait_until_up
from tests.small_corpus import DOCS

ROOT = Path(__file__).resolve().parents[1]
QUIET = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false",
}


@pytest.fixture
def langgraph_dev(tmp_path):
    from docent.config import load_settings
    from docent.ingest import ingest_path

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    data = tmp_path / "data"
    ingest_path(docs, load_settings(_env_file=None, data_dir=data), progress=False)

    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LANGSMITH_", "LANGCHAIN_", "DOCENT_", "GOOGLE_", "OPENAI_"))}
    env.update(QUIET, DOCENT_DATA_DIR=str(data), DOCENT_LLM_PROVIDER="extractive")
    log = (tmp_path / "server.log").open("w")
    cli = Path(sys.executable).with_name("langgraph")
    # cwd: the repository, whose langgraph.json is the one under test; the server keeps
    # its own files in .langgraph_api there (git-ignored).
    proc = subprocess.Popen(
        [str(cli), "dev", "--host", "127.0.0.1", "--port", str(port), "--no-browser",
         "--no-reload", "--config", str(ROOT / "langgraph.json")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_until_up(f"{url}/ok", proc, "langgraph dev", seconds=120)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}:\n{(tmp_path / 'server.log').read_text()[-3000:]}") from None
        yield url, tmp_path / "server.log"
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


@pytest.mark.slow
async def test_two_turns_on_one_thread_each_answer_their_own_question(langgraph_dev):
    from langgraph_sdk import get_client

    url, log = langgraph_dev
    client = get_client(url=url)
    thread = await client.threads.create()

    first = await client.runs.wait(
        thread["thread_id"], "docent",
        input={"messages": [{"role": "user", "content": "How do I change the tool-call limit?"}]},
    )
    assert first["exit_reason"] == "COMPLETED", first
    assert "DOCENT_MAX_TOOL_CALLS" in first["response"]

    states = [
        part.data async for part in client.runs.stream(
            thread["thread_id"], "docent", stream_mode="values",
            input={"messages": [{"role": "user", "content": "When does a session expire?"}]},
        ) if part.event == "values"
    ]
    second = states[-1]
    assert second["exit_reason"] == "COMPLETED", second
    assert "30 minutes" in second["response"]
    assert "DOCENT_MAX_TOOL_CALLS" not in second["response"]
    assert second["turns"] == 1 and second["tool_calls"] == 1
    # The thread holds the conversation: both questions, both answers.
    kinds = [m["type"] for m in second["messages"]]
    assert kinds.count("human") == 2 and kinds[-1] == "ai"

    assistant = (await client.assistants.search(graph_id="docent"))[0]
    schemas = await client.assistants.get_schemas(assistant["assistant_id"])
    assert "messages" in schemas["input_schema"]["properties"]
    assert "exit_reason" in schemas["output_schema"]["properties"]

    text = log.read_text()
    assert "BlockingError" not in text and "Blocking call" not in text
    assert "unregistered" not in text.lower()
