"""What the answer-unit vectors add to ingestion (issue 11: at most 15%).

    .venv/bin/python bench/unit_vectors_cost.py [--docs ../shared/eval/fastapi/docs] [--rounds 2]

Chunks the corpus once, then times, alternating A-B-B-A within one process so load drifts
cancel: (A) the chunk vectors alone, `embedder.embed(embedding_text(c))`, as ingestion did
before unit vectors; (B) `encode_chunks`, the chunk vectors and every unit's vector from the
same model run (span pooling, locating units, the few embedded on their own). Also counts
units and how many needed a model run of their own, and the packed bytes per chunk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from docent.ingest import doc_files
from docent.models.unit_vectors import encode_chunks, scored_units
from docent.retrieval.chunking import chunk_markdown, embedding_text
from docent.retrieval.embeddings import MiniLMEmbedder
from docent.retrieval.store import pack

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=Path,
                    default=ROOT.parent / "shared" / "eval" / "fastapi" / "docs")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    embedder = MiniLMEmbedder(threads=args.threads)
    chunks = []
    for path in doc_files(args.docs):
        rel = path.relative_to(args.docs).as_posix()
        chunks += chunk_markdown(path.read_text(encoding="utf-8"), rel,
                                 count_tokens=embedder.count_tokens, max_tokens=256)
    texts = [embedding_text(c) for c in chunks]
    embedder.embed(texts[:8])  # load the model outside the timings
    timings: dict[str, list[float]] = {"chunks only": [], "chunks + units": []}
    for _ in range(args.rounds):
        for name in ("chunks only", "chunks + units", "chunks + units", "chunks only"):
            began = time.perf_counter()
            if name == "chunks only":
                for start in range(0, len(texts), 32):
                    embedder.embed(texts[start : start + 32])
            else:
                for start in range(0, len(chunks), 32):
                    encode_chunks(embedder, chunks[start : start + 32])
            timings[name].append(time.perf_counter() - began)
    _, tables = encode_chunks(embedder, chunks)
    units = sum(len(scored_units(c.text)) for c in chunks)
    stored = sum(len(t) for t in tables)
    packed = statistics.mean(len(pack(t)[1]) for t in tables)
    print(f"{len(chunks)} chunks, {units} scored units ({stored} vectors stored), "
          f"{packed:.0f} packed bytes per chunk; load average {os.getloadavg()[0]:.1f}")
    for name, values in timings.items():
        print(f"{name:16} " + " ".join(f"{v:6.1f}s" for v in values)
              + f"   median {statistics.median(values):.1f}s")
    ratio = statistics.median(timings["chunks + units"]) / statistics.median(timings["chunks only"])
    print(f"unit vectors add {100 * (ratio - 1):+.1f}% to the embedding time")


if __name__ == "__main__":
    main()
