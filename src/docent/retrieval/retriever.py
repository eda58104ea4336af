"""Hybrid search: Chroma vectors and BM25 keywords fused by reciprocal rank, with a cache."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from cachetools import LRUCache

from docent.config import Settings
from docent.failures import exc_fields
from docent.retrieval import keyword_store
from docent.retrieval.announced import completed
from docent.retrieval.bm25 import KeywordIndex, is_changelog
from docent.retrieval.cache import CacheInfo, ResultCache, cache_key
from docent.retrieval.embeddings import Embedder, MiniLMEmbedder
from docent.retrieval.evidence import states_value
from docent.retrieval.exact import VectorTable
from docent.retrieval.focus import QuestionVectors, questions_vectors
from docent.retrieval.fusion import boost_by_file, diversify, reciprocal_rank_fusion
from docent.retrieval.spelling import respelled
from docent.retrieval.store import DocStore, UnitVectors, open_store
from docent.retrieval.sufficiency import (
    GENERIC,
    asked_part,
    asks_for_unknown,
    coverage,
    in_yes_no,
    known_api_names,
    pointed_scene,
    remember_terms,
    spelled_apart,
    unknown_names,
    unknown_words,
    unnamed_features,
    without,
)
from docent.retrieval.types import WARM_CHUNKS, Chunk, Hit

log = logging.getLogger(__name__)
# Recent questions whose vectors are kept (1.5 KB a vector: one for most questions, one
# more with a scene and one more per later ask).
_QUERY_VECTORS = 1024
# Unknown words that move the question's vector less than this are incidental paraphrase.
_INCIDENTAL_SHIFT = 0.1
# ... and unknown names that move it less than this are the user's own, named in passing
# (measured over 36 questions naming one: answerable ones 0.006-0.018 below it, and 0.057
# and 0.075; questions the docs cannot answer 0.041 and above).
_INCIDENTAL_NAME_SHIFT = 0.025
# A question's asking part searched alone, when the whole's passages miss the value it asks
# for, has at least this many words: a shorter one leans on the scene before it.
_MIN_ASKED_WORDS = 6
# Stored vectors read back per chunk, kept for the chunks asked for most recently: reading
# a passage's unit vectors from Chroma was a third of composing an answer. A chunk's unit
# vectors are ~12 KB, its own 1.5 KB. `warm_up` reads those of up to WARM_CHUNKS chunks.
_UNIT_TABLES = WARM_CHUNKS
_WARM_PAGE = 500  # chunks per read when warming up
_CHUNK_VECTORS = 4096
# A page's second chunk joins the hits when it ranks among the first _RUNNER_UP_REACH * k
# of the fused ranking (2: measured over the evaluation sets, 7 to 12 of the first places
# for k = 5 gave the same answers within one keyword).
_RUNNER_UP_REACH = 2
# ... or among the first _EITHER_TOP of either search (3: over the read sets, 2 and 5 gave
# the same answers within one keyword).
_EITHER_TOP = 3
# The best page's section whose best statement is this close to the question, relative
# to the best statement of the passages already found, is the fifth further chunk.
_CLOSEST_SHARE = 0.85


def build_retriever(settings: Settings, embedder: Embedder | None = None,
                    cache: ResultCache | None = None) -> HybridRetriever:
    """The store and retriever a process serves from; the model itself loads on first use."""
    embedder = embedder or MiniLMEmbedder()
    return HybridRetriever(open_store(settings, embedder), embedder, settings, cache=cache)


@dataclass(frozen=True)
class Unknown:
    """What a question names that the corpus never uses: names in its asking part
    (`unknown_names`) and words (`unknown_words`, matches in the question)."""

    names: list[str]
    words: list[re.Match[str]]


def _named(query: str, names: list[str]) -> list[re.Match[str]]:
    """Where each of `names` stands in `query`, as a whole name."""
    return [m for name in names
            for m in re.finditer(rf"(?<![\w/.-]){re.escape(name)}(?![\w/-])", query)]


class HybridRetriever:
    """The Retriever the agent uses, over one DocStore.

    Order: vector and BM25 rankings (`depth` each) fused by reciprocal rank (`rrf_k`),
    chunks boosted by other candidates from their file (`file_weight`, `file_decay`; a
    changelog's chunks are not), then at
    most `per_file` chunks of one file in the top `k` (0: no limit), followed by up to `expand`
    more chunks of the best file (each at most `expand_chars` long; one more when it ranks
    among the first 2 `k`; and a longer one when it ranks among the first `_EITHER_TOP` of
    either search) and by each other page's best further chunk that ranks among the
    first 2 `k` (the sufficiency check reads every hit, the value check the top `k` and the
    best file's further chunks). Defaults measured in
    bench/retrieval_quality.py. `Hit.score` is the cosine similarity of query and chunk
    vectors, clipped to 0..1, for every hit, keyword-only ones included; it never sets order.
    """

    # Seconds a search waits for the keyword index of a newer fingerprint before it goes on
    # with the older one (see `_keyword_index`); well under the search timeout.
    stale_wait = 2.0

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
        expand: int = 4,
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
        self._first_build = threading.Lock()
        self._wanted: str | None = None  # the fingerprint a background refresh is after
        self._refreshing = False
        self._settled = threading.Event()  # set while no background refresh runs
        self._settled.set()
        self._index_dir = keyword_store.index_dir(settings)
        # Query vectors by text: the answerer reads the question's vector the search made.
        self._vectors: LRUCache[str, QuestionVectors] = LRUCache(
            maxsize=_QUERY_VECTORS)
        self._vectors_lock = threading.Lock()
        # Both keyed by chunk id, emptied when the collection's fingerprint changes.
        self._unit_tables: LRUCache[str, UnitVectors] = LRUCache(maxsize=_UNIT_TABLES)
        self._chunk_vectors: LRUCache[str, np.ndarray] = LRUCache(maxsize=_CHUNK_VECTORS)
        self._stored_for: str | None = None
        # The collection's vectors for exact search (see `_vector_table`), rebuilt in the
        # background when the store's files change.
        self._table: VectorTable | None = None
        self._table_lock = threading.Lock()
        self._table_idle = threading.Event()  # set while no rebuild runs
        self._table_idle.set()

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
        self._forget_stored(fingerprint)
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
        # The one wait for a newer index; the refusal checks below read the same index.
        index, current = self._keyword_index(fingerprint, wait=True)
        query = respelled(query, index)  # "paarmeter": parameter
        # (the cache key above is the query as typed: the same slips read the same way)
        unknown = self._unknown(query, fingerprint)
        # The question and the texts the refusal checks compare it with, in one model run.
        vector = self._question_vectors(query, self._without_unknown(query, unknown))[0]
        hits = self._search(query, k, index, current, vector)
        # Coverage reads every passage the answer may quote, as the value check below does:
        # the best page's further section can hold what the question asks about.
        if hits and not self.sufficient(query, hits, fingerprint, vector, unknown):
            return []  # the docs don't cover the question: counts as empty
        # The value check reads the top k and the best page's further sections: a figure is
        # often in a later section of the best page ("Sizing" under "Running several
        # replicas"). Not other pages' second passages: one of those put a page's free-tier
        # figures next to "how many queries per month" of a service they are not about.
        if hits and self.check_values and not self.states_value(
                query, _value_evidence(hits, k), fingerprint):
            return self._asked_alone(query, k)  # else it asks for a value no passage gives
        # A passage ending "...run the command:" gets the command that opens its page's next
        # chunk; the checks above read the passages as indexed.
        hits = [Hit(completed(h.chunk, index.following.get(h.chunk.chunk_id)), h.score)
                for h in hits]
        if current:  # answered while the new index was on its way: not for the cache
            self._cache.put(key, hits)
        return hits

    def _asked_alone(self, query: str, k: int) -> list[Hit]:
        """The hits for the part of `query` that asks, when a scene comes before it and no
        passage found for the whole states the value it asks for: the scene can pull the
        search away from what is asked ("Team is on an old pin and `Annotated[...]` blows
        up. Starting with which version is Annotated supported?"). [] when there is no
        scene, or when the asking part is too short to stand alone ("...what's the warm-up
        threshold?")."""
        asked = asked_part(query)
        if asked == query or len(asked.split()) < _MIN_ASKED_WORDS:
            return []
        return self.search(asked, k)

    def query_vector(self, text: str) -> np.ndarray:
        """The embedding of `text` (whitespace-normalised), from a small cache when recent."""
        return self._question_vectors(text)[0]

    def focus_vector(self, text: str) -> np.ndarray:
        """`text`'s vector leaning to the sentence that asks (see docent.retrieval.focus),
        from the same model run as `query_vector`'s."""
        return self._question_vectors(text)[1]

    def respelled(self, text: str) -> str:
        """`text` with its typing slips read as the docs' words, as `search` reads them."""
        return respelled(text, self.keyword_index())

    def _question_vectors(self, text: str, also: Sequence[str] = ()) -> QuestionVectors:
        """`text`'s vectors, from the recent ones or embedded now, with those of the texts
        `also` not kept yet in the same model run."""
        text = " ".join(text.split())
        with self._vectors_lock:
            vectors = self._vectors.get(text)
            if vectors is not None:
                return vectors
            more = [t for t in dict.fromkeys(" ".join(a.split()) for a in also)
                    if t and t != text and t not in self._vectors]
        embedded = questions_vectors(self.embedder, [text, *more])
        with self._vectors_lock:
            for t, v in zip([text, *more], embedded, strict=True):
                self._vectors[t] = v
        return embedded[0]

    def unit_vectors(self, chunk_ids: Sequence[str]) -> dict[str, UnitVectors]:
        """Stored answer-unit vectors by chunk id (see docent.models.unit_vectors)."""
        return self._stored(chunk_ids, self._unit_tables, self.store.unit_vectors)

    def chunk_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The chunks' own stored vectors by id: from the table in memory when it is the
        store's as it is now, else from Chroma."""
        table = self._vector_table()
        found = table.vectors(chunk_ids) if table is not None else {}
        missing = [i for i in chunk_ids if i not in found]
        if missing:
            found.update(self._stored(missing, self._chunk_vectors, self.store.embeddings))
        return found

    def _stored(
        self, chunk_ids: Sequence[str], kept: LRUCache[str, Any],
        read: Callable[[Sequence[str]], Mapping[str, Any]],
    ) -> dict[str, Any]:
        """What `read` gives for `chunk_ids`, from `kept` when the chunk was read recently."""
        with self._vectors_lock:
            found = {i: kept[i] for i in chunk_ids if i in kept}
        missing = [i for i in chunk_ids if i not in found]
        if missing:
            fresh = read(missing)
            with self._vectors_lock:
                kept.update(fresh)
            found.update(fresh)
        return found

    def _forget_stored(self, fingerprint: str) -> None:
        """Drop the vectors kept per chunk once the collection changed."""
        with self._vectors_lock:
            if fingerprint != self._stored_for:
                self._unit_tables.clear()
                self._chunk_vectors.clear()
                self._stored_for = fingerprint

    def sufficient(
        self, query: str, hits: list[Hit], fingerprint: str | None = None,
        vector: np.ndarray | None = None, unknown: Unknown | None = None,
    ) -> bool:
        """Whether the hits can answer `query` (see `docent.retrieval.sufficiency`);
        `vector`, the query's embedding, and `unknown`, what it names that the corpus
        never uses, when the caller has them, save finding them again."""
        asked = asked_part(query)
        found = unknown or self._unknown(query, fingerprint)
        if self.check_names:
            passages = [h.chunk.text for h in hits]
            # "...cookies or localStorage?" when a passage says "no local storage"
            names = [n for n in found.names if not spelled_apart(n, passages)]
            # Unknown names the question asks for refuse; others when the question moves
            # without them: the user's own device in passing ("our old Arduino client stopped
            # working") hardly moves it, a name it is about ("Prometheus metrics") does.
            # In a yes/no question a name is what it asks about, however little it moves it.
            where = _named(query, names)
            if where and (in_yes_no(asked, _named(asked, names))
                          or self._shift(query, where, vector) >= _INCIDENTAL_NAME_SHIFT):
                return False
            if unnamed_features(asked, passages):
                return False
        if self.max_unknown_shift < 2:  # 2: off; a shift never exceeds it
            shift = self._shift(query, found.words, vector)
            if shift > self.max_unknown_shift:
                return False
            if found.words and shift < _INCIDENTAL_SHIFT:
                # Words that barely move the question ("Swagger UI CHOKES when...") are
                # paraphrase: they count against coverage no more than against the shift.
                query = without(query, found.words)
                # Found before the words go: "noob question: what is an ABI..." is
                # split at its colon, "question: what is an ABI..." is too short to be.
                asked = without(asked, self._unknown_words(asked, fingerprint))
        if self.coverage(query, hits, fingerprint) >= self.min_coverage:
            return True
        # A long scene before the question ("Our security team wants /docs switched off in
        # prod for security reasons.") dilutes it: the question alone may be covered.
        return asked != query and self.coverage(asked, hits, fingerprint) >= self.min_coverage

    def states_value(self, query: str, hits: list[Hit], fingerprint: str | None = None) -> bool:
        """Whether the hits state the value `query` asks for, if it asks for one (see
        `docent.retrieval.evidence`)."""
        index = self.keyword_index(fingerprint)
        return states_value(query, hits, index.doc_freq, len(index.chunks), GENERIC)

    def unknown_names(self, query: str, fingerprint: str | None = None,
                      whole: str = "") -> list[str]:
        """Names in `query` the corpus never uses (`whole`: the text it was taken from)."""
        index = self.keyword_index(fingerprint)
        return unknown_names(query, index.doc_freq, index.raw_words, index.changelog_only,
                             whole)

    def unknown_shift(
        self, query: str, fingerprint: str | None = None, vector: np.ndarray | None = None
    ) -> float:
        """How far (1 - cosine) the question's vector moves when the words the corpus never
        uses are removed from it: 0 when there are none, 1 when nothing else is left or one
        of them is what a which/what question asks for ("In which regions...")."""
        return self._shift(query, self._unknown_words(query, fingerprint), vector)

    def _unknown(self, query: str, fingerprint: str | None) -> Unknown:
        """What the refusal checks read of `query`: the names its asking part gives and the
        words it uses that the corpus never does (each only when its check is on)."""
        names = (self.unknown_names(asked_part(query), fingerprint, query) if self.check_names
                 else [])
        pointed = pointed_scene(query) if names else None
        if pointed is not None:
            # "I serve PDF downloads with FileResponse. Which headers does it add?": "it" is
            # the thing of the docs the scene names; the scene's other names are the user's.
            index = self.keyword_index(fingerprint)
            if known_api_names(pointed[0], index.doc_freq, index.raw_words,
                               index.changelog_only):
                names = [n for n in names if _named(pointed[1], [n])]
        words = (self._unknown_words(query, fingerprint) if self.max_unknown_shift < 2
                 else [])
        return Unknown(names, words)

    def _without_unknown(self, query: str, unknown: Unknown) -> list[str]:
        """The texts whose vectors the refusal checks compare with the question's: it
        without its unknown names, and without its unknown words (`_moved`)."""
        texts = []
        if unknown.names:
            texts.append(without(query, _named(query, unknown.names)))
        if unknown.words and not asks_for_unknown(query, unknown.words):
            texts.append(without(query, unknown.words))
        return texts

    def _unknown_words(self, query: str, fingerprint: str | None) -> list[re.Match[str]]:
        index = self.keyword_index(fingerprint)
        return unknown_words(query, index.doc_freq, index.raw_words, index.root_freq)

    def _shift(
        self, query: str, unknown: list[re.Match[str]], vector: np.ndarray | None
    ) -> float:
        if not unknown:
            return 0.0
        if asks_for_unknown(query, unknown):
            return 1.0
        return self._moved(query, unknown, vector)

    def _moved(
        self, query: str, words: list[re.Match[str]], vector: np.ndarray | None
    ) -> float:
        """1 - cosine of the question's vector and its vector without `words` (matches in
        it); 1 when nothing is left."""
        rest = without(query, words)
        if not rest:
            return 1.0
        if vector is None:
            vector = self.query_vector(query)
        # From the recent vectors too: a question asked again skips both embeddings.
        remaining = self.query_vector(rest)
        return float(1.0 - np.dot(vector, remaining))

    def coverage(self, query: str, hits: list[Hit], fingerprint: str | None = None) -> float:
        """How much of the question the hits cover (see `docent.retrieval.sufficiency`)."""
        index = self.keyword_index(fingerprint)
        return coverage(query, hits, index.doc_freq, len(index.chunks), index.root_freq)

    def _search(
        self, query: str, k: int, index: KeywordIndex, current: bool, vector: np.ndarray
    ) -> list[Hit]:
        depth = max(self.depth, k)
        by_id: dict[str, Chunk] = {}
        similarity: dict[str, float] = {}
        rankings: list[list[str]] = []
        table = self._vector_table()
        exact = table if table is not None and table.matrix is not None else None
        if self.weights[0] > 0:
            found = exact.nearest(vector, depth) if exact else self.store.nearest(vector, depth)
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
            # A changelog's many matching entries make it no page about the topic: each of
            # its chunks stands alone for the boost.
            page_of = {i: i if is_changelog(f) else f for i, f in file_of.items()}
            fused = boost_by_file(fused, page_of, weight=self.file_weight, decay=self.file_decay)
        order = [i for i, _ in fused]
        ranked = diversify(order, file_of, k=k, per_file=self.per_file)
        leading = order[: _RUNNER_UP_REACH * k]
        # The first few of either search, in order (a chunk first of both comes twice).
        either_top = [i for ranking in rankings for i in ranking[:_EITHER_TOP]]
        top = ranked[:k] + self._more_of_top(ranked[:k], ranked[k:], by_id, leading, index,
                                             query)
        top += _long_leader(top, ranked[k:], by_id, set(either_top), self.expand_chars)
        for chunk in _blocks_before(top, by_id, index, self.expand_chars):
            by_id[chunk.chunk_id] = chunk
            top.append(chunk.chunk_id)
        for i in top:  # a section of the best page neither search found
            file_of.setdefault(i, by_id[i].source_file)
        # Another page's best further chunk joins when it ranks among the first 2k of the
        # fused ranking or among the first few of either search ("The `m-prompt` element
        # is used to request a string from the user" is the nearest by meaning, 35th by
        # keywords).
        leading += [i for i in either_top if i not in leading]
        top += _runners_up(top, leading, file_of)
        missing = [i for i in top if i not in similarity]
        # Keyword-only hits: their vectors from the table in memory, else read from Chroma.
        stored = exact.vectors(missing) if exact else {}
        missing = [i for i in missing if i not in stored]
        stored.update(self._stored(missing, self._chunk_vectors, self.store.embeddings))
        for chunk_id, row in stored.items():
            similarity[chunk_id] = float(np.dot(row, vector))
        if not current:  # an index older than the store: drop keyword hits deleted since
            top = [i for i in top if i in similarity]
        return [
            Hit(chunk=by_id[i], score=min(max(similarity.get(i, 0.0), 0.0), 1.0))
            for i in top
        ]

    def _vector_table(self) -> VectorTable | None:
        """The vectors of an embedded collection as its files are now, for exact search;
        None for a Chroma server. The first search reads them (FastAPI's 2,080 chunks:
        0.1 s); after any write (an ingestion, by any process) searches go to Chroma, which
        sees chunks written since, while a background thread reads them again."""
        stamp = self.store.files_state()
        if stamp is None:
            return None
        table = self._table
        if table is not None and table.stamp == stamp:
            return table
        if table is None:
            return self._read_table(stamp)
        with self._table_lock:
            if not self._table_idle.is_set():
                return None
            self._table_idle.clear()
        threading.Thread(target=self._rebuild_table, name="docent-vector-table",
                         daemon=True).start()
        return None

    def _read_table(self, stamp: Any) -> VectorTable:
        """The table of the store as its files are in state `stamp`; one without vectors
        (so Chroma answers, and nothing is read again before the next write) when the
        collection is too big or the read failed."""
        try:
            found = self.store.all_vectors(WARM_CHUNKS)
        except Exception as exc:  # noqa: BLE001 - an optimisation: Chroma answers instead
            log.warning("reading the vectors for exact search failed; searches ask Chroma",
                        extra=exc_fields(exc))
            found = None
        table = VectorTable(stamp) if found is None else VectorTable(stamp, *found)
        self._table = table
        return table

    def _rebuild_table(self) -> None:
        try:
            stamp = self.store.files_state()  # before the read: a write during it shows next
            if stamp is not None:
                self._read_table(stamp)
        finally:
            self._table_idle.set()

    def wait_for_vector_table(self, timeout: float | None = None) -> bool:
        """Wait until no background rebuild of the vector table is under way; False when
        `timeout` passed first (for tests: searches never wait for it)."""
        return self._table_idle.wait(timeout)

    def _more_of_top(
        self, top: list[str], rest: list[str], by_id: dict[str, Chunk], leading: list[str],
        index: KeywordIndex, query: str,
    ) -> list[str]:
        """Up to `expand` further chunks of the best file, best-ranked first, each at most
        `expand_chars` long: one chunk a file can miss the section that names the answer.
        Then one more: the file's section holding a statement nearly as close to the
        question as any found (`_closest_section`: "If it doesn't see an `Authorization`
        header... it will respond with a 401" ranks 68th of all chunks for "what does a
        caller get back if they leave out the Authorization header?"), else the next one
        when it ranks among the `leading` ids of the fused ranking (a page the whole
        ranking is about: "Create Constants Configuration", its seventh chunk, holds the
        `sponsorGas: true` a gasless-mint question asks for). Before that one, for each ask
        after the first ("Which REST endpoint do I hit, and how do I authenticate?"), the
        file's section closest to that ask by the same rule (its "Authentication")."""
        if not top or self.expand <= 0:
            return []
        best = by_id[top[0]].source_file
        further = [
            i for i in rest
            if by_id[i].source_file == best and len(by_id[i].text) <= self.expand_chars
        ]
        more = further[: self.expand]
        # ... and for each further ask ("...and how do I authenticate?": the page's
        # "Authentication" section), the section closest to that ask.
        asked: list[str] = []
        for vector in self._question_vectors(query)[2]:
            section = self._closest_section(best, top + more + asked, index, vector)
            if section is not None:
                by_id[section.chunk_id] = section
                asked.append(section.chunk_id)
        closest = self._closest_section(best, top + more + asked, index,
                                        self.focus_vector(query))
        if closest is not None:
            by_id[closest.chunk_id] = closest
            return [*more, *asked, closest.chunk_id]
        ranked_high = set(leading) - set(asked)
        return more + asked + [i for i in further[self.expand :] if i in ranked_high][:1]

    def _closest_section(
        self, page: str, chosen: list[str], index: KeywordIndex, focus: np.ndarray
    ) -> Chunk | None:
        """The chunk of `page` (not a changelog, at most `expand_chars` long, not yet
        `chosen`) whose best answer unit is closest to `focus` (the question's vector
        leaning to what it asks, or to one of its later asks), when that is at least
        `_CLOSEST_SHARE` of the closest unit of the `chosen` chunks (by their stored unit
        vectors; None without them)."""
        if is_changelog(page):
            return None
        taken = set(chosen)
        sections = [c for c in index.by_file.get(page, ())
                    if c.chunk_id not in taken and len(c.text) <= self.expand_chars]
        if not sections:
            return None
        tables = self.unit_vectors([*chosen, *(c.chunk_id for c in sections)])
        found = _closest_unit([tables.get(i) for i in chosen], focus)
        nearest = _closest_unit_each([tables.get(c.chunk_id) for c in sections], focus)
        at = int(np.argmax(nearest))
        if found <= 0 or nearest[at] < _CLOSEST_SHARE * found:
            return None
        return sections[at]

    def warm_up(self) -> list[Chunk]:
        """Load the embedding model, the keyword index and Chroma's vector index now, not
        on the first search (at 100,000 chunks each takes seconds), and prepare the
        per-chunk data of up to WARM_CHUNKS chunks: their unit vectors (2,080 chunks:
        0.14 s) and terms (0.4 s). Returns those chunks, for the answerer to prepare."""
        vector = self.query_vector("warm up")
        self._vector_table()  # an embedded store's vectors, for exact search
        fingerprint = self.store.fingerprint()
        self._forget_stored(fingerprint)
        chunks = list(self.keyword_index(fingerprint).chunks[:WARM_CHUNKS])
        self.store.nearest(vector, 1)
        ids = [c.chunk_id for c in chunks]
        for start in range(0, len(ids), _WARM_PAGE):
            self.unit_vectors(ids[start : start + _WARM_PAGE])
        try:
            remember_terms(chunks)
        except Exception as exc:  # noqa: BLE001 - an optimisation: searches work terms out
            log.warning("preparing terms at start-up failed; searches prepare them",
                        extra=exc_fields(exc))
        return chunks

    def keyword_index(self, fingerprint: str | None = None) -> KeywordIndex:
        """The BM25 index of the collection's contents (see `_keyword_index`); never waits
        for a newer one."""
        return self._keyword_index(fingerprint)[0]

    def _keyword_index(
        self, fingerprint: str | None = None, *, wait: bool = False
    ) -> tuple[KeywordIndex, bool]:
        """The keyword index, and whether it is the one of `fingerprint`.

        The first call loads the saved index (`keyword_store`), or builds and saves it.
        When the fingerprint moves on (an ingestion), the new one is loaded or built in a
        background thread. With `wait` (once per search) it is waited for up to
        `stale_wait` seconds (a saved or small index is ready by then, and the refusal checks
        need the new words), then the search goes on with the index in hand: rebuilding
        100,000 chunks takes longer than a search may wait, and no search should fail.
        """
        fingerprint = fingerprint if fingerprint is not None else self.store.fingerprint()
        index, current = self._index_for(fingerprint)
        if wait and not current and self._settled.wait(self.stale_wait):
            index, current = self._index_for(fingerprint)
        return index, current

    def _index_for(self, fingerprint: str) -> tuple[KeywordIndex, bool]:
        """`_keyword_index` without the wait."""
        with self._index_lock:
            index = self._index
            if index is not None:
                current = self._index_fingerprint == fingerprint
                if not current and self._wanted != fingerprint:
                    self._wanted = fingerprint
                    if not self._refreshing:
                        self._refreshing = True
                        self._settled.clear()
                        threading.Thread(target=self._refresh, name="docent-keyword-index",
                                         daemon=True).start()
                return index, current
        with self._first_build:  # nothing to answer from yet: the first search waits
            if self._index is None:
                built = self._load_or_build(fingerprint)
                with self._index_lock:
                    self._index, self._index_fingerprint = built, fingerprint
            return self._index_for(fingerprint)

    def _refresh(self) -> None:
        """Bring the keyword index to the newest fingerprint asked for, then stop."""
        while True:
            with self._index_lock:
                target = self._wanted
            try:
                index = self._load_or_build(target) if target is not None else None
            except Exception as exc:  # noqa: BLE001 - the old index serves; the next search retries
                log.warning("keyword index rebuild failed; the previous index keeps serving",
                            extra=exc_fields(exc))
                index = None
            with self._index_lock:
                if index is not None:
                    self._index, self._index_fingerprint = index, target
                if index is None or self._wanted == target:
                    self._wanted = None
                    self._refreshing = False
                    self._settled.set()
                    return

    def wait_for_keyword_index(self, timeout: float | None = None) -> bool:
        """Wait until no background refresh of the keyword index is under way; False when
        `timeout` passed first (for tests and benchmarks: searches never wait for it)."""
        return self._settled.wait(timeout)

    def _load_or_build(self, fingerprint: str) -> KeywordIndex:
        """The saved index of `fingerprint`, else one built from the store (and saved when
        the store still has that fingerprint once read)."""
        index = keyword_store.load(self._index_dir, fingerprint)
        if index is not None:
            return index
        index = KeywordIndex(self.store.all_chunks())
        if self.store.read_fingerprint() == fingerprint:
            try:
                keyword_store.save(index, self._index_dir, fingerprint)
            except OSError as exc:  # a read-only data dir: the index still serves from memory
                log.warning("could not save the keyword index",
                            extra={"path": str(self._index_dir), "detail": str(exc)[:500]})
        return index


def _value_evidence(hits: list[Hit], k: int) -> list[Hit]:
    """The hits the value check reads: the top k and the best page's further chunks."""
    best = hits[0].chunk.source_file
    return hits[:k] + [h for h in hits[k:] if h.chunk.source_file == best]


_TAIL_CHARS = 300  # a line or two: a link, a caption


def _long_leader(
    top: list[str], rest: list[str], by_id: dict[str, Chunk], either_top: set[str],
    limit: int,
) -> list[str]:
    """The best page's chunk longer than `limit` that ranks among the first few of either
    search, when `top` lacks it: a crawled section whose screenshot links make it 4,000
    characters long holds the `npx thirdweb deploy -k` its page is about (over the read
    sets: 6 more answers with every keyword, 1 fewer; letting any further chunk be long
    instead gained one, the long ones crowding out the short sections `expand` picks)."""
    best = by_id[top[0]].source_file if top else None
    if best is None or is_changelog(best):
        return []
    return [i for i in rest if i in either_top and i not in top
            and by_id[i].source_file == best and len(by_id[i].text) > limit][:1]


def _blocks_before(
    top: list[str], by_id: Mapping[str, Chunk], index: KeywordIndex, limit: int
) -> list[Chunk]:
    """For each short chunk in `top` that follows, in its section, a chunk of one code
    block longer than `limit`, that block: an example page's "Interactive web page ->
    <link>" under its 100 lines of code is found in place of the code it is about."""
    out: list[Chunk] = []
    chosen = set(top)
    for i in top:
        tail = by_id[i]
        if len(tail.text) > _TAIL_CHARS:
            continue
        block = index.preceding.get(i)
        if (block is None or block.chunk_id in chosen or len(block.text) <= limit
                or block.section_title != tail.section_title
                or not _one_block(block.text)):
            continue
        out.append(block)
        chosen.add(block.chunk_id)
    return out


def _one_block(text: str) -> bool:
    """Whether `text` is one code block: fenced, or every line indented (a crawl's code)."""
    stripped = text.strip()
    if stripped.startswith("```"):
        return stripped.endswith("```") and stripped.count("```") == 2
    return all(line.startswith(("    ", "\t")) for line in text.split("\n") if line.strip())


def _runners_up(top: list[str], leading: list[str], file_of: Mapping[str, str]) -> list[str]:
    """For each page in `top` but the best (whose further chunks `expand` adds), its best
    other chunk among the `leading` ids (the first of the fused ranking, then the first few
    of either search): the cut to one chunk a page
    keeps out a page's second passage even when it ranks among the best ("Using
    `WSGIMiddleware`" under "Check it", both of the WSGI page). Not a changelog's: its
    entries stand alone."""
    if not top:
        return []
    pages = {file_of[i] for i in top} - {file_of[top[0]]}
    chosen = set(top)
    out = []
    for i in leading:
        page = file_of[i]
        if i not in chosen and page in pages and not is_changelog(page):
            out.append(i)
            pages.discard(page)
    return out


def _closest_unit_each(tables: Sequence[UnitVectors | None], vector: np.ndarray) -> np.ndarray:
    """For each table of unit vectors, the highest cosine of its units with `vector` (-1 for
    a chunk without stored units)."""
    return np.array([
        float((np.stack(list(t.values())) @ vector).max()) if t else -1.0 for t in tables
    ])


def _closest_unit(tables: Sequence[UnitVectors | None], vector: np.ndarray) -> float:
    """The highest cosine of any unit of `tables` with `vector` (-1 when none has units)."""
    return float(_closest_unit_each(tables, vector).max(initial=-1.0))
