"""Run a question set through the real agent and score every answer and every ranking.

The corpus is ingested (incrementally) into its own collection; each question then runs
through the compiled graph exactly as `/chat` runs it, and the harness also reads the
run's full retrieved-source list, which the public response does not carry (it lists
only the cited sources).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docent.chat import ChatTurn, Role, to_response
from docent.config import Settings, check_collection_name
from docent.evaluation import metrics as m
from docent.runtime import Runtime
from docent.textfile import read_lines

log = logging.getLogger(__name__)

UNANSWERABLE = "unanswerable"
_COLLECTION_CHARS = re.compile(r"[^A-Za-z0-9._-]+")

Record = dict[str, Any]


@dataclass(frozen=True)
class EvalConfig:
    """What to evaluate: a docs folder, its questions, and the agent's retrieval depth."""

    docs: Path
    qa: Path
    followups: Path | None = None
    k: int = 5
    collection: str | None = None


@dataclass(frozen=True)
class Run:
    """One agent run: the public response, the retrieved files in rank order, and its time."""

    response: dict[str, Any]
    retrieved: list[str]
    latency_ms: float


def collection_name(docs: Path) -> str:
    """`eval-<parent>-<folder>`, e.g. `eval-fastapi-docs`, within Chroma's naming rules."""
    parts = [p for p in docs.expanduser().resolve().parts[-2:] if p not in ("/", "")]
    name = _COLLECTION_CHARS.sub("-", "-".join(["eval", *parts])).strip("-._")
    return name[:63].rstrip("-._")


def eval_settings(settings: Settings, collection: str) -> Settings:
    """The settings with the eval collection and caches off, so every latency is a cold run."""
    try:
        check_collection_name(collection)
    except ValueError as e:
        raise ValueError(f"invalid collection name {collection!r}: {e}") from None
    return settings.model_copy(
        update={"collection": collection, "retrieval_cache_size": 0, "llm_cache_size": 0}
    )


def load_jsonl(path: Path) -> list[Record]:
    """One JSON object a line; blank lines are skipped. ValueError naming the file (and the
    line) when it is not UTF-8 text or a line is not a JSON object."""
    return [record for _, record in _numbered(path)]


def _numbered(path: Path) -> list[tuple[int, Record]]:
    records = []
    for n, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} line {n} is not valid JSON: {exc.msg}") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path} line {n} is not a JSON object")
        records.append((n, record))
    return records


def load_questions(path: Path) -> list[Record]:
    """A question set: every line a JSON object with a non-empty `"question"` string;
    `"gold_sources"` and `"answer_keywords"`, when given, lists of strings; `"id"`, when
    missing, the line's number ("line 3"). ValueError naming the file and the line."""
    return [_checked(path, n, q, {"question": _text}) for n, q in _numbered(path)]


def load_pairs(path: Path) -> list[Record]:
    """Follow-up conversations: `"turns"`, at least two non-empty strings (the last is
    scored), and the same optional fields as a question's."""
    return [_checked(path, n, q, {"turns": _turns}) for n, q in _numbered(path)]


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _turns(value: Any) -> bool:
    return isinstance(value, list) and len(value) >= 2 and all(map(_text, value))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_NEEDS = {"question": "a non-empty string", "turns": "a list of at least two questions",
          "gold_sources": "a list of paths", "answer_keywords": "a list of strings"}


def _checked(path: Path, n: int, record: Record, required: dict[str, Callable[[Any], bool]]
             ) -> Record:
    checks = {**required, "gold_sources": _strings, "answer_keywords": _strings}
    for key, ok in checks.items():
        if (key in required or key in record) and not ok(record.get(key)):
            got = "has none" if key not in record else f"has {json.dumps(record[key])[:60]}"
            raise ValueError(f"{path} line {n}: \"{key}\" must be {_NEEDS[key]} ({got})")
    return record if "id" in record else {"id": f"line {n}", **record}


async def ask(runtime: Runtime, turn: ChatTurn) -> Run:
    """Run the graph as `run_chat` does, also keeping every source it retrieved."""
    started = time.perf_counter()
    final: dict[str, Any] | None = None
    sources: list[dict[str, Any]] = []
    try:
        item: Any
        async for item in runtime.graph.astream(
            turn.inputs(), turn.config(), stream_mode=["updates", "values"]
        ):
            mode, chunk = item
            if mode == "values":
                final = chunk
                continue
            for update in chunk.values():
                if isinstance(update, dict) and "sources" in update:
                    sources = update["sources"]  # the run's whole list, renewed per search
    except Exception:
        log.exception("agent run failed", extra={"query_id": turn.query_id})
        final = None
    response = to_response(final, turn, started, runtime.model_id)
    latency = (time.perf_counter() - started) * 1000
    retrieved = [s["source_file"] for s in sorted(sources, key=lambda s: int(s["n"]))]
    return Run(response=response, retrieved=retrieved, latency_ms=round(latency, 1))


