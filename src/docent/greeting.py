"""The greeting fast path: a bare hello gets a welcome without retrieval or a model call."""

from __future__ import annotations

import re

_GREETINGS = frozenset(
    {
        "hi",
        "hello",
        "hey",
        "hiya",
        "howdy",
        "greetings",
        "yo",
        "hi there",
        "hello there",
        "hey there",
        "good morning",
        "good afternoon",
        "good evening",
        "salam",
        "salaam",
        "assalam o alaikum",
        "assalamu alaikum",
        "asalam o alaikum",
        "assalam alaikum",
        "as salamu alaykum",
        "salam alaikum",
    }
)
_NOT_LETTERS = re.compile(r"[^a-z ]+")

WELCOME = (
    "Hello! I'm docent, the assistant for this documentation. Ask me how to set something "
    "up, configure it or use it, and I'll answer from the docs with numbered references "
    "to the pages I quote. If the docs don't cover something, I'll say so."
)


def is_greeting(message: str) -> bool:
    """True for a bare greeting, whatever its case, punctuation and spacing."""
    words = _NOT_LETTERS.sub(" ", message.lower().replace("-", " ")).split()
    return 0 < len(words) <= 4 and " ".join(words) in _GREETINGS
