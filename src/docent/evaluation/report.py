"""The evaluation report for people (a table) and for programs (JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The gates of the answer-quality issues (5 and 11): (metric, label, at least?, threshold).
TARGETS: list[tuple[str, str, bool, float]] = [
    ("recall_at_1", "recall@1", True, 0.85),
    ("recall_at_5", "recall@5", True, 0.97),
    ("mrr_at_10", "MRR@10", True, 0.90),
    ("keyword_hit_rate", "answer keywords all present", True, 0.75),
    ("lead_keyword_rate", "first statement has a keyword", True, 0.0),
    ("cited_gold_rate", "cites a gold file", True, 0.0),
    ("citation_validity", "citations valid", True, 1.0),
    ("refusal_rate_unanswerable", "unanswerable refused", True, 0.90),
    ("false_refusal_rate", "answerable refused (false)", False, 0.05),
    ("followup_recall_at_5", "follow-up recall@5 (last turn)", True, 0.90),
    ("followup_keyword_hit_rate", "follow-up keywords (last turn)", True, 0.0),
    ("followup_lead_keyword_rate", "follow-up first statement has a keyword", True, 0.0),
]

_HEADER = f"{'id':<22} {'type':<12} {'rank':>4} {'kw':>3} {'cite':>4} {'gold':>4}  " \
          f"{'exit':<22} {'ms':>6}  notes"


def _mark(flag: bool | None) -> str:
    return "-" if flag is None else ("✓" if flag else "✗")


def question_header() -> str:
    """Column names of `question_line`."""
    return _HEADER


def question_line(kind: str, r: dict[str, Any]) -> str:
    """One compact line per question (kind "question") or follow-up conversation (kind
    "followup")."""
    notes = []
    if r.get("missing_keywords"):
        notes.append("missing " + ", ".join(r["missing_keywords"]))
    if r.get("invalid_citations"):
        notes.append(f"bad citations {r['invalid_citations']}")
    if kind == "question" and r["type"] == "unanswerable":
        notes.insert(0, "refused" if r["refused"] else "ANSWERED (should refuse)")
    elif r["refused"]:
        notes.insert(0, "FALSE REFUSAL")
    rank = r.get("gold_rank")
    shown_rank = "-" if rank is None else (str(rank) if rank else "miss")
    kind_label = "follow-up" if kind == "followup" else r.get("type") or "-"
    gold = r.get("cites_gold") if kind == "question" else None
    return (
        f"{r['id']:<22} {kind_label:<12} {shown_rank:>4} {_mark(r['keyword_hit']):>3} "
        f"{_mark(r['citations_valid']):>4} {_mark(gold):>4}  {r['exit_reason']:<22} "
        f"{r['latency_ms']:>6.0f}  {'; '.join(notes)}"
    ).rstrip()


def totals_table(summary: dict[str, Any], title: str = "") -> str:
    """Every rate with its target and whether it is met, then counts and latency."""
    lines = [title] if title else []
    lines.append(f"{'metric':<30} {'value':>6}  {'target':<8} ")
    for key, label, at_least, threshold in TARGETS:
        value = summary.get(key)
        if key not in summary:
            continue
        if value is None:
            lines.append(f"{label:<30} {'n/a':>6}")
            continue
        target, met = "", ""
        if threshold > 0 or not at_least:
            target = f"{'≥' if at_least else '≤'} {threshold:.2f}"
            ok = value >= threshold if at_least else value <= threshold
            met = "ok" if ok else "MISS"
        lines.append(f"{label:<30} {value:>6.3f}  {target:<8} {met}".rstrip())
    if summary.get("answer_words_p50") is not None:
        lines.append(f"{'answer words p50':<30} {summary['answer_words_p50']:>6.0f}")
    lines.append(
        f"{'latency p50 / p95 (ms)':<30} {summary['latency_p50_ms'] or 0:>6.0f} / "
        f"{summary['latency_p95_ms'] or 0:.0f}"
    )
    counts = f"{summary['answerable']} answerable, {summary['unanswerable']} unanswerable"
    if "followups" in summary:
        counts += f", {summary['followups']} follow-up pairs"
    lines.append(f"{'questions':<30} {counts}")
    return "\n".join(lines)


def write_json(report: dict[str, Any], path: Path) -> None:
    """The whole report, summary first, creating the folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
