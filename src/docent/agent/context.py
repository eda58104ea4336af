"""The context-size guard: whether a conversation fits a character budget."""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.messages import BaseMessage


def message_chars(message: BaseMessage) -> int:
    """Characters a message puts in front of the model: text plus tool-call arguments."""
    size = len(message.text) if isinstance(message.content, list) else len(message.content)
    for call in getattr(message, "tool_calls", None) or []:
        size += len(call["name"]) + len(json.dumps(call["args"]))
    return size


def count_chars(messages: Sequence[BaseMessage]) -> int:
    return sum(message_chars(m) for m in messages)


def fits_context(messages: Sequence[BaseMessage], budget: int) -> bool:
    """True when the messages take at most `budget` characters: trimming newest-first to
    the budget (langchain's `trim_messages`, which this was) would drop nothing. Counted
    directly, it costs a tenth as much, twice a run."""
    return count_chars(messages) <= budget
