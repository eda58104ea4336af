"""Vectors of a passage's answer units, computed once at ingestion beside the chunk's own.

The extractive model scores every unit (sentence, list item, table row) of the retrieved
passages by meaning. Embedding them per request cost 75% of a `/chat` call, so they are
computed when the chunk is embedded, from the same model run: a unit's vector is the mean
of its tokens' states in the chunk (its meaning read in the context of its passage), which
costs no model time of its own. They are stored beside the chunk and keyed by a hash of
the unit's text, so a unit whose text changes is never paired with a stale vector.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from docent.models.units import Unit, split_units
from docent.retrieval.chunking import clean_for_embedding, embedding_text
from docent.retrieval.embeddings import Embedder, Span
from docent.retrieval.focus import question_vectors
from docent.retrieval.store import UnitVectors
from docent.retrieval.types import Chunk

# Bump when chunking (`docent.retrieval.chunking`), `split_units` or the way vectors are
# made changes: stores written by another version are re-chunked and re-embedded by the
# next ingestion (see docent.ingest).
UNITS_VERSION = 34

_WORD = re.compile(r"\w+")
# How far past the previous unit the next one may start, in words (chrome, headings and
# link-only lines between units are skipped by `split_units`).
_LOOKAHEAD = 60


def unit_key(text: str) -> str:
    """A short stable key of a unit's text."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def scored_units(body: str) -> list[Unit]:
    """The units of a passage that are scored by meaning (code is scored by its words)."""
    return [u for u in split_units(body.strip()) if not u.is_code]


def locate(units: Sequence[str], text: str, start: int = 0) -> list[Span | None]:
    """Where each unit lies in `text` (from `start`), in order, by aligning their words.

    Units are not verbatim substrings (list markers dropped, table rows named by their
    columns, link targets removed), so each is found as the window of `text` that holds
    the most of its words in order; None when fewer than half are found.
    """
    words = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text, start)]
    out: list[Span | None] = []
    at = 0
    for unit in units:
        want = [w.lower() for w in _WORD.findall(unit)]
        best: list[int] = []
        opening = set(want[:3])  # a unit starts with one of its first words
        for j0 in range(at, min(len(words), at + _LOOKAHEAD)):
            if words[j0][0] in opening:
                hits = _match(want, words, j0)
                if len(hits) > len(best):
                    best = hits
                    if len(best) == len(want):
                        break
        if len(best) * 2 < len(want) or not best:
            out.append(None)
            continue
        out.append((words[best[0]][1], words[best[-1]][2]))
        at = best[-1] + 1
    return out


def _match(want: list[str], words: list[tuple[str, int, int]], j0: int) -> list[int]:
    """Indexes of `words` matching `want` in order, greedily from `j0`, gaps of <= 8 words."""
    hits: list[int] = []
    pos = j0
    for w in want:
        for j in range(pos, min(len(words), pos + 8)):
            if words[j][0] == w:
                hits.append(j)
                pos = j + 1
                break
    return hits


def encode_chunks(
    embedder: Embedder, chunks: Sequence[Chunk]
) -> tuple[np.ndarray, list[UnitVectors]]:
    """The chunks' vectors (as `embedder.embed(embedding_text(c))`) and their units' vectors."""
    texts = [embedding_text(c) for c in chunks]
    bodies = [c.text for c in chunks]
    return encode(embedder, texts, bodies)


def encode(
    embedder: Embedder, texts: list[str], bodies: list[str]
) -> tuple[np.ndarray, list[UnitVectors]]:
    """Vectors of `texts`, and of the units of each body, which ends each text (cleaned).

    A unit the model's window does not reach (the tail of a long chunk) is embedded on
    its own, so every unit gets a vector.
    """
    units = [scored_units(b) for b in bodies]
    spans: list[list[Span]] = []
    found: list[list[int]] = []
    for text, body, mine in zip(texts, bodies, units, strict=True):
        start = len(text) - len(clean_for_embedding(body))
        # Located by their words as embedded: link targets and include paths cleaned out.
        located = locate([clean_for_embedding(u.text) for u in mine], text, max(start, 0))
        found.append([k for k, span in enumerate(located) if span is not None])
        spans.append([span for span in located if span is not None])
    vectors, pooled = embedder.embed_spans(texts, spans)
    out: list[UnitVectors] = []
    alone: list[tuple[int, str]] = []  # (chunk, unit text) embedded on their own
    for i, mine in enumerate(units):
        table: UnitVectors = {}
        rows = dict(zip(found[i], pooled[i], strict=True))
        for k, unit in enumerate(mine):
            row = rows.get(k)
            if row is not None and row.any():
                table[unit_key(unit.text)] = row
            else:
                alone.append((i, unit.text))
        out.append(table)
    if alone:
        for (i, text), row in zip(alone, embedder.embed([t for _, t in alone]), strict=True):
            out[i][unit_key(text)] = row
    return vectors, out


