"""The agent: a LangGraph StateGraph alternating an `llm` node and a `tools` node.

A run searches the docs with the user's question before the first model call
(`search_question`; or, with `first_search=tool`, the first model call must search), so a
model that never calls tools still answers from passages. Every run ends in
`finalize_answer` (or straight after `check_input`) with exactly one exit reason; guards
fire in the order written in CONTRACT.md and the first one wins.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from datetime import UTC, datetime
from typing import Any, Literal

from langchain_core.exceptions import ModelRateLimitError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from pydantic import ValidationError

from docent.agent.breaker import CircuitOpenError
from docent.agent.citations import enforce_citations, renumber
from docent.agent.context import count_chars, fits_context
from docent.agent.llm_cache import ReplyCache, payload_key
from docent.agent.model_chain import ModelChain
from docent.agent.run_state import answer_message, start_run
from docent.agent.sanitize import strip_internal_metadata
from docent.agent.searching import RETRIEVAL_FAILED, Ledger, search
from docent.agent.state import AgentState, InputState, OutputState
from docent.agent.tools import SEARCH_TOOL, SearchArgs, make_search_tool
from docent.blank import is_blank
from docent.config import Settings
from docent.exit_reasons import CANNED, REFUSAL, ExitReason, is_refusal
from docent.models.extractive import search_query
from docent.models.factory import NamedModel
from docent.prompts import (
    INVALID_TOOL_MESSAGE,
    READER_PROMPT,
    REASK_MESSAGE,
    SYSTEM_PROMPT,
    TOOL_LIMIT_MESSAGE,
)
from docent.retrieval.types import Retriever

log = logging.getLogger(__name__)

GRAPH_NAME = "docent"


def _stop(reason: ExitReason, **extra: Any) -> dict[str, Any]:
    # The plain value: a checkpoint of the state then holds no docent type.
    return {"exit_reason": reason.value, "response": CANNED[reason], **extra}


def build_graph(
    model: BaseChatModel | Sequence[NamedModel],
    retriever: Retriever,
    settings: Settings,
    *,
    model_id: str | None = None,
    pool: Executor | None = None,
    reply_cache: ReplyCache | None = None,
) -> CompiledStateGraph:
    """Compile the agent around a chat model (or a fallback chain) and a retriever.

    Tests pass fakes. With a chain, each model is tried in order, after its own retries.
    Searches run in `pool` (see `docent.runtime`), else in the loop's default executor.
    Replies are cached in `reply_cache` (graphs may share one; on Redis, replicas share it),
    else in the graph's own, in memory.
    """
    search_tool = make_search_tool(
        retriever, settings.top_k, retries=settings.tool_retries,
        max_wait=settings.retry_max_wait_seconds, timeout=settings.retrieval_timeout_seconds,
        pool=pool,
    )
    chain = ModelChain(model, [search_tool], settings, model_id)
    cache = reply_cache or ReplyCache(settings.llm_cache_size, settings.llm_cache_ttl_seconds)

    async def check_input(state: AgentState) -> Command[Any]:
        # The first node of every run: a thread's earlier run leaves nothing but messages.
        last = state["messages"][-1] if state["messages"] else None
        if not isinstance(last, HumanMessage) or is_blank(last.text):
            empty = _stop(ExitReason.EMPTY_INPUT)
            return Command(update={**start_run(state, empty.pop("exit_reason")), **empty},
                           goto=END)
        return Command(update=start_run(state),
                       goto="llm" if settings.first_search == "tool" else "search_question")

    async def search_question(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Search with the user's question before any model call; counts as a tool call."""
        if not fits_context(state["messages"], settings.max_context_chars):
            return _stop(ExitReason.MAX_CONTEXT_REACHED)  # no search for a run that can't go on
        query = search_query(state["messages"])
        call_id = "search_" + hashlib.sha256(query.encode()).hexdigest()[:16]
        ledger = Ledger.of(state)
        asked = AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": query},
                                           "id": call_id}])
        room = settings.max_context_chars - count_chars([*state["messages"], asked])
        found = await search(search_tool, {"query": query}, call_id, config, ledger, room)
        if found is None:
            failed = ToolMessage("Search failed.", tool_call_id=call_id, status="error")
            return {**RETRIEVAL_FAILED, "messages": [asked, failed], "tool_calls": 1}
        return {"messages": [asked, found], "tool_calls": 1, **ledger.update()}

    async def call_model(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        turns = state.get("turns", 0)
        if turns >= settings.max_turns:
            return _stop(ExitReason.MAX_TURNS_REACHED)
        history = state["messages"]
        if not fits_context(history, settings.max_context_chars):
            return _stop(ExitReason.MAX_CONTEXT_REACHED)

        tools: Literal["off", "on", "required"] = (
            "off" if state.get("exit_reason") == ExitReason.MAX_TOOL_CALLS_REACHED else "on"
        )
        if settings.first_search == "tool" and turns == 0:
            tools = "required"  # the first model call must search (tool_choice)
        date = datetime.now(UTC).date().isoformat()
        system = SYSTEM_PROMPT.format(current_date=date, reader=_reader(config))
        prompt = [SystemMessage(system), *history]
        if state.get("reasked"):
            prompt.append(HumanMessage(REASK_MESSAGE))
            tools = "off"
        # A disabled cache (DOCENT_LLM_CACHE_SIZE=0) is neither keyed nor asked.
        key = payload_key(chain.primary_cache_id, tools, prompt) if cache.enabled else None
        update: dict[str, Any] = {"turns": turns + 1}

        reply = await cache.get(key) if key else None
        update["cached"] = reply is not None  # the last call, the one that answers, decides
        if reply is not None:
            update["model_used"] = chain.primary
        else:
            reply, used, failures = await chain.ask(
                prompt, tools, config, state.get("model_used")
            )
            if failures and reply is not None:
                update["fallback_used"] = True
            if reply is None:
                limited = all(isinstance(e, ModelRateLimitError) for e in map(_cause, failures))
                reason = ExitReason.RATE_LIMITED if limited else ExitReason.LLM_ERROR
                failed = {"model_used": chain.last, "fallback_used": len(failures) > 1,
                          "retryable": True}  # also after an earlier guard's reason
                return {**update, **failed, **_stop(reason)}
            update["model_used"] = used
            usage: dict[str, Any] = dict(reply.usage_metadata or {})
            update["tokens_used"] = state.get("tokens_used", 0) + usage.get("total_tokens", 0)
            if key and used == chain.primary and (reply.tool_calls or reply.text.strip()):
                await cache.put(key, reply)

        if not reply.tool_calls and not reply.text.strip():
            if state.get("reasked"):
                return {**update, **_stop(ExitReason.LLM_GENERATION_FAILURE)}
            failure = ExitReason.LLM_GENERATION_FAILURE.value
            return {**update, "reasked": True, "exit_reason": failure}
        return {**update, "messages": [reply]}

    async def run_tools(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        call_msg = state["messages"][-1]
        assert isinstance(call_msg, AIMessage)
        used = state.get("tool_calls", 0)
        streak = state.get("invalid_streak", 0)
        ledger = Ledger.of(state)
        replies: list[ToolMessage] = []
        update: dict[str, Any] = {}

        for call in call_msg.tool_calls:
            if used >= settings.max_tool_calls or state.get("exit_reason") == (
                ExitReason.MAX_TOOL_CALLS_REACHED
            ):
                update["exit_reason"] = ExitReason.MAX_TOOL_CALLS_REACHED.value
                replies.append(ToolMessage(TOOL_LIMIT_MESSAGE, tool_call_id=call["id"]))
                continue
            used += 1
            problem = _invalid_call_problem(call)
            if problem:
                streak += 1
                replies.append(
                    ToolMessage(
                        INVALID_TOOL_MESSAGE.format(problem=problem),
                        tool_call_id=call["id"],
                        status="error",
                    )
                )
                if streak >= 2:
                    update.update(_stop(ExitReason.INVALID_TOOL_CALL))
                    break
                continue
            streak = 0
            room = settings.max_context_chars - count_chars([*state["messages"], *replies])
            found = await search(search_tool, call["args"], call["id"] or "", config, ledger,
                                 room)
            if found is None:
                update.update(RETRIEVAL_FAILED)
                replies.append(
                    ToolMessage("Search failed.", tool_call_id=call["id"], status="error")
                )
                break
            replies.append(found)

        return {
            **update,
            "messages": replies,
            "tool_calls": used,
            "invalid_streak": streak,
            **ledger.update(),
        }

    def finalize_answer(state: AgentState) -> dict[str, Any]:
        if state.get("response"):  # a guard already wrote the user-facing text
            return {"cited": []}
        last = state["messages"][-1]
        answer = last.text.strip() if isinstance(last, AIMessage) else ""
        searches = state.get("searches", 0)
        if searches == 0 or state.get("empty_searches", 0) == searches or is_refusal(answer):
            # Never answer without documentation, whatever the model wrote.
            return {
                "exit_reason": ExitReason.LLM_GENERATION_FAILURE.value,
                "response": REFUSAL,
                "cited": [],
            }
        text, cited = enforce_citations(strip_internal_metadata(answer), state.get("sources", []))
        if cited:
            text, cited = renumber(text, cited)  # [1], [2], [3] in the order a reader meets them
        else:  # it cited nothing: show the passages it was given (CONTRACT.md §2)
            cited = list(state.get("sources", []))
        return {"exit_reason": ExitReason.COMPLETED.value, "response": text, "cited": cited}

    def after_search(state: dict[str, Any]) -> Literal["llm", "finalize_answer"]:
        # Nothing found (or the store failed): the refusal, without a model call, so no
        # token that would be overruled is ever streamed.
        if state.get("response") or state.get("empty_searches", 0) == state.get("searches", 0):
            return "finalize_answer"
        return "llm"

    def after_model(state: dict[str, Any]) -> Literal["tools", "llm", "finalize_answer"]:
        if state.get("response"):
            return "finalize_answer"
        last = state["messages"][-1]
        if isinstance(last, AIMessage):
            return "tools" if last.tool_calls else "finalize_answer"
        if state.get("reasked"):  # the reply was unusable and not kept: ask once more
            return "llm"
        raise ValueError(f"unexpected state after the llm node: {type(last).__name__}")

    def after_tools(state: dict[str, Any]) -> Literal["llm", "finalize_answer"]:
        if state.get("response"):
            return "finalize_answer"
        # `first_search=tool`: the first searches found nothing, the refusal follows at once.
        searches = state.get("searches", 0)
        if searches and state.get("empty_searches", 0) == searches:
            return "finalize_answer"
        return "llm"

    async def finalize_and_record(state: AgentState) -> dict[str, Any]:
        return answer_message(state, finalize_answer(state))

    graph = StateGraph(AgentState, input_schema=InputState, output_schema=OutputState)
    # Each node names the next one (a Command): no router runs between two steps.
    graph.add_node("check_input", check_input, destinations=("search_question", "llm", END))
    graph.add_node("search_question", _routed(search_question, after_search),
                   destinations=("llm", "finalize_answer"))
    graph.add_node("llm", _routed(call_model, after_model),
                   destinations=("tools", "llm", "finalize_answer"))
    graph.add_node("tools", _routed(run_tools, after_tools),
                   destinations=("llm", "finalize_answer"))
    graph.add_node("finalize_answer", finalize_and_record)
    graph.add_edge(START, "check_input")
    graph.add_edge("finalize_answer", END)
    return graph.compile(name=GRAPH_NAME)


Step = Callable[[AgentState, RunnableConfig], Awaitable[dict[str, Any]]]


def _routed(step: Step, route: Callable[[dict[str, Any]], str]) -> Callable[..., Any]:
    """A node running `step`, then naming the next node by `route` applied to the state
    the step's update leaves."""

    async def node(state: AgentState, config: RunnableConfig) -> Command[Any]:
        update = await step(state, config)
        return Command(update=update, goto=route(_merged(state, update)))

    return node


def _merged(state: AgentState, update: dict[str, Any]) -> dict[str, Any]:
    """The state as the next step will see it: `update` applied, its messages appended."""
    view: dict[str, Any] = {**state, **update}
    if "messages" in update:
        view["messages"] = [*state["messages"], *update["messages"]]
    return view


def _cause(failure: BaseException) -> BaseException | None:
    """What a provider failed with; for one skipped by its open circuit, what opened it."""
    return failure.last_error if isinstance(failure, CircuitOpenError) else failure


def _invalid_call_problem(call: ToolCall) -> str | None:
    if call["name"] != SEARCH_TOOL:
        return f"unknown tool {call['name']!r}"
    try:
        SearchArgs.model_validate(call["args"])
    except ValidationError as exc:
        fields = ", ".join(str(e["loc"][0]) if e["loc"] else "arguments" for e in exc.errors())
        return f"invalid arguments for {SEARCH_TOOL} ({fields})"
    return None


def _reader(config: RunnableConfig) -> str:
    profile = (config.get("configurable") or {}).get("user_context")
    if not profile:
        return ""
    described = "; ".join(f"{k}: {v}" for k, v in sorted(profile.items()))
    return READER_PROMPT.format(profile=described)
