"""Where one run starts and ends in a thread that carries a conversation.

Under a checkpointer (`langgraph dev`, Studio, any LangGraph server) a thread keeps the
whole state between runs. The conversation must carry over, the previous run's bookkeeping
must not: otherwise its `exit_reason` (kept-first) and `response` answer the next question.
So a run starts by resetting every per-run field, and by dropping the search calls and
passages of earlier runs from the history (the conversation is the questions and answers,
as in a session); it ends by leaving the user-facing answer as the thread's last message.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage

from docent.agent.state import AgentState

# Every per-run field at its starting value (`exit_reason`: None clears its keep-first).
_FRESH: dict[str, Any] = {
    "turns": 0,
    "tool_calls": 0,
    "invalid_streak": 0,
    "sources": [],
    "searches": 0,
    "empty_searches": 0,
    "reasked": False,
    "cached": False,
    "model_used": "",
    "fallback_used": False,
    "tokens_used": 0,
    "retrieval_ms": 0.0,
    "error_code": None,
    "response": "",
    "cited": [],
}


def start_run(state: AgentState, exit_reason: str | None = None) -> dict[str, Any]:
    """The update that opens a run: fresh counters, `exit_reason` set to `exit_reason`,
    and earlier runs' search calls and passages removed from the history."""
    messages = state.get("messages", [])
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)),
                     default=len(messages))
    stale = [
        RemoveMessage(id=m.id)
        for m in messages[:last_human]
        if m.id and (isinstance(m, ToolMessage) or (isinstance(m, AIMessage) and m.tool_calls))
    ]
    update: dict[str, Any] = {**_FRESH, "exit_reason": exit_reason}
    if stale:
        update["messages"] = stale
    return update


def answer_message(state: AgentState, update: dict[str, Any]) -> dict[str, Any]:
    """`update` plus the message that leaves the user-facing answer last in the thread: the
    model's own reply is replaced (same id) when docent overruled it, else one is added."""
    text = update.get("response") or state.get("response") or ""
    if not text:
        return update
    last = state["messages"][-1] if state.get("messages") else None
    if isinstance(last, AIMessage) and not last.tool_calls:
        if last.text == text:
            return update
        return {**update, "messages": [AIMessage(text, id=last.id)]}
    return {**update, "messages": [AIMessage(text)]}
