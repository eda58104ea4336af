"""The long-lived pieces of a docent process, opened once and passed in."""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.graph.state import CompiledStateGraph

from docent.agent.graph import build_graph
from docent.config import Settings
from docent.models.factory import build_chat_models
from docent.retrieval.types import Retriever


@dataclass(frozen=True)
class Runtime:
    """Settings, the compiled agent and what it was built from."""

    settings: Settings
    graph: CompiledStateGraph
    retriever: Retriever
    model_id: str


def build_runtime(settings: Settings) -> Runtime:
    """Open the store, load the embedder lazily, build the model and compile the graph.

    The embedded store opens here; a Chroma server (`chroma_url`) is reached on first use
    instead, so the API starts while the server is down and recovers when it comes up.
    Either way the store recovers without a restart (`retrieval/recovering.py`).
    """
    from docent.retrieval.embeddings import MiniLMEmbedder
    from docent.retrieval.recovering import RecoveringRetriever

    embedder = MiniLMEmbedder()  # one model, shared by the retriever and the extractive answerer
    # Reopens its store after a failure, or when the data directory was replaced.
    retriever: Retriever = RecoveringRetriever(settings, embedder)
    chain = build_chat_models(settings, embed=embedder.embed)
    graph = build_graph(chain, retriever, settings)
    return Runtime(settings=settings, graph=graph, retriever=retriever, model_id=chain[0].id)
