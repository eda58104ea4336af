"""The retriever a server holds: it (re)opens its store by itself, never needing a restart.

- A Chroma server (`DOCENT_CHROMA_URL`) is opened by the first call that reaches it, so the
  API starts while the server is down; until then every call tries again and raises what
  the server's client raised.
- The embedded store is opened at start-up. Chroma keeps one SQLite connection pool and one
  vector index per path for the life of the process, so after a SQLite error (`no such
  table: collections`), or with the data directory deleted or replaced under a running
  server, it kept failing, or kept answering from files no longer there, until a restart.
  Here each call first looks at the database file (one `stat`): gone, the call fails with
  `StoreMissingError` (and nothing is created in its place); replaced by another file (a
  restored backup), the client is reopened. After any failed call the client is reopened by
  the next one; while reopening itself fails, it is tried at most once a second. The
  keyword index and the results cache stay: both are keyed by the collection's fingerprint.

A failed call raises: a search fails as RETRIEVAL_FAILED and `/ready` answers 503.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from docent.config import Settings
from docent.failures import classify, exc_fields
from docent.retrieval.types import Chunk, Hit

if TYPE_CHECKING:
    import numpy as np

    from docent.retrieval.cache import ResultCache
    from docent.retrieval.embeddings import Embedder
    from docent.retrieval.retriever import HybridRetriever
    from docent.retrieval.store import UnitVectors

log = logging.getLogger(__name__)
T = TypeVar("T")


class StoreUnavailableError(RuntimeError):
    """The embedded store cannot be used right now."""


class StoreMissingError(StoreUnavailableError):
    """The embedded store's database is gone: the data directory was deleted or moved."""


class RecoveringRetriever:
    """The hybrid retriever over a store that may fail, vanish or come back."""

    reopen_interval = 1.0  # seconds between attempts while reopening keeps failing

    def __init__(self, settings: Settings, embedder: Embedder,
                 clock: Callable[[], float] = time.monotonic, *, lazy: bool = False,
                 cache: ResultCache | None = None) -> None:
        self._settings = settings
        self._embedder = embedder
        self._cache = cache  # None: the retriever's own, in memory
        self._embedded = settings.chroma_url is None
        self._database = settings.store_path / "chroma.sqlite3"
        self._clock = clock
        self._lock = threading.Lock()
        self._retriever: HybridRetriever | None = None
        self._identity: tuple[int, int] | None = None
        self._stale = False  # a call failed: reopen before the next one
        self._reopen_failed_at: float | None = None
        if self._embedded and not lazy:  # opened now: a bad store stops start-up
            self._retriever = self._build()

    def search(self, query: str, k: int) -> list[Hit]:
        return self._call(lambda r: r.search(query, k))

    def count(self) -> int:
        return self._call(lambda r: r.count())

    def focus_vector(self, text: str) -> np.ndarray:
        return self._call(lambda r: r.focus_vector(text))

    def respelled(self, text: str) -> str:
        return self._call(lambda r: r.respelled(text))

    def unit_vectors(self, chunk_ids: Sequence[str]) -> dict[str, UnitVectors]:
        return self._call(lambda r: r.unit_vectors(chunk_ids))

    def chunk_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self._call(lambda r: r.chunk_vectors(chunk_ids))

    def warm_up(self) -> list[Chunk]:
        """Load the embedding model and the keyword index, and prepare per-chunk data (see
        `HybridRetriever.warm_up`, which gives the chunks prepared); a server that does not
        answer yet is one warning, and is opened on first use."""
        from docent.retrieval.store import EmbeddingMismatchError

        if self._embedded:
            return self._current().warm_up()
        self._embedder.embed(["warm up"])
        try:
            retriever = self._current()
        except EmbeddingMismatchError:
            raise  # the server answers: the index needs rebuilding, not waiting for
        except Exception as exc:  # noqa: BLE001 - any failure to open is retried on first use
            log.warning(
                "document store unreachable at start-up; retrying on each request",
                extra={"category": classify(exc, "database").category, **exc_fields(exc)},
            )
            return []
        return retriever.warm_up()

    def _call(self, use: Callable[[HybridRetriever], T]) -> T:
        retriever = self._current()
        try:
            return use(retriever)
        except Exception:
            if self._embedded:
                with self._lock:
                    self._stale = True
            raise

    def _current(self) -> HybridRetriever:
        with self._lock:
            if not self._embedded:
                if self._retriever is None:
                    self._retriever = self._build()
                return self._retriever
            if self._retriever is None:  # lazy: opened by the first call, in its thread
                self._retriever = self._build()
                return self._retriever
            identity = self._file_identity()
            if self._stale or identity != self._identity:
                self._reopen()
            return self._retriever

    def _build(self) -> HybridRetriever:
        from docent.retrieval.retriever import build_retriever

        retriever = build_retriever(self._settings, self._embedder, self._cache)
        if self._embedded:
            self._identity = self._file_identity()
        return retriever

    def _reopen(self) -> None:
        """A fresh client on the embedded store; the retriever keeps its indexes."""
        from docent.retrieval.store import DocStore, reopen_embedded

        settings = self._settings
        last = self._reopen_failed_at
        if last is not None and self._clock() - last < self.reopen_interval:
            raise StoreUnavailableError("the document store could not be reopened just now")
        log.info("reopening the document store", extra={"path": str(settings.store_path)})
        try:
            store = DocStore(reopen_embedded(settings), settings.collection, self._embedder,
                             reopen=lambda: reopen_embedded(settings))
        except Exception:
            self._reopen_failed_at = self._clock()
            raise
        assert self._retriever is not None
        self._retriever.store = store
        self._identity = self._file_identity()
        self._stale, self._reopen_failed_at = False, None

    def _file_identity(self) -> tuple[int, int]:
        """Which file the database is (device, inode); StoreMissingError when there is none."""
        try:
            stat = os.stat(self._database)
        except FileNotFoundError:
            raise StoreMissingError(
                f"the document store is missing: {self._database} does not exist"
            ) from None
        return stat.st_dev, stat.st_ino
