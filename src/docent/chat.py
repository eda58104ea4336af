"""One chat turn through the agent, as a finished response or as a stream of events.

Shared by the HTTP API and the CLI; knows the graph, not FastAPI.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from docent.agent.graph import GRAPH_NAME
from docent.agent.tools import SEARCH_TOOL, public_source
from docent.exit_reasons import CANNED, RETRYABLE, ExitReason
from docent.runtime import Runtime

log = logging.getLogger(__name__)

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class ChatTurn:
    """A question, the conversation before it, and per-request options."""

    message: str
    history: Sequence[tuple[Role, str]] = ()
    top_k: int | None = None
    query_id: str = field(default_factory=lambda: f"req-{uuid.uuid4()}")

    def inputs(self) -> dict[str, list[BaseMessage]]:
        past: list[BaseMessage] = [
            HumanMessage(text) if role == "user" else AIMessage(text)
            for role, text in self.history
        ]
        return {"messages": [*past, HumanMessage(self.message)]}

    def config(self) -> RunnableConfig:
        configurable = {"top_k": self.top_k} if self.top_k else {}
        return {"configurable": configurable}


def to_response(
    state: dict[str, Any] | None, turn: ChatTurn, started: float, model_id: str
) -> dict[str, Any]:
    """The public response object, shared by /chat and the stream's terminal event."""
    if not state or not state.get("exit_reason"):
        state = {"exit_reason": ExitReason.LLM_ERROR, "response": CANNED[ExitReason.LLM_ERROR]}
    reason = ExitReason(state["exit_reason"])
    metadata: dict[str, Any] = {
        "model": model_id,
        "cached": bool(state.get("cached")),
        "turns": state.get("turns", 0),
        "tool_calls": state.get("tool_calls", 0),
    }
    if state.get("error_code"):
        metadata["error_code"] = state["error_code"]
    return {
        "response": state.get("response") or CANNED.get(reason, ""),
        "exit_reason": reason.value,
        "retryable": reason in RETRYABLE,
        "sources": [public_source(s) for s in state.get("cited", [])],
        "query_id": turn.query_id,
        "timestamp": datetime.now(UTC).isoformat(),
        "execution_time_ms": round((time.perf_counter() - started) * 1000, 1),
        "metadata": metadata,
    }


async def run_chat(runtime: Runtime, turn: ChatTurn) -> dict[str, Any]:
    """Run the agent to the end and return the response object."""
    started = time.perf_counter()
    try:
        state = await runtime.graph.ainvoke(turn.inputs(), turn.config())
    except Exception:
        log.exception("agent run failed", extra={"query_id": turn.query_id})
        state = None
    return to_response(state, turn, started, runtime.model_id)


async def stream_chat(runtime: Runtime, turn: ChatTurn) -> AsyncIterator[tuple[str, dict]]:
    """(event name, JSON-able data) pairs; the terminal `on_chain_end` always comes last."""
    started = time.perf_counter()
    final: dict[str, Any] | None = None
    try:
        async for event in runtime.graph.astream_events(
            turn.inputs(), turn.config(), version="v2"
        ):
            kind, name = event["event"], event.get("name")
            if kind == "on_chat_model_stream":
                text = _chunk_text(event["data"].get("chunk"))
                if text and event.get("metadata", {}).get("langgraph_node") == "llm":
                    yield kind, {"content": text}
            elif kind == "on_tool_start" and name == SEARCH_TOOL:
                yield kind, {"name": name, "input": _tool_input(event["data"].get("input"))}
            elif kind == "on_tool_end" and name == SEARCH_TOOL:
                yield kind, {"name": name, "output": _tool_output(event["data"].get("output"))}
            elif kind == "on_chain_end" and name == GRAPH_NAME and not event.get("parent_ids"):
                final = event["data"].get("output")
    except Exception:
        log.exception("agent stream failed", extra={"query_id": turn.query_id})
        final = None
    yield "on_chain_end", to_response(final, turn, started, runtime.model_id)


def _chunk_text(chunk: Any) -> str:
    content = getattr(chunk, "content", "")
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") if isinstance(part, dict) else str(part) for part in content
    )


def _tool_input(data: Any) -> dict[str, Any]:
    if isinstance(data, dict):
        return {"query": str(data.get("query", ""))}
    return {}


def _tool_output(hits: Any) -> dict[str, Any]:
    hits = hits if isinstance(hits, list) else []
    return {
        "results": len(hits),
        "sources": [
            {"source_file": h.chunk.source_file, "section_title": h.chunk.section_title}
            for h in hits
            if hasattr(h, "chunk")
        ],
    }
