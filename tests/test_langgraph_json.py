"""langgraph.json exposes the compiled graph the way LangGraph's tooling loads it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from langchain_core.messages import HumanMessage

from docent.config import get_settings

ROOT = Path(__file__).resolve().parents[1]


async def test_langgraph_json_loads_and_runs_the_docent_graph(monkeypatch, tmp_path):
    spec = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attr = spec["graphs"]["docent"].partition(":")
    module_spec = importlib.util.spec_from_file_location("docent_studio", ROOT / path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)

    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        graph = getattr(module, attr)({})
    finally:
        get_settings.cache_clear()
    assert graph.name == "docent"
    state = await graph.ainvoke({"messages": [HumanMessage("How do I change the tool-call limit?")]})
    # an empty store: the run completes its contract with the refusal
    assert state["exit_reason"] == "LLM_GENERATION_FAILURE"
