"""One chat turn through the agent, as a finished response or as a stream of events.

Shared by the HTTP API and the CLI; knows the graph, not FastAPI.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from docent.agent.citations import CitationStream
from docent.agent.graph import GRAPH_NAME
from docent.agent.tools import SEARCH_TOOL, public_source
from docent.exit_reasons import CANNED, REFUSAL, RETRYABLE, ExitReason
from docent.failures import log_failure
from docent.gaps import record_gap
from docent.greeting import courtesy_reply
from docent.metrics import count_run
from docent.prompts import SELECTION_HEADER
from docent.render import render_markdown
from docent.runtime import Runtime

log = logging.getLogger(__name__)

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class ChatTurn:
    """A question, the conversation before it, and per-request options."""

    message: str
    history: Sequence[tuple[Role, str]] = ()
    top_k: int | None = None
    selected_text: str | None = None
    user_context: Mapping[str, Any] | None = None
    session_id: str | None = None
    query_id: str = field(default_factory=lambda: f"req-{uuid.uuid4()}")

    def question(self) -> str:
        """The user's message as the model sees it, framed by the selection if any."""
        if not self.selected_text or not self.selected_text.strip():
            return self.message
        quoted = "\n".join(f"> {line}" for line in self.selected_text.strip().splitlines())
        return f"{self.message}\n\n{SELECTION_HEADER}\n{quoted}"

    def inputs(self) -> dict[str, list[BaseMessage]]:
        past: list[BaseMessage] = [
            HumanMessage(text) if role == "user" else AIMessage(text)
            for role, text in self.history
        ]
        return {"messages": [*past, HumanMessage(self.question())]}

    def config(self) -> RunnableConfig:
        configurable: dict[str, Any] = {}
        if self.top_k:
            configurable["top_k"] = self.top_k
        if self.user_context:
            configurable["user_context"] = dict(self.user_context)
        return {"configurable": configurable, "metadata": {"query_id": self.query_id}}


def to_response(
    state: dict[str, Any] | None, turn: ChatTurn, started: float, model_id: str
) -> dict[str, Any]:
    """The public response object, shared by /chat and the stream's terminal event."""
    if not state or not state.get("exit_reason"):
        state = {"exit_reason": ExitReason.LLM_ERROR, "response": CANNED[ExitReason.LLM_ERROR]}
    reason = ExitReason(state["exit_reason"])
    metadata: dict[str, Any] = {
        "model": state.get("model_used") or model_id,
        "fallback_used": bool(state.get("fallback_used")),
        "cached": bool(state.get("cached")),
        "tokens_used": state.get("tokens_used", 0),
        "context_chunks": len(state.get("sources") or []),
        "retrieval_time_ms": round(state.get("retrieval_ms", 0.0), 1),
        "turns": state.get("turns", 0),
        "tool_calls": state.get("tool_calls", 0),
    }
    if state.get("error_code"):
        metadata["error_code"] = state["error_code"]
    response = state.get("response") or CANNED.get(reason, "")
    sources = [public_source(s) for s in state.get("cited", [])]
    return {
        "response": response,
        "response_html": render_markdown(response, sources, query_id=turn.query_id),
        "exit_reason": reason.value,
        # The text decides: a rate limit after the tool cap still says "try again" (CONTRACT §1).
        "retryable": reason in RETRYABLE or bool(state.get("retryable")),
        "session_id": turn.session_id,
        "sources": sources,
        "query_id": turn.query_id,
        "timestamp": datetime.now(UTC).isoformat(),
        "execution_time_ms": round((time.perf_counter() - started) * 1000, 1),
        "metadata": metadata,
    }


def greeting_state(reply: str) -> dict[str, Any]:
    """The final state of a run answered by the greeting fast path."""
    return {"exit_reason": ExitReason.COMPLETED, "response": reply, "model_used": "greeting"}


def _courtesy(turn: ChatTurn) -> str | None:
    """The fast path's reply to a bare hello, thanks, "ok" or "what can you do?" (none
    beside selected text)."""
    return None if turn.selected_text else courtesy_reply(turn.message)


