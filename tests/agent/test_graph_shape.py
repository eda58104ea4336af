"""The graph's shape, snapshot-tested like LangGraph's own prebuilt graphs."""

from __future__ import annotations

from pathlib import Path

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"


def test_graph_mermaid_matches_snapshot(make_graph):
    graph, _ = make_graph()
    drawn = graph.get_graph().draw_mermaid()
    assert drawn == SNAPSHOT.read_text()
    assert graph.name == "docent"
