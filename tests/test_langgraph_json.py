"""langgraph.json exposes the compiled graph the way LangGraph's tooling loads it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from docent.config import get_settings

ROOT = Path(__file__).resolve().parents[1]


def load_studio_graph(monkeypatch, tmp_path):
    """Import the file langgraph.json names, as the server does, and take its variable."""
    spec = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attr = spec["graphs"]["docent"].partition(":")
    module_spec = importlib.util.spec_from_file_location("docent_studio", ROOT / path)
    module = importlib.util.module_from_spec(module_spec)
    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        module_spec.loader.exec_module(module)
    finally:
        get_settings.cache_clear()
    return module.__dict__[attr]  # a variable, not a factory the server would call per run


async def test_langgraph_json_names_a_compiled_graph_that_runs(monkeypatch, tmp_path):
    graph = load_studio_graph(monkeypatch, tmp_path)
    assert graph.name == "docent"
    assert not (tmp_path / "chroma").exists()  # nothing opened on import: the store is lazy
    state = await graph.ainvoke({"messages": [HumanMessage("How do I change the tool-call limit?")]})
    # an empty store: the run completes its contract with the refusal
    assert state["exit_reason"] == "LLM_GENERATION_FAILURE"


async def test_a_thread_carries_the_conversation_but_not_the_last_runs_outcome(make_graph):
    """Under a checkpointer each run starts afresh: only the messages carry over."""
    from langchain_core.messages import AIMessage

    graph, model = make_graph(AIMessage("The default is 3 [1]."), AIMessage("It is 6 [1]."))
    graph = graph.builder.compile(name="docent", checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t1"}}
    first = await graph.ainvoke(
        {"messages": [HumanMessage("How do I change the tool-call limit?")]}, thread)
    # (a question naming its setting: "What is the turn limit default?" is read with the
    # previous question as its scene, which puts the tool-call passage first)
    second = await graph.ainvoke(
        {"messages": [HumanMessage("What is the DOCENT_MAX_TURNS default?")]}, thread)
    assert first["response"] == "The default is 3 [1]." and first["exit_reason"] == "COMPLETED"
    assert second["response"] == "It is 6 [1]." and second["exit_reason"] == "COMPLETED"
    assert second["turns"] == 1 and second["tool_calls"] == 1  # counters restarted
    # A plain str, not an ExitReason: a checkpoint holds no type its reader must know.
    assert type(first["exit_reason"]) is str and type(second["exit_reason"]) is str
    assert [c["chunk_id"] for c in second["cited"]] == ["chunk0002"]  # numbering restarted
    # The thread is the conversation: both questions and answers, and this run's search
    # (the first run's search call and passages are gone).
    kinds = [(m.type, bool(getattr(m, "tool_calls", None))) for m in second["messages"]]
    assert kinds == [("human", False), ("ai", False), ("human", False), ("ai", True),
                     ("tool", False), ("ai", False)]
    prompt = model.calls[1]["messages"]
    assert prompt[1].text.startswith("How do I change") and prompt[2].text == first["response"]


async def test_the_thread_keeps_the_answer_the_user_got_not_the_overruled_reply(make_graph):
    from langchain_core.messages import AIMessage

    graph, _ = make_graph(AIMessage("Quantum [9]."))
    graph = graph.builder.compile(name="docent", checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t2"}}
    state = await graph.ainvoke({"messages": [HumanMessage("Quantum entanglement?")]}, thread)
    assert state["messages"][-1].type == "ai" and state["messages"][-1].text == state["response"]
