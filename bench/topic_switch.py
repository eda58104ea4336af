"""A new question in an old conversation: is it answered as well as asked alone?

Users keep one chat open and change the subject. A question of its own that happens to hold
"it", "that" or "one" ("What is a TLS termination proxy and why would I put one in front of
my app?") must not be read as a follow-up of the previous, unrelated question. For each
answerable question of a set, this asks it alone, then again as the second turn after
another question of the same set whose gold pages it does not share (a fixed seed), and
counts the answers carrying every keyword both ways. The pairs are built at run time: no
question text is copied anywhere.

    .venv/bin/python bench/topic_switch.py --docs ../shared/eval/fastapi/docs_with_code \
        --qa ../shared/eval/fastapi/qa_dev.jsonl --qa bench/questions/fastapi-fresh.jsonl

Genuine follow-ups are measured by `docent eval --followups` (bench/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from docent.config import Settings  # noqa: E402
from docent.evaluation.harness import (  # noqa: E402
    UNANSWERABLE,
    EvalConfig,
    collection_name,
    eval_settings,
    evaluate,
    load_jsonl,
)
from docent.ingest import ingest_path  # noqa: E402
from docent.runtime import build_runtime  # noqa: E402


def switch_pairs(questions: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Each answerable question after one on other gold pages, as a follow-up record."""
    rng = random.Random(seed)
    answerable = [q for q in questions if q.get("type") != UNANSWERABLE]
    pairs = []
    for q in answerable:
        others = [o for o in answerable if not set(o["gold_sources"]) & set(q["gold_sources"])]
        if not others:
            continue
        before = rng.choice(others)
        pairs.append({"id": q["id"], "turns": [before["question"], q["question"]],
                      "gold_sources": q["gold_sources"], "answer_keywords": q["answer_keywords"]})
    return pairs


async def measure(docs: Path, sets: list[Path], seed: int) -> dict[str, Any]:
    settings = eval_settings(Settings(), collection_name(docs))
    ingest_path(docs, settings, progress=False)
    runtime = build_runtime(settings)
    questions = [q for qa in sets for q in load_jsonl(qa)]
    with tempfile.TemporaryDirectory() as tmp:
        alone_file, pairs_file = Path(tmp) / "alone.jsonl", Path(tmp) / "pairs.jsonl"
        pairs = switch_pairs(questions, seed)
        asked = {p["id"] for p in pairs}
        alone_file.write_text("".join(json.dumps(q) + "\n" for q in questions if q["id"] in asked))
        pairs_file.write_text("".join(json.dumps(p) + "\n" for p in pairs))
        alone = (await evaluate(runtime, EvalConfig(docs=docs, qa=alone_file)))["questions"]
        empty = Path(tmp) / "none.jsonl"
        empty.write_text("")
        after = (await evaluate(runtime, EvalConfig(docs=docs, qa=empty,
                                                    followups=pairs_file)))["followups"]
    hit_alone = {r["id"]: r["keyword_hit"] for r in alone}
    lost = [r["id"] for r in after if hit_alone[r["id"]] and not r["keyword_hit"]]
    return {
        "questions": len(after),
        "keywords_alone": sum(hit_alone.values()),
        "keywords_after_another_question": sum(r["keyword_hit"] for r in after),
        "lost": lost,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--qa", type=Path, action="append", required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.docs, args.qa, args.seed)), indent=2))


if __name__ == "__main__":
    main()
