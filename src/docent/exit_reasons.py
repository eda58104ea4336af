"""The closed set of ways a run can end, with what the user is told for each."""

from __future__ import annotations

import re
from enum import StrEnum

REFUSAL = "I don't have enough information in the current documentation to answer that."


def _plain(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(re.sub(r"[\"\u201c\u201d*_`.]", " ", text).split()).lower()


def is_refusal(text: str) -> bool:
    """Whether a model's reply is the refusal sentence, give or take quotes, emphasis, a
    curly apostrophe or the final period (hosted models add them)."""
    return _plain(text) == _plain(REFUSAL)


class ExitReason(StrEnum):
    COMPLETED = "COMPLETED"
    EMPTY_INPUT = "EMPTY_INPUT"
    MAX_TURNS_REACHED = "MAX_TURNS_REACHED"
    MAX_TOOL_CALLS_REACHED = "MAX_TOOL_CALLS_REACHED"
    MAX_CONTEXT_REACHED = "MAX_CONTEXT_REACHED"
    RATE_LIMITED = "RATE_LIMITED"
    LLM_ERROR = "LLM_ERROR"
    LLM_GENERATION_FAILURE = "LLM_GENERATION_FAILURE"
    INVALID_TOOL_CALL = "INVALID_TOOL_CALL"


# Messages shown when a guard ends the run without a model answer. They are the
# whole user-facing text: no internals, no exception names.
CANNED: dict[ExitReason, str] = {
    ExitReason.EMPTY_INPUT: "Please type a question about the documentation.",
    ExitReason.MAX_TURNS_REACHED: (
        "I couldn't finish answering within the allowed number of steps. "
        "Please try a more specific question."
    ),
    ExitReason.MAX_CONTEXT_REACHED: (
        "This conversation has grown too long for me to answer reliably. "
        "Please start a new conversation and ask your question again."
    ),
    ExitReason.RATE_LIMITED: (
        "The assistant is receiving too many requests right now. "
        "Please wait a moment and try again."
    ),
    ExitReason.LLM_ERROR: (
        "Sorry, something went wrong while generating the answer. Please try again."
    ),
    ExitReason.LLM_GENERATION_FAILURE: (
        "Sorry, I couldn't produce an answer to that. Please rephrase your question."
    ),
    ExitReason.INVALID_TOOL_CALL: (
        "Sorry, I couldn't search the documentation for that. Please rephrase your question."
    ),
}

RETRIEVAL_FAILED_MESSAGE = (
    "The documentation search is having a temporary service interruption, so I can't "
    "answer from the docs right now. Please try again in a moment."
)

# Whether the same request may succeed if sent again unchanged, for each reason's own text.
# A response is also retryable when a later failure wrote a "try again" text (CONTRACT §1).
RETRYABLE: frozenset[ExitReason] = frozenset({ExitReason.RATE_LIMITED, ExitReason.LLM_ERROR})
