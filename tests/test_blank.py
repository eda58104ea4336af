"""CONTRACT.md §1, EMPTY_INPUT: a message with nothing visible in it is empty."""

from __future__ import annotations

import pytest

from docent.blank import is_blank


@pytest.mark.parametrize("text", ["", " \t\n", "\u200b", "\x00" * 3, "\ufeff\u2060\u200c\u200d",
                                  "\u00a0\u3000", "\u3164", "\u2028"])
def test_nothing_visible_is_blank(text):
    assert is_blank(text)


@pytest.mark.parametrize("text", ["a", "\u200bhow do I ingest?\u200b", "\x00?", "é", "🙂", "日本"])
def test_anything_visible_is_not_blank(text):
    assert not is_blank(text)
