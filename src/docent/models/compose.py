"""Compose a cited markdown answer from retrieved passages, extractively.

Every passage is cut into units (sentences, list items, table rows, code blocks). Each unit
is scored against the question by meaning (cosine of MiniLM vectors, computed at
ingestion: see `docent.models.unit_vectors`) and by words (IDF-weighted overlap), with a
prior for better-ranked passages. The best unit leads; its neighbours that belong with it
(the list an "as follows:" sentence introduces, the next sentence of the paragraph) and
the best units of the passages that are relevant enough become the key points, in
document order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from docent.exit_reasons import REFUSAL
from docent.models.text import Reference, terms
from docent.models.unit_vectors import AnswerVectors, unit_key
from docent.models.units import Unit, split_units

_MAX_UNIT_CHARS = 600
_MAX_CODE_LINES = 30
_MAX_POINTS = 10
# Score = cosine(question, unit) + _W_LEX * lexical (0..1) + a prior by passage rank.
# Without vectors the lexical score alone (weight 1) decides. Measured on the
# development sets of both eval corpora (bench/results); see the notes in CONTRACT.md.
_W_LEX = 0.35
_RANK_PRIOR = (0.15, 0.08, 0.04, 0.0, 0.0)
# Key points come from passages whose best unit scores >= _PASSAGE_SHARE of the lead's,
# units scoring >= _POINT_SHARE of it (_TOP_SHARE in the lead's own passage).
_PASSAGE_SHARE = 0.8
_POINT_SHARE = 0.6
_TOP_SHARE = 0.4
# A selected sentence takes the next one of its paragraph along when that one is short.
_TAIL_CHARS = 120
# A code block nobody introduces is shown only when it scores this share of the lead's.
_CODE_SHARE = 0.8
# ... or when its words match the question about as well as any unit's (lexical 0..1).
_CODE_LEX = 0.9


@dataclass(frozen=True)
class Candidate:
    """A unit of one passage with its scores."""

    ref: Reference
    pos: int
    unit: Unit
    terms: frozenset[str]
    page: int = 0
    lex: float = 0.0
    score: float = 0.0


def compose_answer(
    question: str, refs: Sequence[Reference], vectors: AnswerVectors | None = None
) -> str:
    """A cited markdown answer from the passages, or the refusal when none is relevant."""
    return "".join(compose_parts(question, refs, vectors))


def compose_parts(
    question: str, refs: Sequence[Reference], vectors: AnswerVectors | None = None
) -> Iterator[str]:
    """`compose_answer` in pieces, as they are decided: the heading and lead statement
    first (a stream can send them at once), then the rest."""
    cands = _candidates(refs)
    wanted = set(terms(question))
    if not any(c.terms & wanted for c in cands if not c.unit.is_code):
        yield REFUSAL
        return
    cands = _score(question, wanted, cands, refs, vectors)
    lead = max((c for c in cands if not c.unit.is_code), key=lambda c: c.score)
    yield f"## {lead.ref.topic}\n\n{_with_tail(lead, cands, [lead])} [{lead.ref.n}]"
    points = _key_points(lead, cands)
    code = _example(cands, lead, points)

    picked = [lead, *points]
    listed = {id(item): intro for intro in picked for item in _introduced(intro, cands)}
    under_lead = [c for c in points if listed.get(id(c)) is lead]
    points = [c for c in points if listed.get(id(c)) is not lead]

    parts = []
    if under_lead:  # the list the lead announces, right below it
        parts += ["", *(f"- {c.unit.text} [{c.ref.n}]" for c in under_lead)]
    if code:
        parts += ["", f"Example [{code.ref.n}]:", "", code.unit.text]
    if points:
        parts += ["", "### Key Points", ""]
        for c in points:
            nest = "  " if listed.get(id(c)) in points else ""  # under the point announcing it
            parts.append(f"{nest}- {_with_tail(c, cands, picked)} [{c.ref.n}]")
    if parts:
        yield "\n" + "\n".join(parts)


def _introduced(intro: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """The list items or rows a sentence ending in ":" announces."""
    if not intro.unit.text.rstrip().endswith(":"):
        return []
    return [c for c in _neighbours(intro, cands) if c.unit.kind in ("item", "row")]


def _key_points(lead: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """What goes with the lead, then the best units of relevant passages, in document order."""
    prose = [c for c in cands if not c.unit.is_code]
    best: dict[int, float] = {}
    for c in prose:
        best[c.page] = max(best.get(c.page, 0.0), c.score)
    relevant = {n for n, score in best.items() if score >= _PASSAGE_SHARE * lead.score}

    def enough(c: Candidate) -> bool:
        share = _TOP_SHARE if c.page == lead.page else _POINT_SHARE
        return c.page in relevant and c.score >= share * lead.score

    points = [c for c in _neighbours(lead, cands) if not c.unit.is_code]
    for c in sorted(filter(enough, prose), key=lambda c: -c.score):
        if len(points) >= _MAX_POINTS:
            break
        if c is not lead and all(_distinct(c, p) for p in [lead, *points]):
            points.append(c)
            if c.unit.text.rstrip().endswith(":"):  # and the list it introduces
                points += [
                    f
                    for f in _neighbours(c, cands)
                    if not f.unit.is_code and f not in points and f is not lead
                ]
    return sorted(points[:_MAX_POINTS], key=lambda c: (c.page, c.ref.n, c.pos))


def _with_tail(c: Candidate, cands: list[Candidate], picked: list[Candidate]) -> str:
    """The unit's text, and the next sentence of its paragraph when that one is short.

    Docs often put the fact in a short follow-up ("To do it, set `x=True`.").
    """
    if c.unit.kind != "prose":
        return c.unit.text
    nxt = next((d for d in cands if d.ref.n == c.ref.n and d.pos == c.pos + 1), None)
    if (
        nxt is None
        or nxt in picked
        or nxt.unit.kind != "prose"
        or nxt.unit.block != c.unit.block
        or len(nxt.unit.text) > _TAIL_CHARS
    ):
        return c.unit.text
    return f"{c.unit.text} {nxt.unit.text}"


def _candidates(refs: Sequence[Reference]) -> list[Candidate]:
    # A passage's page is the number of the first passage from its file: more passages of
    # one page (retrieval can add them) rank, and count as relevant, with that page.
    page: dict[str, int] = {}
    for ref in sorted(refs, key=lambda r: r.n):
        page.setdefault(_source(ref), ref.n)
    return [
        Candidate(ref, pos, unit, frozenset(terms(unit.text)), page[_source(ref)])
        for ref in refs
        for pos, unit in enumerate(_units(ref.body))
        if unit.is_code or len(unit.text) <= _MAX_UNIT_CHARS
    ]


@lru_cache(maxsize=2048)
def _units(body: str) -> tuple[Unit, ...]:
    """`split_units`, remembered: the same passages come back for related questions."""
    return tuple(split_units(body))


def _source(ref: Reference) -> str:
    """The file a passage came from: its heading reads `Title > Section (file)`."""
    where, _, file = ref.heading.rpartition(" (")
    return file.removesuffix(")") if where and file.endswith(")") else ref.heading


def _score(
    question: str, wanted: set[str], cands: list[Candidate], refs: Sequence[Reference],
    vectors: AnswerVectors | None,
) -> list[Candidate]:
    df = Counter(t for c in cands for t in c.terms & wanted)
    idf = {t: math.log(1 + len(cands) / df[t]) for t in df}
    lex = [
        sum(idf[t] for t in c.terms & wanted) / (1 + 0.15 * math.log(1 + len(c.terms)))
        for c in cands
    ]
    top = max(lex) or 1.0
    sem = [0.0] * len(cands)
    if vectors is not None:
        q = vectors.question(question)
        tables = vectors.units([(r.chunk_id, _where(r), r.body) for r in refs])
        by_n = {r.n: table for r, table in zip(refs, tables, strict=True)}
        for i, c in enumerate(cands):
            row = by_n.get(c.ref.n, {}).get(unit_key(c.unit.text))
            if row is not None:
                sem[i] = float(row @ q)
            elif c.unit.is_code and i:
                # Code is scored by its words and by the sentence that introduces it.
                sem[i] = sem[i - 1]
    w_lex = _W_LEX if vectors is not None else 1.0
    out = []
    for c, lx, sm in zip(cands, lex, sem, strict=True):
        prior = _prior(c)
        score = sm + w_lex * lx / top + prior
        out.append(Candidate(c.ref, c.pos, c.unit, c.terms, c.page, lx / top, score))
    return out


def _where(ref: Reference) -> str:
    """The passage's title and section, as ingestion put them before its text."""
    return ref.heading.rsplit(" (", 1)[0]


