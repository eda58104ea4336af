"""The agent's state: what flows between the llm, tools and finalize nodes."""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

# typing.TypedDict before Python 3.12 gives pydantic (and so LangGraph's API server, which
# publishes the graph's input and output schemas) nothing to read: null schemas in Studio.
from typing_extensions import TypedDict


def keep_first(current: str | None, new: str | None) -> str | None:
    """Exit-reason reducer: the first guard that fired wins; writing None clears it, which
    is how a new run in a thread starts (`agent/run_state.py`)."""
    if new is None:
        return None
    return current if current else new


class InputState(TypedDict):
    """What a caller passes in: the conversation, newest user message last."""

    messages: Annotated[list[AnyMessage], add_messages]


class AgentState(InputState, total=False):
    turns: int  # model calls made in this run
    tool_calls: int  # tool calls answered (valid or invalid, the first search too), never retries
    invalid_streak: int  # invalid tool calls in a row
    # Set once, by the first guard that fires; a plain str (an ExitReason's value), so a
    # checkpoint holds no docent type.
    exit_reason: Annotated[str | None, keep_first]
    sources: list[dict[str, Any]]  # every chunk retrieved this run, numbered from 1
    searches: int  # retrievals run
    empty_searches: int  # retrievals that came back empty
    reasked: bool  # the model was already asked again after an unusable reply
    cached: bool  # some model reply in this run came from the cache
    model_used: str  # id of the model that gave the latest reply
    fallback_used: bool  # some call in this run fell back down the model chain
    tokens_used: int  # total tokens the providers reported (0 for the extractive model)
    retrieval_ms: float  # time spent in searches, retries included
    error_code: str | None  # machine-readable detail, e.g. RETRIEVAL_FAILED
    retryable: bool  # a failure worth retrying (rate limit, model error, store) wrote the text
    response: str  # the final user-facing answer
    cited: list[dict[str, Any]]  # the sources the answer cites, in citation order


class OutputState(TypedDict, total=False):
    """What a run returns: the answer and how the run ended."""

    messages: list[AnyMessage]
    exit_reason: str
    response: str
    cited: list[dict[str, Any]]
    turns: int
    tool_calls: int
    cached: bool
    error_code: str | None
    retryable: bool
    sources: list[dict[str, Any]]
    model_used: str
    fallback_used: bool
    tokens_used: int
    retrieval_ms: float
