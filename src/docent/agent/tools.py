"""The retriever as a LangChain tool, and how its hits are shown to the model."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, get_type_hints

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field

from docent.agent.model_chain import log_retry
from docent.agent.retry import retrying
from docent.prompts import MAX_QUERY_CHARS
from docent.retrieval.types import Hit, Retriever

SEARCH_TOOL = "search_docs"
EMPTY_RESULT = "DOCUMENTATION_SEARCH_RESULT: EMPTY"
PREVIEW_CHARS = 300


class SearchArgs(BaseModel):
    """Arguments of `search_docs`."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look up.")


@dataclass(frozen=True)
class SearchFailed:
    """What a search returns when the store failed after every retry (or never answered)."""

    error: BaseException


def make_search_tool(
    retriever: Retriever,
    default_k: int,
    *,
    retries: int = 0,
    max_wait: float = 0.0,
    timeout: float | None = None,
    pool: Executor | None = None,
) -> StructuredTool:
    """`search_docs(query)`: the retriever's hits; `top_k` may come from the run config.

    The search runs in `pool` (the process's bounded pool for CPU work), else in the event
    loop's default executor.

    Transient failures are retried inside the tool, and a search that still fails returns
    `SearchFailed` instead of raising: a stream shows one `on_tool_start` and one
    `on_tool_end` per search, however many attempts it took and whether it succeeded.
    A store that stops answering fails an attempt after `timeout` seconds.
    """

    async def search_docs(query: str, config: RunnableConfig) -> list[Hit] | SearchFailed:
        k = int(config.get("configurable", {}).get("top_k") or default_k)
        loop = asyncio.get_running_loop()
        try:
            async for attempt in retrying(retries, max_wait, log_retry("search")):
                with attempt:
                    return await asyncio.wait_for(
                        loop.run_in_executor(pool, retriever.search, query, k), timeout
                    )
        except Exception as exc:  # noqa: BLE001 - the caller reports it as RETRIEVAL_FAILED
            return SearchFailed(exc)
        raise AssertionError("unreachable: tenacity either returns or raises")

    # Resolved once: the tool looks up which argument takes the config on every call, and
    # string annotations (this module's) would be evaluated each time.
    search_docs.__annotations__ = get_type_hints(search_docs)
    return StructuredTool.from_function(
        coroutine=search_docs,
        name=SEARCH_TOOL,
        description=(
            "Search the product documentation. Returns numbered passages with their "
            "file and section; cite them as [n]."
        ),
        args_schema=SearchArgs,
    )


def number_hits(
    hits: list[Hit], known: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Give each hit its run-wide number; a chunk seen earlier keeps its number.

    Returns (the numbered hits of this call, the run's updated source list).
    """
    sources = list(known)
    by_id = {s["chunk_id"]: s for s in sources}
    numbered = []
    for hit in hits:
        entry = by_id.get(hit.chunk.chunk_id)
        if entry is None:
            entry = {
                "n": len(sources) + 1,
                **hit.chunk.to_dict(),
                "similarity_score": round(max(0.0, min(1.0, hit.score)), 4),
                "content_preview": _preview(hit.chunk.text),
            }
            sources.append(entry)
            by_id[entry["chunk_id"]] = entry
        numbered.append(entry)
    return numbered, sources


def fitting(hits: list[Hit], room: int) -> list[Hit]:
    """The best hits whose passages fit `room` characters of the tool message, the best
    one always: a few very long passages (a generated reference page, `top_k` 20) leave
    out the lower-ranked ones instead of ending the run MAX_CONTEXT_REACHED; a best passage
    that cannot fit still does, as a conversation too long for any passage does."""
    kept: list[Hit] = []
    for hit in hits:
        c = hit.chunk
        # As `format_references` writes it: "[nn] Section (file)\n" + text + "\n\n".
        room -= len(c.text) + len(c.section_title or c.title) + len(c.source_file) + 12
        if kept and room < 0:
            break
        kept.append(hit)
    return kept


def format_references(numbered: list[dict[str, Any]]) -> str:
    """The tool message the model reads: `[n] Title > Section (file)` then the passage."""
    if not numbered:
        return EMPTY_RESULT
    blocks = []
    for s in numbered:
        where = s["section_title"] or s["title"]
        text = _without_images(s["text"]).strip()
        blocks.append(f"[{s['n']}] {where} ({s['source_file']})\n{text}")
    return "\n\n".join(blocks)


# A line that is only an image: a crawl's screenshot link, 300 characters a model reads as
# noise (a GitBook section of four screenshots is 4,000 characters, 2,500 of them these).
_IMAGE_LINE = re.compile(r"[ \t]*!\[[^\]\n]*\]\([^)\n]*\)[ \t]*")


def _without_images(text: str) -> str:
    """`text` without its lines that are only an image, nor the blank line each leaves."""
    out: list[str] = []
    dropped = False
    for line in text.split("\n"):
        if _IMAGE_LINE.fullmatch(line):
            dropped = True
        elif not (dropped and not line.strip() and out and not out[-1].strip()):
            out.append(line)
            dropped = dropped and not line.strip()
    return "\n".join(out)


def public_source(entry: dict[str, Any]) -> dict[str, Any]:
    """A source as clients see it: no full text, a short preview instead."""
    return {k: v for k, v in entry.items() if k != "text"}


_MARKUP = [
    (re.compile(r"^\s*(```|~~~).*$", re.MULTILINE), ""),  # code fences
    (re.compile(r"^\s*#{1,6}\s+", re.MULTILINE), ""),  # heading markers
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # links and images: their text
    (re.compile(r"(\*\*|__|`)"), ""),  # bold and code marks
    (re.compile(r"\{[*!].*?[*!]\}"), ""),  # mkdocs include directives
]


@lru_cache(maxsize=1024)
def _preview(text: str) -> str:
    """A plain-text opening of a chunk: markdown marks removed, whitespace collapsed;
    remembered, as the same chunks come back across questions."""
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1].rstrip() + "…"
