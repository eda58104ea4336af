"""Model replies cached by model, endpoint, tool mode and the full message payload.

Key-building (`payload_key`) is apart from storage: the store is memory (`docent.cache`) or,
with Redis, shared by every replica (`docent.state.caches`, as JSON).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, message_to_dict, messages_from_dict

from docent.cache import AsyncStore, InLoop, TtlCache
from docent.metrics import count_lookup


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

    def __init__(self, maxsize: int, ttl: float, store: AsyncStore[AIMessage] | None = None):
        if store is None or maxsize <= 0:
            store = InLoop(TtlCache(maxsize, ttl))
        self._store = store
        self.enabled = maxsize > 0

    async def get(self, key: str) -> AIMessage | None:
        reply = await self._store.get(key)
        if self.enabled:
            count_lookup("reply", reply is not None)
        return None if reply is None else reply.model_copy(update={"id": None}, deep=True)

    async def put(self, key: str, reply: AIMessage) -> None:
        await self._store.put(key, reply.model_copy(deep=True))


def encode_reply(reply: AIMessage) -> str:
    return json.dumps(message_to_dict(reply), default=str)


def decode_reply(raw: bytes) -> AIMessage:
    message = messages_from_dict([json.loads(raw)])[0]
    if not isinstance(message, AIMessage):
        raise ValueError("not a model reply")
    return message
