"""The long-lived pieces of a docent process, opened once and passed in."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from langgraph.graph.state import CompiledStateGraph

from docent.agent.graph import build_graph
from docent.config import Settings
from docent.failures import classify
from docent.models.factory import build_chat_models
from docent.models.unit_vectors import AnswerVectors
from docent.retrieval.types import Hit, Retriever

if TYPE_CHECKING:
    import numpy as np

    from docent.retrieval.embeddings import Embedder
    from docent.retrieval.retriever import HybridRetriever
    from docent.retrieval.store import UnitVectors

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Runtime:
    """Settings, the compiled agent and what it was built from."""

    settings: Settings
    graph: CompiledStateGraph
    retriever: Retriever
    model_id: str
    pool: ThreadPoolExecutor | None = None  # the bounded pool CPU work runs in

    def close(self) -> None:
        """Let the pool's threads end once their work is done."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def build_runtime(settings: Settings) -> Runtime:
    """Open the store, load the embedder lazily, build the model and compile the graph.

    The embedded store opens here; a Chroma server (`chroma_url`) is reached on first use
    instead, so the API starts while the server is down and recovers when it comes up.
    """
    from docent.retrieval.embeddings import MiniLMEmbedder
    from docent.retrieval.retriever import build_retriever

    # One model, shared by the retriever and the extractive answerer.
    embedder = MiniLMEmbedder(threads=settings.embed_threads)
    # CPU work (searches, composing) runs in a bounded pool, off the event loop: past its
    # size requests queue instead of piling threads onto two cores, and /health never waits.
    pool = ThreadPoolExecutor(settings.worker_threads, thread_name_prefix="docent-cpu")
    retriever: HybridRetriever | ServerRetriever = (
        build_retriever(settings, embedder) if settings.chroma_url is None
        else ServerRetriever(settings, embedder)
    )
    chain = build_chat_models(settings, AnswerVectors(embedder, retriever), pool)
    graph = build_graph(chain, retriever, settings, pool=pool)
    return Runtime(settings=settings, graph=graph, retriever=retriever, model_id=chain[0].id,
                   pool=pool)


class ServerRetriever:
    """The hybrid retriever over a Chroma server, opened by the first call that reaches it.

    Until then every call tries again and raises what the server's client raised: a search
    fails as RETRIEVAL_FAILED and `/ready` reports the store unreachable.
    """

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        self._settings = settings
        self._embedder = embedder
        self._retriever: HybridRetriever | None = None
        self._lock = threading.Lock()

    def _open(self) -> HybridRetriever:
        from docent.retrieval.retriever import build_retriever

        with self._lock:
            if self._retriever is None:
                self._retriever = build_retriever(self._settings, self._embedder)
            return self._retriever

    def search(self, query: str, k: int) -> list[Hit]:
        return self._open().search(query, k)

    def count(self) -> int:
        return self._open().count()

    def query_vector(self, text: str) -> np.ndarray:
        return self._open().query_vector(text)

    def unit_vectors(self, chunk_ids: Sequence[str]) -> dict[str, UnitVectors]:
        return self._open().unit_vectors(chunk_ids)

    def warm_up(self) -> None:
        """Load the embedding model, then open the store if it answers (one line if not)."""
        from docent.retrieval.store import EmbeddingMismatchError

        self._embedder.embed(["warm up"])
        try:
            retriever = self._open()
        except EmbeddingMismatchError:
            raise  # the server answers: the index needs rebuilding, not waiting for
        except Exception as exc:  # noqa: BLE001 - any failure to open is retried on first use
            log.warning(
                "document store unreachable at start-up; retrying on each request",
                extra={"category": classify(exc, "database").category,
                       "error_type": type(exc).__name__, "detail": str(exc)[:500]},
            )
            return
        retriever.warm_up()
