"""docent benchmark: ingestion, /chat latency (cold and cached), retrieval latency, memory.

    .venv/bin/python bench/bench.py [--corpus docs] [--corpus fastapi] [--out FILE]

For each corpus (docent's own `docs/`, and `../shared/eval/fastapi/docs` when present):
fresh ingestion into a temporary data dir and a no-op re-ingest; retrieval latency
(`runtime.retriever.search`, caches off); `/chat` latency over HTTP through FastAPI's
TestClient on `create_app(settings, lambda _: runtime)` with the extractive model, cold
(caches on but empty: every question asked for the first time) and cached (the same
questions again).
Peak memory is the process's maxrss. Prints a table and writes JSON (default
bench/results/bench.json). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docent.config import Settings, load_settings
from docent.evaluation.metrics import percentile
from docent.ingest import ingest_path
from docent.runtime import build_runtime

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"

# Hand-written questions about docent itself, answered by its docs/.
DOCENT_QUESTIONS = [
    "How do I change the tool-call limit?",
    "What does the MAX_CONTEXT_REACHED exit reason mean?",
    "How do I point docent at my own documentation?",
    "Which fields does a source in the chat response have?",
    "How do I use Gemini instead of the offline model?",
    "How is markdown split into chunks during ingestion?",
    "Can several API replicas share one index?",
    "What does the retryable flag tell a client?",
    "How do I check the health of the server?",
    "Is chat history written to disk?",
]


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timings(fn: Callable[[str], Any], items: list[str]) -> list[float]:
    """Milliseconds of `fn(item)` for each item."""
    out = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - started) * 1000)
    return out


def p50_p95(values: list[float]) -> dict[str, float | None]:
    p50, p95 = percentile(values, 50), percentile(values, 95)
    return {"p50": round(p50, 1) if p50 is not None else None,
            "p95": round(p95, 1) if p95 is not None else None, "n": len(values)}


def load_questions(corpus_dir: Path) -> list[str]:
    lines = (corpus_dir / "qa_dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def bench_corpus(name: str, docs: Path, questions: list[str], data_dir: Path) -> dict[str, Any]:
    """Every measurement for one corpus, on a fresh store under `data_dir`."""
    from fastapi.testclient import TestClient

    from docent.api.app import create_app

    settings = load_settings(data_dir=data_dir, collection=f"bench-{name}")
    fresh = ingest_path(docs, settings, progress=False)
    noop = ingest_path(docs, settings, progress=False)
    result: dict[str, Any] = {
        "docs": str(docs),
        "files": fresh.files_seen,
        "chunks": fresh.total_chunks,
        "ingest_seconds": round(fresh.seconds, 2),
        "chunks_per_second": round(fresh.chunks_written / fresh.seconds, 1),
        "reingest_noop_seconds": round(noop.seconds, 2),
        "questions": len(questions),
    }

    # Retrieval alone, caches off; the first search loads the model and builds BM25.
    uncached: Settings = settings.model_copy(
        update={"retrieval_cache_size": 0, "llm_cache_size": 0}
    )
    runtime = build_runtime(uncached)
    started = time.perf_counter()
    runtime.retriever.search("warm-up", settings.top_k)
    result["first_search_ms"] = round((time.perf_counter() - started) * 1000, 1)
    result["retrieval_ms"] = p50_p95(
        timings(lambda q: runtime.retriever.search(q, settings.top_k), questions)
    )

    # /chat over HTTP with the default caches: first asks are cold, repeats are cached.
    # The per-client rate limit would otherwise stop a long question list.
    if "rate_limit_enabled" in Settings.model_fields:
        settings = settings.model_copy(update={"rate_limit_enabled": False})
    runtime = build_runtime(settings)
    with TestClient(create_app(settings, lambda _: runtime)) as client:
        cached: list[bool] = []

        def chat(q: str) -> None:
            r = client.post("/chat", json={"message": q})
            r.raise_for_status()
            cached.append(bool(r.json().get("metadata", {}).get("cached")))

        chat("warm-up question about the documentation")
        result["chat_cold_ms"] = p50_p95(timings(chat, questions))
        result["chat_cached_ms"] = p50_p95(timings(chat, questions))
        # Replies served from the model cache in the repeat pass (should be all of them).
        result["cached_replies"] = sum(cached[-len(questions):])
    result["peak_rss_mb_so_far"] = round(peak_rss_mb(), 1)
    return result


def print_table(results: dict[str, dict[str, Any]]) -> None:
    def ms(d: dict[str, Any]) -> str:
        return f"{d['p50']:.0f} / {d['p95']:.0f}"

    rows = [
        ("files / chunks", lambda r: f"{r['files']} / {r['chunks']}"),
        ("fresh ingest (s)", lambda r: f"{r['ingest_seconds']:.1f}"),
        ("chunks/s", lambda r: f"{r['chunks_per_second']:.1f}"),
        ("no-op re-ingest (s)", lambda r: f"{r['reingest_noop_seconds']:.2f}"),
        ("first search, model+BM25 (ms)", lambda r: f"{r['first_search_ms']:.0f}"),
        ("retrieval p50 / p95 (ms)", lambda r: ms(r["retrieval_ms"])),
        ("/chat cold p50 / p95 (ms)", lambda r: ms(r["chat_cold_ms"])),
        ("/chat cached p50 / p95 (ms)", lambda r: ms(r["chat_cached_ms"])),
        ("cached replies in repeat pass", lambda r: f"{r['cached_replies']}/{r['questions']}"),
        ("questions", lambda r: str(r["questions"])),
        ("peak RSS so far (MB)", lambda r: f"{r['peak_rss_mb_so_far']:.0f}"),
    ]
    names = list(results)
    print(f"{'':32}" + "".join(f"{n:>18}" for n in names))
    for label, cell in rows:
        print(f"{label:32}" + "".join(f"{cell(results[n]):>18}" for n in names))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=("docs", "fastapi"), action="append",
                        help="default: both (fastapi only when ../shared/eval exists)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "bench.json")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    import bm25s  # noqa: F401 - imported first: it sets its own logger to DEBUG on import

    logging.getLogger("bm25s").setLevel(logging.WARNING)

    corpora: dict[str, tuple[Path, list[str]]] = {}
    for name in args.corpus or ("docs", "fastapi"):
        if name == "docs":
            corpora[name] = (ROOT / "docs", DOCENT_QUESTIONS)
        elif (args.eval_dir / "fastapi" / "qa_dev.jsonl").is_file():
            corpus_dir = args.eval_dir / "fastapi"
            corpora[name] = (corpus_dir / "docs", load_questions(corpus_dir))
        else:
            print(f"skipping fastapi: {args.eval_dir / 'fastapi'} not found")

    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    for name, (docs, questions) in corpora.items():
        data_dir = Path(tempfile.mkdtemp(prefix=f"docent-bench-{name}-"))
        try:
            print(f"benchmarking {name} ({docs}) ...", flush=True)
            results[name] = bench_corpus(name, docs, questions, data_dir)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)

    print()
    print_table(results)
    report = {
        "results": results,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "chat_driver": "HTTP POST /chat via FastAPI TestClient over docent.api.app.create_app",
        "model": "extractive",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "timestamp": datetime.now(UTC).isoformat(),
    }
    print(f"\npeak RSS {report['peak_rss_mb']:.0f} MB; total {report['total_seconds']:.0f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
