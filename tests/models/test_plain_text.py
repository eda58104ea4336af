"""CONTRACT.md §5: a model without tool support reads the searches as text."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from docent.models.plain_text import tool_turns_as_text


def test_tool_turns_become_user_text_and_roles_alternate():
    call = {"name": "search_docs", "args": {"query": "limit"}, "id": "c1"}
    messages = [
        SystemMessage("rules"),
        HumanMessage("Earlier?"), AIMessage("Earlier answer [1]."),
        HumanMessage("How do I change the limit?"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("[1] Guide > Limits (guide.md)\nSet it.", tool_call_id="c1"),
        AIMessage("Let me look again.", tool_calls=[{**call, "id": "c2"}]),
        ToolMessage("DOCUMENTATION_SEARCH_RESULT: EMPTY", tool_call_id="c2"),
    ]
    out = tool_turns_as_text(messages)
    assert [m.type for m in out] == ["system", "human", "ai", "human", "ai", "human"]
    assert out[3].text.startswith("How do I change the limit?\n\nDocumentation search for "
                                  '"limit" returned:\n\n[1] Guide > Limits (guide.md)')
    assert out[4].text == "Let me look again." and not out[4].tool_calls
    assert out[5].text.endswith("DOCUMENTATION_SEARCH_RESULT: EMPTY")
