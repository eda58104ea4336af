"""The context guard counts characters directly; it must say what trimming would say."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, trim_messages

from docent.agent.context import count_chars, fits_context

MESSAGES = [
    HumanMessage("How do I change the tool-call limit?"),
    AIMessage("", tool_calls=[{"name": "search_docs", "args": {"query": "limit"}, "id": "c1"}]),
    ToolMessage("[1] Limits (limits.md)\nDOCENT_MAX_TOOL_CALLS caps the searches.",
                tool_call_id="c1"),
    AIMessage("Set DOCENT_MAX_TOOL_CALLS [1]."),
]


@pytest.mark.parametrize("slack", [-50, -1, 0, 1, 50])
def test_fits_exactly_when_trimming_newest_first_would_drop_nothing(slack):
    budget = count_chars(MESSAGES) + slack
    kept = trim_messages(MESSAGES, max_tokens=budget, token_counter=count_chars,
                         strategy="last", allow_partial=False)
    assert fits_context(MESSAGES, budget) == (len(kept) == len(MESSAGES)) == (slack >= 0)
