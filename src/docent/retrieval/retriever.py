"""Hybrid search: Chroma vectors and BM25 keywords fused by reciprocal rank, with a cache."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from cachetools import LRUCache

from docent.config import Settings
from docent.retrieval.bm25 import KeywordIndex
from docent.retrieval.cache import CacheInfo, ResultCache, cache_key
from docent.retrieval.embeddings import Embedder, MiniLMEmbedder
from docent.retrieval.evidence import states_value
from docent.retrieval.fusion import boost_by_file, diversify, reciprocal_rank_fusion
from docent.retrieval.store import DocStore, UnitVectors, open_store
from docent.retrieval.sufficiency import (
    GENERIC,
    coverage,
    unknown_names,
    unknown_words,
    without,
)
from docent.retrieval.types import Chunk, Hit

_QUERY_VECTORS = 1024  # recent query vectors kept (1.5 KB each)


def build_retriever(settings: Settings, embedder: Embedder | None = None,
                    cache: ResultCache | None = None) -> HybridRetriever:
    """The store and retriever a process serves from; the model itself loads on first use."""
    embedder = embedder or MiniLMEmbedder()
    return HybridRetriever(open_store(settings, embedder), embedder, settings, cache=cache)


class HybridRetriever:
    """The Retriever the agent uses, over one DocStore.

    Order: vector and BM25 rankings (`depth` each) fused by reciprocal rank (`rrf_k`),
    chunks boosted by other candidates from their file (`file_weight`, `file_decay`), then at
    most `per_file` chunks of one file in the top `k` (0: no limit), followed by up to `expand`
    more chunks of the best file (each at most `expand_chars` long; the sufficiency check
    reads only the top `k`). Defaults measured in
    bench/retrieval_quality.py. `Hit.score` is the cosine similarity of query and chunk
    vectors, clipped to 0..1, for every hit, keyword-only ones included; it never sets order.
    """

    def __init__(
        self,
        store: DocStore,
        embedder: Embedder,
        settings: Settings,
        *,
        depth: int = 30,
        rrf_k: int = 20,
        vector_weight: float = 1.0,
        keyword_weight: float = 1.0,
        file_weight: float = 0.3,
        file_decay: float = 0.4,
        per_file: int = 1,
        expand: int = 2,
        expand_chars: int = 1500,
        min_coverage: float | None = None,
        check_names: bool | None = None,
        max_unknown_shift: float | None = None,
        check_values: bool | None = None,
        cache: ResultCache | None = None,
    ) -> None:
        self.store = store
        self.min_coverage = settings.min_coverage if min_coverage is None else min_coverage
        self.check_names = settings.refuse_unknown_names if check_names is None else check_names
        self.max_unknown_shift = (
            settings.max_unknown_shift if max_unknown_shift is None else max_unknown_shift
        )
        self.check_values = (
            settings.refuse_missing_values if check_values is None else check_values
        )
        self.embedder = embedder
        self.depth = depth
        self.rrf_k = rrf_k
        self.weights = (vector_weight, keyword_weight)
        self.file_weight = file_weight
        self.file_decay = file_decay
        self.per_file = per_file
        self.expand = expand
        self.expand_chars = expand_chars
        self._cache = cache or ResultCache(
            settings.retrieval_cache_size, settings.retrieval_cache_ttl_seconds
        )
        self._index: KeywordIndex | None = None
        self._index_fingerprint: str | None = None
        self._index_lock = threading.Lock()
        # Query vectors by text: the answerer reads the question's vector the search made.
        self._vectors: LRUCache[str, np.ndarray] = LRUCache(maxsize=_QUERY_VECTORS)
        self._vectors_lock = threading.Lock()

    def count(self) -> int:
        """Number of chunks indexed."""
        return self.store.count()

    def cache_info(self) -> CacheInfo:
        """Hits, misses and size of the results cache."""
        return self._cache.info()

    def search(self, query: str, k: int) -> list[Hit]:
        """The best `k` chunks for `query`, best first; [] for a blank query or empty store."""
        query = " ".join(query.split())
        if not query or k <= 0:
            return []
        fingerprint = self.store.fingerprint()
        # The fingerprint in the key makes any re-ingestion, by any process, a cache miss.
        key = cache_key(
            query, k, self.embedder.name, self.store.name, fingerprint, self.depth,
            self.rrf_k, self.weights, self.file_weight, self.file_decay, self.per_file,
            self.expand, self.expand_chars, self.min_coverage, self.check_names,
            self.max_unknown_shift, self.check_values,
        )
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        vector = self.query_vector(query)
        hits = self._search(query, k, fingerprint, vector)
        if hits and not self.sufficient(query, hits[:k], fingerprint, vector):
            return []  # the docs don't cover the question: counts as empty
        if hits and self.check_values and not self.states_value(query, hits, fingerprint):
            return []  # it asks for a value no passage gives
        self._cache.put(key, hits)
        return hits

    def query_vector(self, text: str) -> np.ndarray:
        """The embedding of `text` (whitespace-normalised), from a small cache when recent."""
        text = " ".join(text.split())
        with self._vectors_lock:
            vector = self._vectors.get(text)
        if vector is None:
            vector = self.embedder.embed([text])[0]
            with self._vectors_lock:
                self._vectors[text] = vector
        return vector

    def unit_vectors(self, chunk_ids: Sequence[str]) -> dict[str, UnitVectors]:
        """Stored answer-unit vectors by chunk id (see docent.models.unit_vectors)."""
        return self.store.unit_vectors(chunk_ids)

    def sufficient(
        self, query: str, hits: list[Hit], fingerprint: str | None = None,
        vector: np.ndarray | None = None,
    ) -> bool:
        """Whether the hits can answer `query` (see `docent.retrieval.sufficiency`);
        `vector`, the query's embedding when the caller has it, saves embedding it again."""
        if self.check_names and self.unknown_names(query, fingerprint):
            return False
        if self.max_unknown_shift < 2 and (  # 2: off; a shift never exceeds it
            self.unknown_shift(query, fingerprint, vector) > self.max_unknown_shift
        ):
            return False
        return self.coverage(query, hits, fingerprint) >= self.min_coverage

    def states_value(self, query: str, hits: list[Hit], fingerprint: str | None = None) -> bool:
        """Whether the hits state the value `query` asks for, if it asks for one (see
        `docent.retrieval.evidence`)."""
        index = self.keyword_index(fingerprint)
        return states_value(query, hits, index.doc_freq, len(index.chunks), GENERIC)

    def unknown_names(self, query: str, fingerprint: str | None = None) -> list[str]:
        """Names in `query` the corpus never uses."""
        index = self.keyword_index(fingerprint)
        return unknown_names(query, index.doc_freq, index.raw_words)

    def unknown_shift(
        self, query: str, fingerprint: str | None = None, vector: np.ndarray | None = None
    ) -> float:
        """How far (1 - cosine) the question's vector moves when the words the corpus never
        uses are removed from it: 0 when there are none, 1 when nothing else is left."""
        index = self.keyword_index(fingerprint)
        unknown = unknown_words(query, index.doc_freq, index.raw_words, index.root_freq)
        if not unknown:
            return 0.0
        rest = without(query, unknown)
        if not rest:
            return 1.0
        if vector is None:
            vector = self.embedder.embed([query])[0]
        remaining = self.embedder.embed([rest])[0]
        return float(1.0 - np.dot(vector, remaining))

    def coverage(self, query: str, hits: list[Hit], fingerprint: str | None = None) -> float:
        """How much of the question the hits cover (see `docent.retrieval.sufficiency`)."""
        index = self.keyword_index(fingerprint)
        return coverage(query, hits, index.doc_freq, len(index.chunks), index.root_freq)

    def _search(self, query: str, k: int, fingerprint: str, vector: np.ndarray) -> list[Hit]:
        depth = max(self.depth, k)
        by_id: dict[str, Chunk] = {}
        similarity: dict[str, float] = {}
        rankings: list[list[str]] = []
        index = self.keyword_index(fingerprint)
        if self.weights[0] > 0:
            found = self.store.nearest(vector, depth)
            # The keyword index holds every chunk of this fingerprint; one written since
            # (an ingestion under way) is read from the store.
            known = index.by_id
            unknown = [i for i, _ in found if i not in known]
            extra = self.store.chunks(unknown) if unknown else {}
            found = [(i, sim) for i, sim in found if i in known or i in extra]
            for chunk_id, sim in found:
                by_id[chunk_id] = known.get(chunk_id) or extra[chunk_id]
                similarity[chunk_id] = sim
            rankings.append([i for i, _ in found])
        else:
            rankings.append([])
        if self.weights[1] > 0:
            found_kw = index.search(query, depth)
            for chunk, _ in found_kw:
                by_id.setdefault(chunk.chunk_id, chunk)
            rankings.append([c.chunk_id for c, _ in found_kw])
        else:
            rankings.append([])
        fused = reciprocal_rank_fusion(rankings, k=self.rrf_k, weights=self.weights)
        file_of = {i: c.source_file for i, c in by_id.items()}
        if self.file_weight:
            fused = boost_by_file(fused, file_of, weight=self.file_weight, decay=self.file_decay)
        ranked = diversify([i for i, _ in fused], file_of, k=k, per_file=self.per_file)
        top = ranked[:k] + self._more_of_top(ranked[:k], ranked[k:], by_id)
        missing = [i for i in top if i not in similarity]
        for chunk_id, stored in self.store.embeddings(missing).items():
            similarity[chunk_id] = float(np.dot(stored, vector))
        return [
            Hit(chunk=by_id[i], score=min(max(similarity.get(i, 0.0), 0.0), 1.0))
            for i in top
        ]

    def _more_of_top(self, top: list[str], rest: list[str], by_id: dict[str, Chunk]) -> list[str]:
        """Up to `expand` further chunks of the best file, best-ranked first, each at most
        `expand_chars` long: one chunk a file can miss the section that names the answer."""
        if not top or self.expand <= 0:
            return []
        best = by_id[top[0]].source_file
        return [
            i for i in rest
            if by_id[i].source_file == best and len(by_id[i].text) <= self.expand_chars
        ][: self.expand]

    def warm_up(self) -> None:
        """Load the embedding model and build the keyword index now, not on the first search."""
        self.embedder.embed(["warm up"])
        self.keyword_index()

    def keyword_index(self, fingerprint: str | None = None) -> KeywordIndex:
        """The BM25 index of the collection's contents, rebuilt when its fingerprint moves."""
        fingerprint = fingerprint if fingerprint is not None else self.store.fingerprint()
        with self._index_lock:
            if self._index is None or self._index_fingerprint != fingerprint:
                self._index = KeywordIndex(self.store.all_chunks())
                self._index_fingerprint = fingerprint
            return self._index