async def run_chat(runtime: Runtime, turn: ChatTurn) -> dict[str, Any]:
    """Run the agent to the end and return the response object."""
    started = time.perf_counter()
    if reply := _courtesy(turn):
        return _noted(runtime, turn, to_response(greeting_state(reply), turn, started,
                                                  runtime.model_id))
    try:
        async with runtime.runs.turn() if runtime.runs else nullcontext():
            state = await runtime.graph.ainvoke(turn.inputs(), turn.config())
    except Exception as exc:  # noqa: BLE001 - reported as LLM_ERROR, detail to the log
        log_failure(log, exc, where="agent", request_id=turn.query_id, event="agent run failed")
        state = None
    return _noted(runtime, turn, to_response(state, turn, started, runtime.model_id))


async def stream_chat(runtime: Runtime, turn: ChatTurn) -> AsyncIterator[tuple[str, dict]]:
    """(event name, JSON-able data) pairs; the terminal `on_chain_end` always comes last."""
    started = time.perf_counter()
    if reply := _courtesy(turn):
        greeted = to_response(greeting_state(reply), turn, started, runtime.model_id)
        yield "on_chain_end", _noted(runtime, turn, greeted)
        return
    final: dict[str, Any] | None = None
    # Tokens carry the citation numbers the final answer will have (see CitationStream).
    citations = CitationStream()
    try:
        async for event in runtime.graph.astream_events(
            turn.inputs(), turn.config(), version="v2"
        ):
            kind, name = event["event"], event.get("name")
            node = event.get("metadata", {}).get("langgraph_node")
            if kind == "on_chat_model_start" and node == "llm":
                citations.restart()  # the answer is the last model call's text
            elif kind == "on_chat_model_stream" and node == "llm":
                chunk = event["data"].get("chunk")
                text = citations.feed(chunk.text) if chunk is not None else ""
                if text:
                    yield kind, {"content": text}
            elif kind == "on_chat_model_end" and node == "llm":
                rest = citations.flush()
                if rest:
                    yield "on_chat_model_stream", {"content": rest}
            elif kind == "on_chain_end" and node and _sources_of(event):
                citations.known = {int(s["n"]) for s in _sources_of(event)}
            elif kind == "on_tool_start" and name == SEARCH_TOOL:
                yield kind, {"name": name, "input": _tool_input(event["data"].get("input"))}
            elif kind == "on_tool_end" and name == SEARCH_TOOL:
                yield kind, {"name": name, "output": _tool_output(event["data"].get("output"))}
            elif kind == "on_chain_end" and name == GRAPH_NAME and not event.get("parent_ids"):
                final = event["data"].get("output")
    except Exception as exc:  # noqa: BLE001 - the terminal event still comes
        log_failure(log, exc, where="agent", request_id=turn.query_id, event="agent stream failed")
        final = None
    yield "on_chain_end", _noted(runtime, turn, to_response(final, turn, started, runtime.model_id))


def _noted(runtime: Runtime, turn: ChatTurn, response: dict[str, Any]) -> dict[str, Any]:
    """Count the run in the metrics; append a refused question to the opt-in gap log."""
    meta = response["metadata"]
    count_run(response["exit_reason"], meta["model"], meta["fallback_used"])
    log_path = runtime.settings.gap_log
    if log_path and response["response"] == REFUSAL:
        try:
            record_gap(log_path, turn.message)
        except OSError as exc:
            log_failure(log, exc, where="unknown", request_id=turn.query_id,
                        event="gap log not written")
    return response


def _sources_of(event: Any) -> list[dict[str, Any]]:
    """The run's numbered sources, when the event is a node's end that updated them (a
    node that names the next one ends with a Command holding its update)."""
    output = event["data"].get("output")
    if isinstance(output, Command):
        output = output.update
    sources = output.get("sources") if isinstance(output, dict) else None
    return sources if isinstance(sources, list) else []


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
