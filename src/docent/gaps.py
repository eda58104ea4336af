"""The docs-gap report: questions the docs could not answer, grouped by similarity.

Opt-in (`DOCENT_GAP_LOG`, or `GAP_LOG`), because it keeps user questions; chat history
itself is never stored. Each refused question is appended as one JSON line.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from docent.retrieval.embeddings import Embedder
from docent.textfile import read_lines

_LOCK = threading.Lock()


def record_gap(log: Path, question: str) -> None:
    """Append a refused question to the gap log."""
    line = json.dumps({"timestamp": datetime.now(UTC).isoformat(), "question": question})
    with _LOCK:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


@dataclass(frozen=True)
class GapGroup:
    """Similar refused questions: how often, and which."""

    count: int
    example: str
    questions: list[str]


def read_gaps(log: Path) -> tuple[list[str], list[int]]:
    """The questions in a gap log, and the numbers of the lines that hold none (a line cut
    short when a server was killed mid-write, an edit by hand); blank lines are neither.
    ValueError when the log is a folder or not UTF-8 text."""
    questions, unread = [], []
    for n, line in enumerate(read_lines(log), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line).get("question")
        except (json.JSONDecodeError, AttributeError):
            q = None
        if isinstance(q, str) and q.strip():
            questions.append(q.strip())
        else:
            unread.append(n)
    return questions, unread


def group_gaps(questions: list[str], embedder: Embedder, threshold: float = 0.7) -> list[GapGroup]:
    """Greedy grouping by cosine similarity to each group's first question, biggest first."""
    if not questions:
        return []
    vectors = embedder.embed(questions)
    groups: list[tuple[np.ndarray, list[str]]] = []
    for question, vector in zip(questions, vectors, strict=True):
        best = max(range(len(groups)), key=lambda i: float(groups[i][0] @ vector), default=None)
        if best is not None and float(groups[best][0] @ vector) >= threshold:
            groups[best][1].append(question)
        else:
            groups.append((vector, [question]))
    ranked = sorted(groups, key=lambda g: -len(g[1]))
    return [GapGroup(len(qs), qs[0], qs) for _, qs in ranked]
