"""Calibrate DOCENT_MIN_COVERAGE on the development question sets.

For every question of ../shared/eval/*/qa_dev.jsonl (answerable and not) it prints the
coverage of the top-k hits (gate off), then, for candidate thresholds, the share of
unanswerable questions refused and of answerable ones falsely refused.

    .venv/bin/python bench/calibrate_sufficiency.py [--data-dir DIR] [--k 5]

Reuses `make eval`'s collections `eval-<corpus>-docs` under DIR (ingesting if needed,
incrementally).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from docent.config import load_settings
from docent.ingest import ingest_path
from docent.retrieval.retriever import build_retriever

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path(".docent"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--collection", default="eval-{corpus}-docs",
                        help="collection name pattern (make eval's by default)")
    args = parser.parse_args()

    rows: list[tuple[str, str, bool, float, list[str]]] = []
    for corpus in ("fastapi", "somnia"):
        settings = load_settings(
            data_dir=args.data_dir, collection=args.collection.format(corpus=corpus),
            retrieval_cache_size=0, min_coverage=0.0, refuse_unknown_names=False,
        )
        ingest_path(args.eval_dir / corpus / "docs", settings, progress=False)
        retriever = build_retriever(settings)
        for line in (args.eval_dir / corpus / "qa_dev.jsonl").read_text().splitlines():
            q = json.loads(line)
            hits = retriever.search(q["question"], args.k)
            cov = retriever.coverage(q["question"], hits) if hits else 0.0
            names = retriever.unknown_names(q["question"])
            rows.append((corpus, q["id"], q["type"] == "unanswerable", cov, names))

    for _corpus, qid, unanswerable, cov, names in sorted(rows, key=lambda r: r[3]):
        kind = "UNANSWERABLE" if unanswerable else "answerable  "
        print(f"{cov:5.2f}  {kind}  {qid}  unknown names: {names or '-'}")
    print("\nwith unknown-name refusal on, by coverage threshold:")
    print("threshold  refused(unanswerable)  false refusals(answerable)")
    bad = [r for r in rows if r[2]]
    good = [r for r in rows if not r[2]]
    for t in [x / 20 for x in range(4, 17)]:
        refused = sum(r[3] < t or bool(r[4]) for r in bad) / max(len(bad), 1)
        false = sum(r[3] < t or bool(r[4]) for r in good) / max(len(good), 1)
        print(f"  {t:4.2f}     {refused:5.2f}                  {false:5.2f}")


if __name__ == "__main__":
    main()