def score_question(q: Record, run: Run) -> Record:
    """The per-question record: retrieval, answer and refusal checks (None: not applicable)."""
    resp, gold = run.response, q.get("gold_sources", [])
    answerable = q.get("type") != UNANSWERABLE
    refused = m.is_refusal(resp)
    bad_cites = m.invalid_citations(resp["response"], resp["sources"])
    missing = m.missing_keywords(resp["response"], q.get("answer_keywords", []))
    return {
        "id": q["id"],
        "type": q.get("type", ""),
        "question": q["question"],
        "gold_sources": gold,
        "exit_reason": resp["exit_reason"],
        "refused": refused,
        "retrieved": run.retrieved,
        "cited": [s["source_file"] for s in resp["sources"]],
        "gold_rank": m.first_gold_rank(run.retrieved, gold, 10) if answerable else None,
        "recall_at_1": m.recall_at(run.retrieved, gold, 1) if answerable else None,
        "recall_at_5": m.recall_at(run.retrieved, gold, 5) if answerable else None,
        "reciprocal_rank": m.reciprocal_rank(run.retrieved, gold, 10) if answerable else None,
        "keyword_hit": not missing if answerable else None,
        "missing_keywords": missing if answerable else [],
        "lead_has_keyword": _lead(resp, q) if answerable else None,
        "answer_words": len(resp["response"].split()),
        "citations_valid": not bad_cites,
        "invalid_citations": bad_cites,
        "cites_gold": m.cites_gold(resp["sources"], gold) if answerable else None,
        "latency_ms": run.latency_ms,
        "response": resp["response"],
    }


def _lead(resp: Record, item: Record) -> bool | None:
    """Whether the answer's first statement holds a keyword; None when there are none."""
    keywords = item.get("answer_keywords")
    return m.lead_has_keyword(resp["response"], keywords) if keywords else None


def score_followup(item: Record, first: Run, last: Run, between: Sequence[Run] = ()
                   ) -> Record:
    """The last turn's retrieval and answer, asked after the first and the turns `between`
    them in the same session."""
    resp, gold = last.response, item.get("gold_sources", [])
    bad_cites = m.invalid_citations(resp["response"], resp["sources"])
    missing = m.missing_keywords(resp["response"], item.get("answer_keywords", []))
    return {
        "id": item["id"],
        "turns": item["turns"],
        "gold_sources": gold,
        "first_exit_reason": first.response["exit_reason"],
        "first_retrieved": first.retrieved,
        "exit_reason": resp["exit_reason"],
        "refused": m.is_refusal(resp),
        "retrieved": last.retrieved,
        "cited": [s["source_file"] for s in resp["sources"]],
        "gold_rank": m.first_gold_rank(last.retrieved, gold, 10),
        "recall_at_5": m.recall_at(last.retrieved, gold, 5),
        "keyword_hit": not missing,
        "missing_keywords": missing,
        "lead_has_keyword": _lead(resp, item),
        "citations_valid": not bad_cites and not any(
            m.invalid_citations(run.response["response"], run.response["sources"])
            for run in (first, *between)
        ),
        "invalid_citations": bad_cites,
        "latency_ms": last.latency_ms,
        "response": resp["response"],
    }


def summarize(questions: Sequence[Record], followups: Sequence[Record]) -> Record:
    """Totals: rates in 0..1 (None when nothing applies) and latency percentiles in ms."""
    answerable = [r for r in questions if r["type"] != UNANSWERABLE]
    unanswerable = [r for r in questions if r["type"] == UNANSWERABLE]
    latencies = [r["latency_ms"] for r in questions]
    summary: Record = {
        "questions": len(questions),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "recall_at_1": m.rate(r["recall_at_1"] for r in answerable),
        "recall_at_5": m.rate(r["recall_at_5"] for r in answerable),
        "mrr_at_10": m.mean(r["reciprocal_rank"] for r in answerable),
        "keyword_hit_rate": m.rate(r["keyword_hit"] for r in answerable),
        "lead_keyword_rate": m.rate(r["lead_has_keyword"] for r in answerable
                                    if r["lead_has_keyword"] is not None),
        "answer_words_p50": m.percentile(
            [r["answer_words"] for r in answerable if not r["refused"]], 50),
        "cited_gold_rate": m.rate(r["cites_gold"] for r in answerable),
        # Over every response of the run, follow-up turns included.
        "citation_validity": m.rate(r["citations_valid"] for r in [*questions, *followups]),
        "refusal_rate_unanswerable": m.rate(r["refused"] for r in unanswerable),
        "false_refusal_rate": m.rate(r["refused"] for r in answerable),
        "latency_p50_ms": m.percentile(latencies, 50),
        "latency_p95_ms": m.percentile(latencies, 95),
    }
    if followups:
        summary.update(
            followups=len(followups),
            followup_recall_at_5=m.rate(r["recall_at_5"] for r in followups),
            followup_keyword_hit_rate=m.rate(r["keyword_hit"] for r in followups),
            followup_lead_keyword_rate=m.rate(r["lead_has_keyword"] for r in followups
                                              if r["lead_has_keyword"] is not None),
            followup_latency_p50_ms=m.percentile([r["latency_ms"] for r in followups], 50),
        )
    return summary


