"""One `search_docs` call run for the agent: retries, deadline, numbering, the tool message.

Shared by the `tools` node (searches the model asked for) and `search_question` (the
search the graph runs with the user's question before the first model call).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from docent.agent.model_chain import log_retry
from docent.agent.retry import retrying
from docent.agent.tools import SEARCH_TOOL, format_references, number_hits
from docent.config import Settings
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
}


async def search(
    tool: BaseTool,
    args: dict[str, Any],
    call_id: str,
    config: RunnableConfig,
    settings: Settings,
    ledger: Ledger,
) -> ToolMessage | None:
    """The tool message answering one valid search call, or None when the store failed
    (after `tool_retries`, each try bounded by `retrieval_timeout_seconds`; logged)."""
    began = time.perf_counter()
    try:
        async for attempt in retrying(
            settings.tool_retries, settings.retry_max_wait_seconds, log_retry("search")
        ):
            with attempt:
                # A store that stops answering must not hang the run: a search that takes
                # too long fails (TimeoutError, retried like any other).
                hits = await asyncio.wait_for(
                    tool.ainvoke(args, config), settings.retrieval_timeout_seconds
                )
    except Exception as exc:  # noqa: BLE001 - a friendly interruption, detail logged
        log_failure(
            log, exc, where="database",
            request_id=(config.get("metadata") or {}).get("query_id"),
            event="retrieval failed after retries",
        )
        return None
    ledger.retrieval_ms += (time.perf_counter() - began) * 1000
    numbered, ledger.sources = number_hits(hits, ledger.sources)
    ledger.searches += 1
    ledger.empty_searches += not numbered
    return ToolMessage(
        format_references(numbered),
        tool_call_id=call_id,
        name=SEARCH_TOOL,
        artifact=[s["chunk_id"] for s in numbered],
    )
