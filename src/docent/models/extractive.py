"""`extractive`: a deterministic, offline chat model that answers from retrieved passages.

It speaks the same protocol as a hosted model: on a new question it calls the search
tool; once the tool has answered it composes a markdown answer from the passages'
best-matching sentences, each with its `[n]` citation, and it refuses when nothing
relevant came back. It streams its answer token by token.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from concurrent.futures import Executor
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from docent.exit_reasons import REFUSAL
from docent.models.compose import compose_parts
from docent.models.followup import condensed
from docent.models.text import parse_references
from docent.models.unit_vectors import AnswerVectors
from docent.prompts import MAX_QUERY_CHARS, REASK_MESSAGE, SELECTION_HEADER

# Words a streamed chunk carries. Each chunk is an event through langchain-core's callbacks,
# LangGraph's event stream and an SSE frame: one word a chunk made a stream cost four
# answers by /chat; eight words a chunk (about a line of prose) streamed 2.4x the answers
# a second at ten clients, the first token as early (bench/README.md).
_CHUNK_WORDS = 8
_CHUNK = re.compile(rf"(?:\s*\S+){{1,{_CHUNK_WORDS}}}")


def split_selection(text: str) -> tuple[str, str]:
    """(question, selected text) from a message framed by `docent.chat.ChatTurn`."""
    question, marker, rest = text.partition(f"\n\n{SELECTION_HEADER}\n")
    if not marker:
        return text, ""
    selection = " ".join(line.removeprefix("> ").strip() for line in rest.splitlines())
    return question, selection.strip()


def _chunk_ids(message: ToolMessage) -> list[str] | None:
    """The chunk ids a search's tool message carries as its artifact, in passage order."""
    ids = message.artifact
    return [str(i) for i in ids] if isinstance(ids, list) else None


def _last_question(messages: Sequence[BaseMessage]) -> tuple[int, str, str, str] | None:
    """(where the user's last question is, that question standalone, its selection, and
    the earlier turns' words set before it as its scene when that made it standalone)."""
    # A re-ask nudge appended by the agent is an instruction, not the question.
    humans = [
        i
        for i, m in enumerate(messages)
        if isinstance(m, HumanMessage) and m.text != REASK_MESSAGE
    ]
    if not humans:
        return None
    question_at = humans[-1]
    question, selection = split_selection(messages[question_at].text)
    earlier = [split_selection(messages[i].text)[0] for i in humans if i < question_at]
    # A follow-up ("What is the default?") is searched, and answered, as the standalone
    # question it stands for.
    scene, asked = condensed(question, earlier)
    return question_at, f"{scene} {asked}" if scene else asked, selection, scene


def _query(question: str, selection: str) -> str:
    query = question
    if selection:  # the selection says what "this" refers to
        query = f"{query} {selection[:300]}"
    if len(query) > MAX_QUERY_CHARS:  # a message may be longer than a search query
        query = query[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
    return query


def search_query(messages: Sequence[BaseMessage]) -> str:
    """The search the user's last question stands for (follow-ups made standalone, the
    selection added): what this model would search, and what the agent searches first."""
    last = _last_question(messages)
    return _query(last[1], last[2]) if last else ""


class ExtractiveChatModel(BaseChatModel):
    """The built-in offline answerer; see the module docstring."""

    model_name: str = "extractive"
    vectors: AnswerVectors | None = Field(default=None, exclude=True)
    """Question and unit vectors for scoring units by meaning; without them, by words alone."""
    pool: Executor | None = Field(default=None, exclude=True)
    """Where composing runs (the process's bounded pool); None: the loop's default executor."""

    @property
    def _llm_type(self) -> str:
        return "extractive"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.bind(tool_names=names, **kwargs)

    def reply(self, messages: Sequence[BaseMessage], tool_names: Sequence[str] = ()) -> AIMessage:
        """The whole reply to `messages`: a search call or a composed answer."""
        planned = self._plan(messages, tool_names)
        return planned if isinstance(planned, AIMessage) else AIMessage("".join(planned))

    def _plan(
        self, messages: Sequence[BaseMessage], tool_names: Sequence[str]
    ) -> AIMessage | Iterator[str]:
        """A search call or the refusal (decided at once), or the answer's parts, which
        are composed as they are read."""
        last = _last_question(messages)
        if last is None:
            return AIMessage(REFUSAL)
        question_at, question, selection, scene = last
        tools = [m for m in messages[question_at:] if isinstance(m, ToolMessage)]

        if not tools and tool_names:
            query = _query(question, selection)
            call_id = "call_" + hashlib.sha256(query.encode()).hexdigest()[:16]
            return AIMessage(
                "", tool_calls=[{"name": tool_names[0], "args": {"query": query}, "id": call_id}]
            )
        refs = [r for m in tools for r in parse_references(m.text, _chunk_ids(m))]
        if not refs:
            return AIMessage(REFUSAL)
        framed = f"{question} {selection}" if selection else question
        if self.vectors is not None:  # the answer reads the question as the search did
            framed = self.vectors.respelled(framed)
        return compose_parts(framed, refs, self.vectors, scene)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self.reply(messages, kwargs.get("tool_names", ()))
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        loop = asyncio.get_running_loop()
        message = await loop.run_in_executor(
            self.pool, self.reply, messages, kwargs.get("tool_names", ())
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        planned = self._plan(messages, kwargs.get("tool_names", ()))
        if isinstance(planned, AIMessage):
            yield from _message_chunks(planned)
            return
        for part in planned:
            for chunk in _text_chunks(part):
                if run_manager:
                    run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        # Composing is CPU work: each part is made in the pool, and its tokens leave at once,
        # so the lead streams while the rest is still being chosen.
        planned = self._plan(messages, kwargs.get("tool_names", ()))
        if isinstance(planned, AIMessage):
            for chunk in _message_chunks(planned):
                yield chunk
            return
        loop = asyncio.get_running_loop()
        while (part := await loop.run_in_executor(self.pool, next, planned, None)) is not None:
            for chunk in _text_chunks(part):
                if run_manager:
                    await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk


def _message_chunks(message: AIMessage) -> Iterator[ChatGenerationChunk]:
    """A whole message as stream chunks: its tool call in one, or its words."""
    if not message.tool_calls:
        yield from _text_chunks(message.text)
        return
    call = message.tool_calls[0]
    yield ChatGenerationChunk(
        message=AIMessageChunk(
            content="",
            tool_call_chunks=[
                tool_call_chunk(
                    name=call["name"], args=json.dumps(call["args"]), id=call["id"], index=0
                )
            ],
        )
    )


def _text_chunks(text: str) -> Iterator[ChatGenerationChunk]:
    """Text as stream chunks of up to `_CHUNK_WORDS` words (each with the whitespace before
    it)."""
    for piece in _CHUNK.findall(text):
        yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
