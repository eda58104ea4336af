"""Entry point for LangGraph's own tooling (`langgraph dev`, Studio): see langgraph.json.

LangGraph's server imports this file once per process, in a worker thread, and serves
`graph`. Built here, the graph (settings, models, tools) is made once and off the event
loop; a factory function would be called on the loop for every run, and any blocking
call in it fails the run. Nothing in it touches the disk yet: the store and the
embedding model open on the first search, in the thread the search runs in.
"""

from __future__ import annotations

from langgraph.graph.state import CompiledStateGraph

from docent.config import get_settings
from docent.runtime import build_runtime


def make_graph() -> CompiledStateGraph:
    """The same compiled graph the API serves, from the environment's settings."""
    return build_runtime(get_settings(), lazy_store=True).graph


graph = make_graph()
