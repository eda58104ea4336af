"""One `search_docs` call run for the agent: retries, deadline, numbering, the tool message.

Shared by the `tools` node (searches the model asked for) and `search_question` (the
search the graph runs with the user's question before the first model call).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from docent.agent.tools import (
    SEARCH_TOOL,
    SearchFailed,
    fitting,
    format_references,
    number_hits,
)
from docent.exit_reasons import RETRIEVAL_FAILED_MESSAGE, ExitReason
from docent.failures import log_failure

log = logging.getLogger(__name__)


@dataclass
class Ledger:
    """A run's search bookkeeping, read from the state and written back after the calls."""

    sources: list[dict[str, Any]] = field(default_factory=list)
    searches: int = 0
    empty_searches: int = 0
    retrieval_ms: float = 0.0

    @classmethod
    def of(cls, state: Any) -> Ledger:
        return cls(
            sources=state.get("sources", []),
            searches=state.get("searches", 0),
            empty_searches=state.get("empty_searches", 0),
            retrieval_ms=state.get("retrieval_ms", 0.0),
        )

    def update(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "searches": self.searches,
            "empty_searches": self.empty_searches,
            "retrieval_ms": self.retrieval_ms,
        }


RETRIEVAL_FAILED: dict[str, Any] = {
    "exit_reason": ExitReason.LLM_GENERATION_FAILURE.value,
    "response": RETRIEVAL_FAILED_MESSAGE,
    "error_code": "RETRIEVAL_FAILED",
    "retryable": True,  # the text says "try again in a moment": an outage passes
}


async def search(
    tool: BaseTool,
    args: dict[str, Any],
    call_id: str,
    config: RunnableConfig,
    ledger: Ledger,
    room: int | None = None,
) -> ToolMessage | None:
    """The tool message answering one valid search call, or None when the store failed
    (the tool retries and times out each try itself, so a stream shows one tool run per
    search; the failure is logged here). With `room`, the characters the context budget
    leaves, the passages are kept best first while they fit (the best one always)."""
    began = time.perf_counter()
    hits = await tool.ainvoke(args, config)
    if isinstance(hits, SearchFailed):  # a friendly interruption, detail logged
        log_failure(
            log, hits.error, where="database",
            request_id=(config.get("metadata") or {}).get("query_id"),
            event="retrieval failed after retries",
        )
        return None
    ledger.retrieval_ms += (time.perf_counter() - began) * 1000
    if room is not None:
        hits = fitting(hits, room)
    numbered, ledger.sources = number_hits(hits, ledger.sources)
    ledger.searches += 1
    ledger.empty_searches += not numbered
    return ToolMessage(
        format_references(numbered),
        tool_call_id=call_id,
        name=SEARCH_TOOL,
        artifact=[s["chunk_id"] for s in numbered],
    )
