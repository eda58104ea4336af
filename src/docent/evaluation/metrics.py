"""Scoring one answer or one ranking; pure functions, conventions of ../shared/eval/README.md."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from docent.agent.citations import citation_numbers
from docent.exit_reasons import REFUSAL


def first_gold_rank(files: Sequence[str], gold: Iterable[str], k: int) -> int:
    """1-based rank of the first retrieved chunk whose file is gold, within the top k; 0 if none."""
    wanted = set(gold)
    return next((rank for rank, f in enumerate(files[:k], 1) if f in wanted), 0)


def recall_at(files: Sequence[str], gold: Iterable[str], k: int) -> bool:
    """Some gold file among the source files of the top-k retrieved chunks."""
    return first_gold_rank(files, gold, k) > 0


def reciprocal_rank(files: Sequence[str], gold: Iterable[str], k: int = 10) -> float:
    """1 / rank of the first gold chunk in the top k, 0 when there is none."""
    rank = first_gold_rank(files, gold, k)
    return 1.0 / rank if rank else 0.0


def missing_keywords(answer: str, keywords: Iterable[str]) -> list[str]:
    """Keywords absent from the answer (case-insensitive substrings; `a|b` is either)."""
    text = answer.lower()
    return [
        kw for kw in keywords
        if not any(alt.strip().lower() in text for alt in kw.split("|") if alt.strip())
    ]


def lead_statement(answer: str) -> str:
    """The answer's first statement: its first line that is not a heading or blank."""
    return next(
        (line.strip() for line in answer.splitlines()
         if line.strip() and not line.lstrip().startswith("#")),
        "",
    )


def lead_has_keyword(answer: str, keywords: Sequence[str]) -> bool:
    """Some answer keyword already in the first statement: the answer leads with it."""
    return len(missing_keywords(lead_statement(answer), keywords)) < len(keywords)


def keyword_hit(answer: str, keywords: Iterable[str]) -> bool:
    """Every answer keyword present."""
    return not missing_keywords(answer, keywords)


def invalid_citations(response: str, sources: Sequence[dict[str, Any]]) -> list[int]:
    """`[n]` numbers in the answer that match no listed source."""
    listed = {int(s["n"]) for s in sources}
    return [n for n in citation_numbers(response) if n not in listed]


def cites_gold(sources: Sequence[dict[str, Any]], gold: Iterable[str]) -> bool:
    """Some listed (cited) source is a gold file."""
    wanted = set(gold)
    return any(s.get("source_file") in wanted for s in sources)


def is_refusal(response: dict[str, Any]) -> bool:
    """The refusal exactly, with no sources."""
    return response.get("response", "").strip() == REFUSAL and not response.get("sources")


def rate(flags: Iterable[bool | None]) -> float | None:
    """Share of true values, ignoring None (not applicable); None when nothing applies."""
    values = [bool(f) for f in flags if f is not None]
    return sum(values) / len(values) if values else None


def mean(values: Iterable[float | None]) -> float | None:
    """Mean ignoring None; None when empty."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def percentile(values: Iterable[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100); None when empty."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]
