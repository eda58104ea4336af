"""The long-lived pieces of a docent process, opened once and passed in."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from langgraph.graph.state import CompiledStateGraph

from docent.agent.graph import build_graph
from docent.agent.llm_cache import ReplyCache, decode_reply, encode_reply
from docent.config import Settings
from docent.cpu import single_threaded_blas
from docent.failures import exc_fields
from docent.models.factory import build_chat_models
from docent.models.scoring import remember_passages
from docent.models.unit_vectors import AnswerVectors
from docent.retrieval.cache import ResultCache, decode_hits, encode_hits
from docent.retrieval.types import Retriever
from docent.run_queue import RunQueue, run_queue_for
from docent.state.client import SharedState, shared_state

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Runtime:
    """Settings, the compiled agent and what it was built from."""

    settings: Settings
    graph: CompiledStateGraph
    retriever: Retriever
    model_id: str
    pool: ThreadPoolExecutor | None = None  # the bounded pool CPU work runs in
    shared: SharedState | None = None  # the Redis replicas share (DOCENT_REDIS_URL), if any
    runs: RunQueue | None = None  # /chat runs of an in-process model (docent.run_queue)

    def warm_up(self) -> None:
        """Before the first request: load the models and indexes, and prepare the per-chunk
        data searches and answers use (see `HybridRetriever.warm_up`), so the first
        questions cost what later ones do."""
        warm = getattr(self.retriever, "warm_up", None)
        if warm is None:  # a test's fake retriever has none
            return
        chunks = warm() or []
        try:
            remember_passages(chunk.text for chunk in chunks)
        except Exception as exc:  # noqa: BLE001 - an optimisation: answers work passages out
            log.warning("preparing passages at start-up failed; answers prepare them",
                        extra=exc_fields(exc))

    def nothing_indexed(self) -> bool:
        """Whether the store answers and holds no chunk: every answer would be the refusal
        (one that does not answer is a failed search's, and `/ready`'s, to report)."""
        try:
            return self.retriever.count() == 0
        except Exception:  # noqa: BLE001 - unreachable, or failing: not known to be empty
            return False

    def close(self) -> None:
        """Let the pool's threads end once their work is done."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.shared is not None:
            self.shared.close()


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

    single_threaded_blas()
    shared = shared_state(settings)
    results, replies = shared_caches(settings, shared)
    # One model, shared by the retriever and the extractive answerer.
    embedder = MiniLMEmbedder(threads=settings.embed_threads)
    # Reopens its store after a failure, or when the data directory was replaced.
    retriever = RecoveringRetriever(settings, embedder, lazy=lazy_store, cache=results)
    # CPU work (searches, composing) runs in a bounded pool, off the event loop: past its
    # size requests queue instead of piling threads onto two cores, and /health never waits.
    pool = ThreadPoolExecutor(settings.worker_threads, thread_name_prefix="docent-cpu")
    chain = build_chat_models(settings, AnswerVectors(embedder, retriever), pool)
    graph = build_graph(chain, retriever, settings, pool=pool, reply_cache=replies)
    return Runtime(settings=settings, graph=graph, retriever=retriever, model_id=chain[0].id,
                   pool=pool, shared=shared, runs=run_queue_for(chain, settings.worker_threads))


def shared_caches(
    settings: Settings, shared: SharedState | None
) -> tuple[ResultCache | None, ReplyCache | None]:
    """The results and reply caches on Redis; (None, None) keeps both in memory."""
    if shared is None:
        return None, None
    from docent.state.caches import AsyncRedisStore, RedisStore

    size, ttl = settings.retrieval_cache_size, settings.retrieval_cache_ttl_seconds
    results = ResultCache(size, ttl,
                          RedisStore(shared, "retrieval", ttl, size, encode_hits, decode_hits))
    size, ttl = settings.llm_cache_size, settings.llm_cache_ttl_seconds
    replies = ReplyCache(size, ttl,
                         AsyncRedisStore(shared, "reply", ttl, size, encode_reply, decode_reply))
    return results, replies
