"""The context-size guard: trim newest-first to a character budget and report drops."""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, trim_messages


def message_chars(message: BaseMessage) -> int:
    """Characters a message puts in front of the model: text plus tool-call arguments."""
    size = len(message.text) if isinstance(message.content, list) else len(message.content)
    for call in getattr(message, "tool_calls", None) or []:
        size += len(call["name"]) + len(json.dumps(call["args"]))
    return size


def count_chars(messages: Sequence[BaseMessage]) -> int:
    return sum(message_chars(m) for m in messages)


def fits_context(messages: Sequence[BaseMessage], budget: int) -> bool:
    """True when trimming newest-first to `budget` characters would drop nothing."""
    kept = trim_messages(
        list(messages),
        max_tokens=budget,
        token_counter=count_chars,
        strategy="last",
        allow_partial=False,
    )
    return len(kept) == len(messages)
