"""Model replies cached by model, endpoint, tool mode and the full message payload."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage

from docent.cache import TtlCache


def payload_key(model_id: str, tools: str, messages: Sequence[BaseMessage]) -> str:
    """A hash of everything that determines the reply; random message ids left out.

    `model_id` names the provider, the model and its endpoint (`NamedModel.cache_id`):
    the same model name served by another server is another model. `tools` says whether
    tools were offered (`on`), required or not offered (`off`).
    """
    body = [
        {
            "type": m.type,
            "content": m.content,
            "tool_calls": getattr(m, "tool_calls", None) or None,
            "tool_call_id": getattr(m, "tool_call_id", None),
        }
        for m in messages
    ]
    raw = json.dumps([model_id, tools, body], sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


class ReplyCache:
    """Model replies by payload key; copies go in and out so callers can't alias them."""

    def __init__(self, maxsize: int, ttl: float) -> None:
        self._cache: TtlCache[AIMessage] = TtlCache(maxsize, ttl)

    def get(self, key: str) -> AIMessage | None:
        reply = self._cache.get(key)
        return None if reply is None else reply.model_copy(update={"id": None}, deep=True)

    def put(self, key: str, reply: AIMessage) -> None:
        self._cache.put(key, reply.model_copy(deep=True))
