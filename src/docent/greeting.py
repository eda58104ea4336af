"""The greeting fast path: a bare hello gets a welcome, a bare "what can you do?" what docent
is for, a bare thanks a "you're welcome" and a bare "ok" an invitation to ask on, without
retrieval or a model call."""

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
# What a user says once an answer helped: a search for "thanks" would end in the refusal.
_THANKS = frozenset(
    {
        "thanks",
        "thank you",
        "thanks a lot",
        "thanks so much",
        "thank you so much",
        "thank you very much",
        "many thanks",
        "thx",
        "ty",
        "cheers",
        "great thanks",
        "perfect thanks",
        "awesome thanks",
        "ok thanks",
        "okay thanks",
        "ok thank you",
        "got it thanks",
    }
)
# What a user asks of the assistant itself: searched, "what can you do?" and "who are you?"
# were refused, and "help" was answered with the docs' table of contents.
_ABOUT = frozenset(
    {
        "help",
        "help me",
        "help please",
        "please help",
        "what can you do",
        "what do you do",
        "what can you help with",
        "what can you help me with",
        "who are you",
        "what are you",
        "what can i ask",
        "what can i ask you",
        "what should i ask",
        "how does this work",
        "how do i use this",
        "how do i use you",
    }
)
# What a user says to an answer that needs no reply: searched, "ok" was answered with the
# health check's `"status": "ok"`.
_ACKNOWLEDGEMENTS = frozenset(
    {
        "ok",
        "okay",
        "k",
        "alright",
        "all right",
        "got it",
        "i see",
        "understood",
        "makes sense",
        "that makes sense",
        "sounds good",
        "cool",
        "great",
        "nice",
        "perfect",
        "awesome",
    }
)
_NOT_LETTERS = re.compile(r"[^a-z ]+")

WELCOME = (
    "Hello! I'm docent, the assistant for this documentation. Ask me how to set something "
    "up, configure it or use it, and I'll answer from the docs with numbered references "
    "to the pages I quote. If the docs don't cover something, I'll say so."
)

ABOUT = WELCOME.removeprefix("Hello! ")

YOU_ARE_WELCOME = "You're welcome! Ask me anything else about the documentation."

ASK_ON = "Ask me anything else about the documentation."

# Who a greeting may be addressed to: "hello docent", "hi all".
_ADDRESSEES = frozenset({"docent", "bot", "assistant", "there", "all", "everyone", "team"})
_REPEATED_LETTER = re.compile(r"([a-z])\1+")


def courtesy_reply(message: str) -> str | None:
    """The fixed reply to a bare greeting, a bare question about the assistant itself, a bare
    thanks or a bare acknowledgement, whatever its case, punctuation and spacing, and to close
    variants: stretched or doubled letters ("hiii", "helo"), a repeat ("hi hi") or an
    addressee ("hello docent", "thanks docent"); None for anything else."""
    plain = _plain(message)
    return _REPLIES.get(plain) if plain is not None else None


def _plain(message: str) -> str | None:
    """The message as the fast path's lists would hold it; None past five words."""
    words = _NOT_LETTERS.sub(" ", message.lower().replace("-", " ")).split()
    return _canonical(words) if 0 < len(words) <= 5 else None


def _canonical(words: list[str]) -> str:
    squeezed = [_REPEATED_LETTER.sub(r"\1", w) for w in words]
    kept = [w for i, w in enumerate(squeezed) if i == 0 or w != squeezed[i - 1]]
    while len(kept) > 1 and kept[-1] in _ADDRESSEES:
        kept.pop()
    return " ".join(kept)


_REPLIES = {
    _canonical(text.split()): reply
    for texts, reply in ((_GREETINGS, WELCOME), (_ABOUT, ABOUT), (_THANKS, YOU_ARE_WELCOME),
                         (_ACKNOWLEDGEMENTS, ASK_ON))
    for text in texts
}
