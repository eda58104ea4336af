"""Calibrate the sufficiency check (CONTRACT.md, "Sufficiency") on the development sets.

For every question of ../shared/eval/*/qa_dev.jsonl, plus the first turn of every
qa_followup.jsonl conversation (standalone answerable questions: more data against false
refusals), it prints the three signals with all checks off: unknown names, the shift of
the question's vector when its unknown words are removed, and the coverage of the top-k
hits. Then, for candidate thresholds of each numeric signal (the other checks at their
defaults), the share of unanswerable questions refused and of answerable ones falsely
refused.

    .venv/bin/python bench/calibrate_sufficiency.py [--data-dir DIR] [--k 5] [--lowercase]

--lowercase asks every question typed all in lower case, as many people type: the
robustness check for the signals that read capitals.

Reuses `make eval`'s collections `eval-<corpus>-docs` under DIR (ingesting if needed,
incrementally).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from docent.config import Settings, load_settings
from docent.ingest import ingest_path
from docent.retrieval.retriever import build_retriever

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"


@dataclass(frozen=True)
class Row:
    qid: str
    unanswerable: bool
    names: list[str]
    shift: float
    coverage: float

    def refused(self, shift: float, coverage: float) -> bool:
        return bool(self.names) or self.shift > shift or self.coverage < coverage


def questions(corpus_dir: Path) -> list[tuple[str, str, bool]]:
    """(id, question, unanswerable) for the dev set and the follow-ups' first turns."""
    out = []
    for line in (corpus_dir / "qa_dev.jsonl").read_text().splitlines():
        q = json.loads(line)
        out.append((q["id"], q["question"], q["type"] == "unanswerable"))
    followups = corpus_dir / "qa_followup.jsonl"
    if followups.is_file():
        for line in followups.read_text().splitlines():
            q = json.loads(line)
            out.append((f"{q['id']}/1", q["turns"][0], False))
    return out


def measure(
    eval_dir: Path, data_dir: Path, collection: str, k: int, lowercase: bool = False
) -> list[Row]:
    rows = []
    for corpus in ("fastapi", "somnia"):
        settings = load_settings(
            data_dir=data_dir, collection=collection.format(corpus=corpus),
            retrieval_cache_size=0, min_coverage=0.0, refuse_unknown_names=False,
            max_unknown_shift=2.0,
        )
        ingest_path(eval_dir / corpus / "docs", settings, progress=False)
        retriever = build_retriever(settings)
        for qid, question, unanswerable in questions(eval_dir / corpus):
            question = question.lower() if lowercase else question
            hits = retriever.search(question, k)
            rows.append(Row(
                qid, unanswerable, retriever.unknown_names(question),
                retriever.unknown_shift(question),
                retriever.coverage(question, hits) if hits else 0.0,
            ))
    return rows


def sweep(rows: list[Row], name: str, values: list[float], refused_at) -> None:
    bad = [r for r in rows if r.unanswerable]
    good = [r for r in rows if not r.unanswerable]
    print(f"\n{name:>10}  refused(unanswerable, {len(bad)})  false refusals(answerable, "
          f"{len(good)})")
    for v in values:
        refused = sum(refused_at(r, v) for r in bad) / max(len(bad), 1)
        false = sum(refused_at(r, v) for r in good) / max(len(good), 1)
        print(f"{v:10.2f}  {refused:8.2f}                   {false:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path(".docent"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--collection", default="eval-{corpus}-docs",
                        help="collection name pattern (make eval's by default)")
    parser.add_argument("--lowercase", action="store_true",
                        help="ask every question typed in lower case")
    args = parser.parse_args()
    rows = measure(args.eval_dir, args.data_dir, args.collection, args.k, args.lowercase)
    defaults = Settings()

    print("shift  coverage  kind          question  unknown names")
    for r in sorted(rows, key=lambda r: (-r.shift, r.coverage)):
        kind = "UNANSWERABLE" if r.unanswerable else "answerable  "
        print(f"{r.shift:5.2f}  {r.coverage:8.2f}  {kind}  {r.qid}  {r.names or '-'}")
    sweep(rows, "max shift", [x / 100 for x in range(10, 42, 2)],
          lambda r, v: r.refused(v, defaults.min_coverage))
    sweep(rows, "min cover", [x / 20 for x in range(4, 17)],
          lambda r, v: r.refused(defaults.max_unknown_shift, v))
    print(f"\ndefaults (names on, max shift {defaults.max_unknown_shift}, "
          f"min coverage {defaults.min_coverage}):")
    sweep(rows, "", [defaults.min_coverage],
          lambda r, v: r.refused(defaults.max_unknown_shift, v))


if __name__ == "__main__":
    main()
