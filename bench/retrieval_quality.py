"""Retrieval quality on the shared corpora: recall@1, recall@5 and MRR@10 by source file.

    .venv/bin/python bench/retrieval_quality.py [--data-dir DIR] [--max-tokens 256]
        [--depth 30] [--vector-weight 1] [--keyword-weight 1] [--verbose]

Ingests each corpus into its own collection under DIR (a temp dir by default; reuse one to
skip re-embedding), then scores the answerable questions of qa_dev.jsonl (conventions in
../shared/eval/README.md). Prints one row per corpus and mode: hybrid (the tuned defaults,
or the flags), rrf60 (plain RRF k=60, no file boost, no per-file cap), vector, BM25.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from docent.config import load_settings
from docent.ingest import ingest_path
from docent.retrieval.embeddings import MiniLMEmbedder
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import open_store

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
CORPORA = ("fastapi", "somnia")


def score(retriever: HybridRetriever, questions: list[dict], verbose: bool) -> dict[str, float]:
    """Mean recall@1, recall@5 and MRR@10 over `questions`."""
    r1 = r5 = mrr = 0.0
    for q in questions:
        gold = set(q["gold_sources"])
        files = [h.chunk.source_file for h in retriever.search(q["question"], 10)]
        r1 += bool(files[:1] and files[0] in gold)
        r5 += bool(gold & set(files[:5]))
        rank = next((i for i, f in enumerate(files, 1) if f in gold), 0)
        mrr += 1 / rank if rank else 0.0
        if verbose and rank != 1:
            print(f"  {q['id']} rank={rank or '-'} gold={sorted(gold)} top={files[:3]}")
    n = len(questions) or 1
    return {"recall@1": r1 / n, "recall@5": r5 / n, "mrr@10": mrr / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--depth", type=int, default=30)
    parser.add_argument("--rrf-k", type=int, default=20)
    parser.add_argument("--file-weight", type=float, default=0.3)
    parser.add_argument("--file-decay", type=float, default=0.4)
    parser.add_argument("--per-file", type=int, default=1)
    parser.add_argument("--vector-weight", type=float, default=1.0)
    parser.add_argument("--keyword-weight", type=float, default=1.0)
    parser.add_argument("--corpus", choices=CORPORA, action="append")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="docent-bench-"))
    embedder = MiniLMEmbedder()
    plain = {"rrf_k": 60, "file_weight": 0.0, "per_file": 0}
    tuned = {"rrf_k": args.rrf_k, "file_weight": args.file_weight,
             "file_decay": args.file_decay, "per_file": args.per_file}
    modes = {
        "hybrid": {"vector_weight": args.vector_weight,
                   "keyword_weight": args.keyword_weight, **tuned},
        "rrf60": plain,
        "vector": {"keyword_weight": 0.0, **plain},
        "bm25": {"vector_weight": 0.0, **plain},
    }
    print(f"data dir {data_dir}; max_tokens={args.max_tokens} depth={args.depth}; "
          f"hybrid={modes['hybrid']}")
    print(f"{'corpus':8} {'mode':7} {'R@1':>5} {'R@5':>5} {'MRR':>5}  ingest")
    for corpus in args.corpus or CORPORA:
        settings = load_settings(
            data_dir=data_dir, collection=f"bench-{corpus}-{args.max_tokens}",
            chunk_max_tokens=args.max_tokens, retrieval_cache_size=0,
        )
        store = open_store(settings, embedder)
        report = ingest_path(args.eval_dir / corpus / "docs", settings, store=store,
                             embedder=embedder, progress=False)
        rate = report.chunks_written / report.seconds if report.chunks_written else 0.0
        ingest = (f"{report.total_chunks} chunks, {report.seconds:.0f} s ({rate:.1f} chunks/s)"
                  if report.chunks_written else f"{report.total_chunks} chunks, reused")
        lines = (args.eval_dir / corpus / "qa_dev.jsonl").read_text().splitlines()
        questions = [q for q in map(json.loads, lines) if q["type"] != "unanswerable"]
        for mode, options in modes.items():
            retriever = HybridRetriever(store, embedder, settings, depth=args.depth, **options)
            started = time.perf_counter()
            m = score(retriever, questions, args.verbose and mode == "hybrid")
            ms = (time.perf_counter() - started) * 1000 / max(len(questions), 1)
            print(f"{corpus:8} {mode:7} {m['recall@1']:5.2f} {m['recall@5']:5.2f} "
                  f"{m['mrr@10']:5.2f}  {ingest if mode == 'hybrid' else ''} [{ms:.0f} ms/q]")


if __name__ == "__main__":
    main()
