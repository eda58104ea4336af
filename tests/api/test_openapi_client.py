"""CONTRACT.md §5: the OpenAPI document generates a client that works.

openapi-python-client generates a package from `/openapi.json`; that package then calls
`/chat` and `/chat/stream` on a real uvicorn server on 127.0.0.1.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from docent.agent.graph import build_graph
from docent.api.app import create_app
from docent.api.schemas import ErrorCode
from docent.config import load_settings
from docent.exit_reasons import ExitReason
from docent.models.extractive import ExtractiveChatModel
from docent.runtime import Runtime
from tests.fakes import GUIDE, FakeRetriever
from tests.http import parse_sse
from tests.live import LiveServer

SRC = Path(__file__).resolve().parents[2] / "src" / "docent"


@pytest.fixture
def served(tmp_path):
    settings = load_settings(_env_file=None, data_dir=tmp_path / "data", rate_limit_enabled=False)
    retriever = FakeRetriever(chunks=list(GUIDE))
    graph = build_graph(ExtractiveChatModel(), retriever, settings)
    runtime = Runtime(settings=settings, graph=graph, retriever=retriever, model_id="extractive")
    with LiveServer(create_app(settings, lambda _s: runtime)) as server:
        yield server.url


def test_the_document_promises_only_what_the_server_does(served):
    doc = httpx.get(f"{served}/openapi.json").json()
    stream_ok = doc["paths"]["/chat/stream"]["post"]["responses"]["200"]["content"]
    assert list(stream_ok) == ["text/event-stream"]
    for path in doc["paths"].values():
        for operation in path.values():
            assert "422" not in operation["responses"]
    schemas = doc["components"]["schemas"]
    assert "HTTPValidationError" not in schemas
    assert schemas["ChatResponse"]["properties"]["exit_reason"]["$ref"].endswith("/ExitReason")
    assert set(schemas["ExitReason"]["enum"]) == {r.value for r in ExitReason}
    assert set(schemas["ErrorCode"]["enum"]) == {c.value for c in ErrorCode}
    message = schemas["ChatRequest"]["properties"]["message"]
    assert (message["minLength"], message["maxLength"]) == (1, 10000)
    # An invalid body really is a 400 with the envelope the document describes.
    bad = httpx.post(f"{served}/chat", json={"message": 5})
    assert bad.status_code == 400 and bad.json()["error_code"] == "INVALID_QUERY"


def test_every_error_code_the_api_sends_is_in_the_enum():
    # Any upper-case string constant in the API layer is an error code, an exit reason,
    # or an HTTP method: a new code must join ErrorCode (and so the document).
    known = {c.value for c in ErrorCode} | {r.value for r in ExitReason}
    found = set()
    for path in (SRC / "api").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and re.fullmatch(r"[A-Z]+(_[A-Z]+)+", node.value)
                    and not node.value.startswith("DOCENT_")):  # settings named in examples
                found.add(node.value)
    assert found - known == set()
    assert {"EMPTY_QUERY", "INVALID_SESSION", "NOT_READY"} <= found  # the scan sees codes


@pytest.mark.slow
def test_a_generated_client_calls_chat_and_the_stream(served, tmp_path, monkeypatch):
    spec = tmp_path / "openapi.json"
    spec.write_text(httpx.get(f"{served}/openapi.json").text)
    config = tmp_path / "generator.json"
    config.write_text(json.dumps({"post_hooks": []}))  # no formatter needed to import it
    subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(spec),
         "--output-path", str(tmp_path / "docent_client"), "--meta", "none",
         "--config", str(config)],
        check=True, capture_output=True, timeout=120,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    client_mod = importlib.import_module("docent_client")
    chat = importlib.import_module("docent_client.api.default.chat_chat_post")
    stream = importlib.import_module("docent_client.api.default.chat_stream_chat_stream_post")
    models = importlib.import_module("docent_client.models")
    try:
        with client_mod.Client(base_url=served, timeout=httpx.Timeout(60)) as client:
            body = models.ChatRequest(message="How do I change the tool-call limit?")
            answer = chat.sync(client=client, body=body)
            assert isinstance(answer, models.ChatResponse), answer
            assert answer.exit_reason == models.ExitReason.COMPLETED
            assert "DOCENT_MAX_TOOL_CALLS" in answer.response and answer.sources

            events = stream.sync_detailed(client=client, body=body)
            assert events.status_code == 200 and isinstance(events.parsed, str)
            frames = [f for f in parse_sse(events.parsed.encode()) if "event" in f]
            terminal = json.loads(frames[-1]["data"])
            assert frames[-1]["event"] == "on_chain_end"
            assert terminal["response"] == answer.response

            empty = chat.sync(client=client, body=models.ChatRequest(message=" "))
            assert isinstance(empty, models.ErrorBody)
            assert empty.error_code == models.ErrorCode.EMPTY_QUERY
    finally:
        for name in [m for m in sys.modules if m.startswith("docent_client")]:
            del sys.modules[name]