class UnitIndex(Protocol):
    """What the retriever offers the answerer: the vectors it already has."""

    def focus_vector(self, text: str) -> np.ndarray:
        """A search query's vector leaning to its asking part (see docent.retrieval.focus;
        cached: the search just embedded the query)."""
        ...

    def unit_vectors(self, chunk_ids: Sequence[str]) -> dict[str, UnitVectors]:
        """Stored unit vectors by chunk id, for the chunks that have them."""
        ...

    def chunk_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The chunks' own stored vectors by id, for the chunks that have them."""
        ...

    def respelled(self, text: str) -> str:
        """`text` with its typing slips read as the docs' words, as the search reads them
        (see docent.retrieval.spelling)."""
        ...


class AnswerVectors:
    """Vectors for composing an answer: the question's, and each passage's units'.

    With an index, both come from what retrieval already computed; a passage without
    stored unit vectors (an index built by an older docent) is encoded here, the same way
    ingestion does it, at the cost of one model run.
    """

    def __init__(self, embedder: Embedder, index: UnitIndex | None = None) -> None:
        self.embedder = embedder
        self.index = index

    def question(self, text: str) -> np.ndarray:
        """The question's vector to rank statements by: leaning to the sentence that asks,
        when others set the scene first (see docent.retrieval.focus)."""
        if self.index is not None:
            return self.index.focus_vector(text)
        return question_vectors(self.embedder, text)[1]

    def respelled(self, text: str) -> str:
        """The question as the search read it: its typing slips mended (see
        docent.retrieval.spelling); as typed without an index, or when the index fails."""
        if self.index is None:
            return text
        try:
            return self.index.respelled(text)
        except Exception:  # noqa: BLE001 - the store failing here is the search's to report
            return text

    def units(self, passages: Sequence[tuple[str | None, str, str]]) -> list[UnitVectors]:
        """Unit vectors of each (chunk id or None, heading, body) passage, in order."""
        ids = [cid for cid, _, _ in passages if cid]
        stored = self.index.unit_vectors(ids) if self.index is not None and ids else {}
        out: list[UnitVectors | None] = [stored.get(cid) if cid else None
                                         for cid, _, _ in passages]
        missing = [i for i, table in enumerate(out) if table is None]
        if missing:
            texts = [f"{passages[i][1]}\n\n{clean_for_embedding(passages[i][2])}" for i in missing]
            _, tables = encode(self.embedder, texts, [passages[i][2] for i in missing])
            for i, table in zip(missing, tables, strict=True):
                out[i] = table
        return [table or {} for table in out]

    def passages(self, passages: Sequence[tuple[str | None, str, str]]) -> list[np.ndarray]:
        """The vector of each (chunk id or None, heading, body) passage as a whole, as
        ingestion embeds it: the stored one when the index has it, else embedded now."""
        ids = [cid for cid, _, _ in passages if cid]
        stored = self.index.chunk_vectors(ids) if self.index is not None and ids else {}
        missing = [i for i, (cid, _, _) in enumerate(passages) if cid not in stored]
        texts = [f"{passages[i][1]}\n\n{clean_for_embedding(passages[i][2])}" for i in missing]
        embedded = dict(zip(missing, self.embedder.embed(texts) if texts else [], strict=True))
        return [stored[cid] if cid in stored else embedded[i]
                for i, (cid, _, _) in enumerate(passages)]

    def texts(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Vectors of units a stored table lacks (one stored by an older docent, whose
        `UNITS_VERSION` cut passages otherwise), each embedded on its own."""
        return list(self.embedder.embed(list(texts))) if texts else []
