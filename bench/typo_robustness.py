"""Answers to questions typed with a slip: the same answerable questions as written and
with two neighbouring letters swapped in one word.

    .venv/bin/python bench/typo_robustness.py [--data-dir DIR] [--seed 7]

For each shared corpus, the answerable questions of qa_dev.jsonl and of bench/questions'
holdout10 to holdout19 that have a lower-case word of five letters or more outside code
get one slip in one such word, chosen by the seed ("paarmeter", "sohuld"). Both versions
go through the evaluation harness in-process (the extractive model, as `docent eval`
runs it); one row per corpus and version: answer keywords, leads, false refusals,
recall@5. Ingests each corpus into its own collection under DIR (a temp dir by default;
reuse one to skip re-embedding).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import tempfile
from pathlib import Path

from docent.config import load_settings
from docent.evaluation.harness import EvalConfig, eval_settings, evaluate
from docent.ingest import ingest_path
from docent.runtime import build_runtime

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
DOCS = {"fastapi": "docs_with_code", "somnia": "docs"}
# A lower-case word of five letters or more, not in code or a name with dots or dashes.
_WORD = re.compile(r"(?<![`\w.-])[a-z]{5,}(?![`\w.(-])")


def with_slip(question: str, rng: random.Random) -> str | None:
    """`question` with two neighbouring letters of one word swapped (not its first)."""
    words = list(_WORD.finditer(question))
    if not words:
        return None
    m = rng.choice(words)
    word, i = m.group(), rng.randrange(1, len(m.group()) - 1)
    slipped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if slipped == word:
        return None
    return question[:m.start()] + slipped + question[m.end():]


def question_sets(corpus: str, eval_dir: Path, rng: random.Random) -> tuple[list, list]:
    """(as written, with a slip): the answerable questions that can take one."""
    files = [eval_dir / corpus / "qa_dev.jsonl",
             *(ROOT / "bench" / "questions" / f"{corpus}-holdout{n}.jsonl" for n in range(10, 20))]
    written, slipped = [], []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["type"] == "unanswerable":
                continue
            typed = with_slip(record["question"], rng)
            if typed is not None:
                written.append(record)
                slipped.append({**record, "question": typed})
    return written, slipped


def totals(report: dict) -> str:
    rows = report["questions"]
    kw = sum(bool(r["keyword_hit"]) for r in rows)
    lead = sum(bool(r["lead_has_keyword"]) for r in rows)
    refused = sum(bool(r["refused"]) for r in rows)
    r5 = sum(bool(r["recall_at_5"]) for r in rows)
    return f"{len(rows):>4} {kw:>9} {lead:>6} {refused:>16} {r5:>9}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data_dir or Path(tmp) / "data"
        print(f"{'corpus':8} {'version':11} {'n':>4} {'keywords':>9} {'leads':>6} "
              f"{'false refusals':>16} {'recall@5':>9}")
        for corpus, folder in DOCS.items():
            docs = args.eval_dir / corpus / folder
            settings = eval_settings(load_settings(data_dir=data), f"typo-{corpus}")
            ingest_path(docs, settings, progress=False)
            runtime = build_runtime(settings)
            written, slipped = question_sets(corpus, args.eval_dir, rng)
            for version, records in (("as written", written), ("one slip", slipped)):
                qa = Path(tmp) / f"{corpus}-{version.replace(' ', '-')}.jsonl"
                qa.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
                report = asyncio.run(evaluate(runtime, EvalConfig(docs=docs, qa=qa)))
                print(f"{corpus:8} {version:11} {totals(report)}", flush=True)
            runtime.close()


if __name__ == "__main__":
    main()
