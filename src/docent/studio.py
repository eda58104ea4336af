"""Entry point for LangGraph's own tooling (`langgraph dev`, Studio): see langgraph.json."""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from docent.config import get_settings
from docent.runtime import build_runtime


def make_graph(config: RunnableConfig | None = None) -> CompiledStateGraph:
    """The same compiled graph the API serves, built from the environment's settings."""
    return build_runtime(get_settings()).graph
