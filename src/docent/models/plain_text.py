"""A conversation with tool turns, rewritten for a model that has no tool support.

Many small local models are served with a chat template that knows only system, user and
assistant turns: tool calls and tool results are dropped (llama-cpp-python's fallback
formats), or the request is refused. For such a model the searches and their passages are
folded into the user's turn as text, and turns of one role in a row are merged, since
templates that insist on alternating roles refuse anything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from docent.prompts import PASSAGES_AS_TEXT


def tool_turns_as_text(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """`messages` with tool calls removed and tool results shown as user text."""
    queries: dict[str, str] = {}
    out: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            for call in message.tool_calls:
                queries[call["id"] or ""] = str(call["args"].get("query", ""))
            if not message.text.strip():
                continue
            message = AIMessage(message.text)
        elif isinstance(message, ToolMessage):
            query = queries.get(message.tool_call_id, "")
            message = HumanMessage(PASSAGES_AS_TEXT.format(query=query, passages=message.text))
        if out and out[-1].type == message.type and message.type in ("human", "ai"):
            merged = f"{out[-1].text}\n\n{message.text}"
            out[-1] = HumanMessage(merged) if message.type == "human" else AIMessage(merged)
            continue
        out.append(message)
    return out
