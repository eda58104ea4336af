"""Keyword search over chunks with bm25s, and the tokenisation both sides share."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from typing import Any

from docent.retrieval.chunking import embedding_text
from docent.retrieval.types import Chunk

RAW_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9/_.+#-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_WORD = re.compile(r"[A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# A hex number (an address, a hash): one term. Split like a camelCase name, one address
# made 31 terms of single letters and digits ("0", "x", "5", "e", "44", "f", ...), and a
# table of five contract addresses read as a chunk of 140 terms (33 now; the median chunk
# has 78), so BM25's length normalisation buried the one row naming "WSOMI".
_HEX = re.compile(r"0x[0-9a-fA-F]+|(?=[a-fA-F]*[0-9])(?=[0-9]*[a-fA-F])[0-9a-fA-F]{16,}")
_ACRONYM_PLURAL = re.compile(r"[A-Z][A-Z0-9]*[A-Z]s")  # APIs, JWTs, LPs, NFTs
# bm25s's English list plus question words, which say nothing about a passage, and what
# a contraction leaves of its verb ("doesn't", "we're": "doesn", "re").
_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with i me my we our you your he she him her its "
    "do does did doing can could should would how what when where which who whom why "
    "have has had having am been being from so than too very just about "
    "re ve ll doesn don isn aren wasn weren hasn haven hadn wouldn shouldn couldn didn".split()
)


def new_bm25() -> Any:
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets itself to DEBUG
    return bm25s.BM25()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix stripper: enough to match "configured" with "configure"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("eed"):
            word = word[: -len(suffix)] + repl
            if repl == "" and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # running -> run
            break
    else:
        if word.endswith("ly") and len(word) >= 6:
            word = word[:-2]  # officially -> official
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


# Derivational endings, longest first: "deployment" and "deploy" share the root "deploy".
_DERIVATIONAL = ("ments", "ment", "ations", "ation", "ions", "ion", "ers", "er", "ors", "or")


def root(term: str) -> str:
    """A stemmed term without one derivational ending, for asking whether the docs use a
    word in another form: deployment -> deploy, configuration -> configur (= configure)."""
    for suffix in _DERIVATIONAL:
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


def tokenize(text: str) -> list[str]:
    """Lower-cased, stemmed terms; identifiers also yield their parts: max_length -> max.
    An acronym's plural is its singular (APIs -> api), not two parts ("ap", "is")."""
    terms: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        lowered = word.lower()
        if word == lowered and word.isalpha():  # most words: nothing to split
            if word not in _STOPWORDS:
                terms.append(stem(word))
            continue
        if _HEX.fullmatch(word):
            terms.append(lowered)
            continue
        if _ACRONYM_PLURAL.fullmatch(word):
            terms.append(stem(lowered[:-1]))
            continue
        parts = [p for piece in re.split(r"[_.]", word) for p in _CAMEL.findall(piece)]
        if lowered not in _STOPWORDS:
            terms.append(stem(lowered))
        if len(parts) > 1:
            terms.extend(stem(p.lower()) for p in parts if p.lower() not in _STOPWORDS)
    return terms


# Release notes and changelogs, by file name: they mention what they document nowhere else.
_CHANGELOG = re.compile(
    r"(?:^|/)(?:release[-_ ]?notes|change[-_ ]?log|changes)(?:\.[a-z0-9]+)*$", re.I
)


@lru_cache(maxsize=4096)
def is_changelog(source_file: str) -> bool:
    """Whether a file is a project's release notes or changelog (`release-notes.md`);
    remembered, as every search asks it of each candidate's file."""
    return bool(_CHANGELOG.search(source_file))


@dataclass(frozen=True)
class Changelog:
    """Words (as written, lower-cased) and terms the corpus uses only in its changelogs."""

    words: frozenset[str] = frozenset()
    terms: frozenset[str] = frozenset()


# File name extensions: the last part of "main.py" names no attribute.
EXTENSIONS = frozenset(
    "py js ts jsx tsx mjs cjs md mdx rst json yaml yml toml txt html css sol rs go sh".split())


def _with_name_tails(words: Iterable[str]) -> frozenset[str]:
    """The words, the last part of each path among them, and the attribute each dotted
    name ends in: the docs that write `status.HTTP_201_CREATED` use `HTTP_201_CREATED`."""
    words = frozenset(words)
    tails = {w.rsplit("/", 1)[-1] for w in words if "/" in w}
    for w in words:
        dotted = w.split(".")
        if (len(dotted) > 1 and dotted[-1] not in EXTENSIONS
                and all(p.isidentifier() for p in dotted)):
            tails.add(dotted[-1])
    return words | tails


def _in_page_order(page: Sequence[Chunk], at: Sequence[int]) -> bool:
    """Whether a page's chunks, at positions `at` of the store's list, are in the page's
    own order: written in one piece (an ingestion writes a page's chunks in order; one that
    re-ingests a changed page keeps its unchanged chunks where they were and appends the
    new ones, out of order), with each section's chunks together."""
    sections = [title for title, _ in groupby(c.section_title for c in page)]
    return at[-1] - at[0] == len(at) - 1 and len(sections) == len(set(sections))


