"""The long-lived pieces of a docent process, opened once and passed in."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from langgraph.graph.state import CompiledStateGraph

from docent.agent.graph import build_graph
from docent.config import Settings
from docent.failures import classify
from docent.models.factory import build_chat_models
from docent.retrieval.types import Hit, Retriever

if TYPE_CHECKING:
    from docent.retrieval.embeddings import Embedder
    from docent.retrieval.retriever import HybridRetriever

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Runtime:
    """Settings, the compiled agent and what it was built from."""

    settings: Settings
    graph: CompiledStateGraph
    retriever: Retriever
    model_id: str


def build_runtime(settings: Settings, *, lazy_store: bool = False) -> Runtime:
    """Open the store, load the embedder lazily, build the model and compile the graph.

    The embedded store opens here; a Chroma server (`chroma_url`) is reached on first use
    instead, so the API starts while the server is down and recovers when it comes up.
    `lazy_store` opens the embedded store on first use too (in the thread the search runs
    in), for hosts that build the graph where blocking I/O is not allowed.
    """
    from docent.retrieval.embeddings import MiniLMEmbedder
    from docent.retrieval.retriever import build_retriever

    embedder = MiniLMEmbedder()  # one model, shared by the retriever and the extractive answerer
    retriever: Retriever = (
        build_retriever(settings, embedder) if settings.chroma_url is None and not lazy_store
        else ServerRetriever(settings, embedder)
    )
    chain = build_chat_models(settings, embed=embedder.embed)
    graph = build_graph(chain, retriever, settings)
    return Runtime(settings=settings, graph=graph, retriever=retriever, model_id=chain[0].id)


class ServerRetriever:
    """The hybrid retriever over a Chroma server (or a lazily opened embedded store), opened
    by the first call that reaches it.

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
