"""Model replies cached by model id and the full message payload (ids excluded)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence

from cachetools import TTLCache
from langchain_core.messages import AIMessage, BaseMessage


def payload_key(model_id: str, tools_enabled: bool, messages: Sequence[BaseMessage]) -> str:
    """A hash of everything that determines the reply; random message ids left out."""
    body = [
        {
            "type": m.type,
            "content": m.content,
            "tool_calls": getattr(m, "tool_calls", None) or None,
            "tool_call_id": getattr(m, "tool_call_id", None),
        }
        for m in messages
    ]
    raw = json.dumps([model_id, tools_enabled, body], sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


class ReplyCache:
    """Bounded, expiring, thread-safe store of model replies; size 0 disables it."""

    def __init__(self, maxsize: int, ttl: float) -> None:
        self._cache: TTLCache[str, AIMessage] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl) if maxsize > 0 else None
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> AIMessage | None:
        if self._cache is None:
            return None
        with self._lock:
            reply = self._cache.get(key)
            if reply is None:
                self.misses += 1
                return None
            self.hits += 1
        return reply.model_copy(update={"id": None}, deep=True)

    def put(self, key: str, reply: AIMessage) -> None:
        if self._cache is None:
            return
        with self._lock:
            self._cache[key] = reply.model_copy(deep=True)