def _prior(c: Candidate) -> float:
    return _RANK_PRIOR[c.page - 1] if 0 < c.page <= len(_RANK_PRIOR) else 0.0


def _neighbours(lead: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """What belongs with a unit: what it introduces ("as follows:"), or the sentences
    around it that score close to it."""
    same = [c for c in cands if c.ref.n == lead.ref.n]
    at = same.index(lead)
    out: list[Candidate] = []
    if lead.unit.text.rstrip().endswith(":"):
        follow = same[at + 1 :]
        if follow and follow[0].unit.is_code:
            return follow[:1]
        follow = [c for c in follow if c.unit.kind in ("item", "row")]
        block = follow[0].unit.block if follow else -1
        out += [c for c in follow if c.unit.block == block][:_MAX_POINTS]
    else:
        for c in (same[at - 1] if at else None, same[at + 1] if at + 1 < len(same) else None):
            if c is not None and c.unit.block == lead.unit.block and c.score >= 0.5 * lead.score:
                out.append(c)
    return out


def _distinct(a: Candidate, b: Candidate) -> bool:
    if a.unit.text == b.unit.text:
        return False
    return len(a.terms & b.terms) / max(1, len(a.terms | b.terms)) < 0.7


def _example(cands: list[Candidate], lead: Candidate, points: list[Candidate]) -> Candidate | None:
    """One short code block: the one right after the lead or a key point (or its tail
    sentence), else the best on-topic one of a quoted passage."""
    short = [c for c in cands if c.unit.is_code and c.unit.text.count("\n") <= _MAX_CODE_LINES]
    at = {(c.ref.n, c.pos): c for c in cands}
    for intro in sorted([lead, *points], key=lambda c: -c.score):
        nxt = at.get((intro.ref.n, intro.pos + 1))
        if nxt is not None and nxt.unit.kind == "prose" and nxt.unit.block == intro.unit.block:
            nxt = at.get((intro.ref.n, intro.pos + 2))  # after the tail sentence
        if nxt in short:
            return nxt
    quoted = {lead.page, *(p.page for p in points)}
    code = [
        c
        for c in short
        if c.page in quoted and (c.score >= _CODE_SHARE * lead.score or c.lex >= _CODE_LEX)
    ]
    return max(code, key=lambda c: c.score, default=None)
