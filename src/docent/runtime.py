"""The long-lived pieces of a docent process, opened once and passed in."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from langgraph.graph.state import CompiledStateGraph

from docent.agent.graph import build_graph
from docent.config import Settings
from docent.models.factory import build_chat_models
from docent.models.unit_vectors import AnswerVectors
from docent.retrieval.types import Retriever


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


def build_runtime(settings: Settings, *, lazy_store: bool = False) -> Runtime:
    """Open the store, load the embedder lazily, build the model and compile the graph.

    The embedded store opens here; a Chroma server (`chroma_url`) is reached on first use
    instead, so the API starts while the server is down and recovers when it comes up.
    Either way the store recovers without a restart (`retrieval/recovering.py`).
    `lazy_store` opens the embedded store on first use too (in the thread the search runs
    in), for hosts that build the graph where blocking I/O is not allowed.
    """
    from docent.retrieval.embeddings import MiniLMEmbedder
    from docent.retrieval.recovering import RecoveringRetriever

    # One model, shared by the retriever and the extractive answerer.
    embedder = MiniLMEmbedder(threads=settings.embed_threads)
    # Reopens its store after a failure, or when the data directory was replaced.
    retriever = RecoveringRetriever(settings, embedder, lazy=lazy_store)
    # CPU work (searches, composing) runs in a bounded pool, off the event loop: past its
    # size requests queue instead of piling threads onto two cores, and /health never waits.
    pool = ThreadPoolExecutor(settings.worker_threads, thread_name_prefix="docent-cpu")
    chain = build_chat_models(settings, AnswerVectors(embedder, retriever), pool)
    graph = build_graph(chain, retriever, settings, pool=pool)
    return Runtime(settings=settings, graph=graph, retriever=retriever, model_id=chain[0].id,
                   pool=pool)
