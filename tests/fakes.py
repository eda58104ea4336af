"""Test doubles: a scripted chat model that streams tool calls, and an in-memory retriever."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field, PrivateAttr

from docent.retrieval.types import Chunk, Hit

Step = AIMessage | BaseException | Callable[[list[BaseMessage]], AIMessage]


def call(query: str = "guards", name: str = "search_docs", call_id: str | None = None,
         **args: Any) -> AIMessage:
    """An AIMessage that asks for one tool call."""
    payload = {"query": query, **args} if name == "search_docs" and "raw" not in args else args
    payload.pop("raw", None)
    return AIMessage(
        "", tool_calls=[{"name": name, "args": payload, "id": call_id or f"c{abs(hash(query))}"}]
    )


def tool_call_generation(message: AIMessage) -> ChatGenerationChunk:
    """The one chunk a streaming model sends for `message`'s tool calls."""
    return ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
        tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
        for i, c in enumerate(message.tool_calls)
    ]))


class ScriptedChatModel(BaseChatModel):
    """Replays `steps` in order; an exception step is raised. Streams like a real model."""

    steps: list[Any] = Field(default_factory=list)
    model_name: str = "scripted"
    _calls: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[dict[str, Any]]:
        return self._calls

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self.bind(tools_enabled=True, **kwargs)

    def _next(self, messages: list[BaseMessage], **kwargs: Any) -> AIMessage:
        self._calls.append({"messages": messages, "tools": kwargs.get("tools_enabled", False)})
        if not self.steps:
            raise AssertionError("ScriptedChatModel ran out of steps")
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step(messages) if callable(step) else step

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages, **kwargs))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        message = self._next(messages, **kwargs)
        if message.tool_calls:
            yield tool_call_generation(message)
            return
        for piece in re.findall(r"\s*\S+", message.text) or [message.text]:
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk


class PacedChatModel(ScriptedChatModel):
    """A scripted model whose async stream waits `delay` seconds before each token."""

    delay: float = 0.0
    emitted: list[str] = Field(default_factory=list)

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: Any = None, **kwargs: Any,
                       ) -> AsyncIterator[ChatGenerationChunk]:
        message = self._next(messages, **kwargs)
        if message.tool_calls:
            yield tool_call_generation(message)
            return
        for piece in re.findall(r"\s*\S+", message.text):
            await asyncio.sleep(self.delay)
            self.emitted.append(piece)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))


def chunk(n: int, text: str, source_file: str = "guide.md", section: str = "Guide > Limits",
          ) -> Chunk:
    return Chunk(
        chunk_id=f"chunk{n:04d}", source_file=source_file, title="Guide",
        section_title=section, slug=section.split(" > ")[-1].lower().replace(" ", "-"),
        page_url="", text=text,
    )


@dataclass
class FakeRetriever:
    """Keyword retriever over fixed chunks; `failures` raise before results come back."""

    chunks: list[Chunk] = field(default_factory=list)
    failures: list[BaseException] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def search(self, query: str, k: int) -> list[Hit]:
        self.queries.append(query)
        if self.failures:
            raise self.failures.pop(0)
        words = {w for w in re.findall(r"[a-z]+", query.lower()) if len(w) > 3}
        scored = []
        for c in self.chunks:
            overlap = len(words & set(re.findall(r"[a-z]+", c.text.lower())))
            if overlap:
                scored.append(Hit(c, min(1.0, 0.4 + 0.1 * overlap)))
        scored.sort(key=lambda h: -h.score)
        return scored[:k]

    def count(self) -> int:
        return len(self.chunks)


GUIDE = [
    chunk(1, "The tool-call limit caps retriever calls per run. Set DOCENT_MAX_TOOL_CALLS "
             "to change the tool-call limit; the default is 3."),
    chunk(2, "The turn limit caps model calls per run. Set DOCENT_MAX_TURNS to change it; "
             "the default is 6.", section="Guide > Turns"),
    chunk(3, "Docent streams answers as server-sent events from the stream endpoint.",
          source_file="streaming.md", section="Streaming"),
]


def slow_answers(seconds: float) -> Callable[[list[BaseMessage]], AIMessage]:
    """A model step: search, then, after `seconds`, answer naming the question answered
    (for tests of turns that overlap in time)."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        if messages[-1].type == "tool":
            time.sleep(seconds)
            asked = [m.content for m in messages if m.type == "human"][-1]
            return AIMessage(f"Answer to {asked} [1].")
        return call("tool-call limit", call_id=f"c{len(messages)}")

    return step