def missing_gold(docs: Path, items: Sequence[Record]) -> list[str]:
    """Gold paths that are not files under `docs` (they could never be retrieved)."""
    gold = {g for item in items for g in item.get("gold_sources", [])}
    return sorted(g for g in gold if not (docs / g).is_file())


def read_sets(config: EvalConfig) -> tuple[list[Record], list[Record]]:
    """The questions and follow-up pairs of `config`, each line checked (ValueError)."""
    return (load_questions(config.qa),
            load_pairs(config.followups) if config.followups else [])


async def evaluate(
    runtime: Runtime,
    config: EvalConfig,
    *,
    on_record: Callable[[str, Record], None] | None = None,
    sets: tuple[list[Record], list[Record]] | None = None,
) -> Record:
    """Ask every question (and follow-up pair) and return the report, summary first;
    `sets` are `read_sets(config)` when the caller has read them already."""
    questions, pairs = sets if sets is not None else read_sets(config)
    started = datetime.now(UTC).isoformat()
    scored: list[Record] = []
    for q in questions:
        run = await ask(runtime, ChatTurn(message=q["question"], top_k=config.k))
        scored.append(score_question(q, run))
        if on_record:
            on_record("question", scored[-1])
    scored_pairs: list[Record] = []
    for item in pairs:
        # Every turn in order, each with the ones before it and their answers; the last is
        # scored.
        runs: list[Run] = []
        history: list[tuple[Role, str]] = []
        for text in item["turns"]:
            runs.append(await ask(runtime, ChatTurn(message=text, history=list(history),
                                                    top_k=config.k)))
            history += [("user", text), ("assistant", runs[-1].response["response"])]
        scored_pairs.append(score_followup(item, runs[0], runs[-1], runs[1:-1]))
        if on_record:
            on_record("followup", scored_pairs[-1])
    return {
        "summary": summarize(scored, scored_pairs),
        "config": {
            "docs": str(config.docs),
            "qa": str(config.qa),
            "followups": str(config.followups) if config.followups else None,
            "k": config.k,
            "collection": runtime.settings.collection,
            "model": runtime.model_id,
            "provider": runtime.settings.effective_provider,
            "chunk_max_tokens": runtime.settings.chunk_max_tokens,
            "caches": "off",
            "started_at": started,
        },
        "exit_reasons": dict(Counter(r["exit_reason"] for r in [*scored, *scored_pairs])),
        "warnings": [
            f"gold source not in the corpus: {g}"
            for g in missing_gold(config.docs, [*questions, *pairs])
        ],
        "questions": scored,
        "followups": scored_pairs,
    }


def run_eval(
    settings: Settings,
    config: EvalConfig,
    *,
    progress: bool = True,
    on_record: Callable[[str, Record], None] | None = None,
) -> Record:
    """Ingest the corpus into its eval collection (unchanged files skipped), then evaluate."""
    from docent.ingest import ingest_path
    from docent.runtime import build_runtime

    settings = eval_settings(settings, config.collection or collection_name(config.docs))
    sets = read_sets(config)  # a bad line fails before the ingestion
    ingested = ingest_path(config.docs, settings, progress=progress)
    runtime = build_runtime(settings)
    # Load the embedder and build the keyword index now, not inside the first question's time.
    runtime.retriever.search("warm-up", 1)
    report = asyncio.run(evaluate(runtime, config, on_record=on_record, sets=sets))
    report["ingest"] = {
        "files_seen": ingested.files_seen,
        "added": ingested.added,
        "updated": ingested.updated,
        "unchanged": ingested.unchanged,
        "removed": ingested.removed,
        "skipped": len(ingested.skipped),
        "chunks": ingested.total_chunks,
        "seconds": round(ingested.seconds, 2),
    }
    return report