class KeywordIndex:
    """A BM25 index over the `embedding_text` of a fixed list of chunks."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        corpus = [tokenize(embedding_text(c)) for c in chunks]
        # In how many chunks each term occurs: the sufficiency check weighs terms by it.
        doc_freq: Counter[str] = Counter(t for terms in corpus for t in set(terms))
        # Every word as written (lower-cased), so "http/3" or "grpc" can be looked up whole;
        # and what only a changelog says: "Azure" in a release note documents nothing of it.
        docs_words: set[str] = set()
        log_words: set[str] = set()
        docs_terms: set[str] = set()
        for chunk, terms in zip(chunks, corpus, strict=True):
            words = (w.lower() for w in RAW_WORD.findall(chunk.text))
            if is_changelog(chunk.source_file):
                log_words.update(words)
            else:
                docs_words.update(words)
                docs_terms.update(terms)
        raw_words = _with_name_tails(docs_words | log_words)
        changelog_only = Changelog(raw_words - _with_name_tails(docs_words),
                                   frozenset(doc_freq.keys() - docs_terms))
        bm25 = new_bm25()
        if chunks:
            bm25.index(corpus, show_progress=False)
        self._set(list(chunks), bm25, doc_freq, raw_words, changelog_only)

    @classmethod
    def from_parts(
        cls, chunks: list[Chunk], bm25: Any, doc_freq: Counter[str], raw_words: frozenset[str],
        changelog_only: Changelog,
    ) -> KeywordIndex:
        """An index from what `docent.retrieval.keyword_store` saved of one."""
        index = cls.__new__(cls)
        index._set(chunks, bm25, doc_freq, raw_words, changelog_only)
        return index

    def _set(
        self, chunks: list[Chunk], bm25: Any, doc_freq: Counter[str], raw_words: frozenset[str],
        changelog_only: Changelog,
    ) -> None:
        self.chunks = chunks
        self.by_id = {c.chunk_id: c for c in chunks}
        # Each page's chunks, and the chunk after each one where the order is the page's own.
        self.by_file: dict[str, list[Chunk]] = {}
        at: dict[str, list[int]] = {}
        for i, chunk in enumerate(chunks):
            self.by_file.setdefault(chunk.source_file, []).append(chunk)
            at.setdefault(chunk.source_file, []).append(i)
        self.following: dict[str, Chunk] = {
            a.chunk_id: b
            for file, page in self.by_file.items() if _in_page_order(page, at[file])
            for a, b in zip(page[:-1], page[1:], strict=True)
        }
        # ... and the chunk before each one, on the same terms.
        self.preceding: dict[str, Chunk] = {
            b.chunk_id: self.by_id[a] for a, b in self.following.items()
        }
        self._bm25 = bm25
        self.doc_freq = doc_freq
        # With the last part of every path the docs write ("myfile.txt" of
        # "/files//home/johndoe/myfile.txt", added when built, saved with them): a question
        # names a file by its own path.
        self.raw_words = raw_words
        self.changelog_only = changelog_only
        # doc_freq by root (the most frequent form's count): "deploy" when docs say "deployment".
        self.root_freq: dict[str, int] = {}
        for term, freq in doc_freq.items():
            r = root(term)
            self.root_freq[r] = max(self.root_freq.get(r, 0), freq)

    def uses(self, word: str) -> bool:
        """Whether the docs use a lower-cased word as written or in another form of it."""
        if word in self.raw_words:
            return True
        terms = tokenize(word)
        return bool(terms) and all(
            self.doc_freq.get(t, 0) > 0 or self.root_freq.get(root(t), 0) > 0 for t in terms)

    def chunks_writing(self, word: str) -> int:
        """In how many chunks the docs write a lower-cased word (a stopword: all of them);
        0 for one they never write, or write only in a changelog."""
        if word not in self.raw_words or word in self.changelog_only.words:
            return 0
        terms = tokenize(word)
        return self.doc_freq.get(terms[0], 0) if terms else len(self.chunks)

    @property
    def bm25(self) -> Any:
        """The bm25s model (unfitted when there are no chunks)."""
        return self._bm25

    def search(self, query: str, n: int) -> list[tuple[Chunk, float]]:
        """Up to `n` chunks sharing a term with `query`, best first, with BM25 scores."""
        terms = tokenize(query)
        if not self.chunks or not terms or n <= 0:
            return []
        # n_threads=0: in this thread (1 started a thread pool per query: 2% of a /chat).
        docs, scores = self._bm25.retrieve(
            [terms], k=min(n, len(self.chunks)), show_progress=False, n_threads=0
        )
        return [
            (self.chunks[int(d)], float(s))
            for d, s in zip(docs[0], scores[0], strict=True)
            if s > 0
        ]
