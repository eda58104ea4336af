"""A follow-up question read in its conversation, for a model that cannot read one.

The built-in `extractive` model has no language understanding: "What chain ID does it use?"
after "What is the Shannon testnet?" must become "What chain ID does the Shannon testnet
use?" before it can be searched or answered. A model that reads conversations gets the
same standalone question for the agent's first search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docent.models.text import terms

_FOLLOWUP_WORDS = frozenset(
    "it its this that these those they them their there one ones he she his her".split()
)


_ELLIPTICAL = re.compile(r"\s*(?:and|also|what\s+about|how\s+about|same\s+for)\b", re.I)


# An earlier question that names what the conversation is about: "What is the Shannon
# testnet?", "What is FileResponse for?", "How does IceDB work?".
_SUBJECT = re.compile(
    r"^\s*(?:what\s+(?:is|are|was|were)|what's|tell\s+me\s+about|explain|describe"
    r"|how\s+(?:does|do)|who\s+(?:is|are))\s+(?P<subject>.+?)"
    r"(?:\s+(?:used\s+for|for|do|work|works|mean|about))?\s*[?.!]*\s*$",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their)\b", re.I)
_MAX_SUBJECT_WORDS = 6
_PERSON = re.compile(r"(?:i|we|you)\b", re.I)
_SEVERAL = re.compile(r"\b(?:and|or|between|difference|vs)\b", re.I)


def condense_query(question: str, earlier_questions: Sequence[str]) -> str:
    """A standalone question for a follow-up that leans on the previous turn: its first
    pronoun replaced by what that turn asked about ("What chain ID does it use?" after
    "What is the Shannon testnet?": "What chain ID does the Shannon testnet use?"), else
    the previous question prefixed; the previous question standalone in turn, so a third
    turn ("And the RPC URL?") still knows what the first was about."""
    if not earlier_questions:
        return question
    words = set(re.findall(r"[a-z']+", question.lower()))
    # A pronoun, nothing else, or an ellipsis ("what about going faster?", "And with
    # Foundry?"): it asks about what the turn before asked about.
    if words & _FOLLOWUP_WORDS or len(terms(question)) <= 1 or _ELLIPTICAL.match(question):
        previous = condense_query(earlier_questions[-1], earlier_questions[:-1])
        subject = _subject(previous)
        if subject:
            named, replaced = _PRONOUN.subn(lambda m: _naming(m.group(0), subject), question, 1)
            if replaced:
                return named
        return f"{_as_scene(previous)} {question}"
    return question


def _as_scene(question: str) -> str:
    """An earlier question as a sentence setting the scene for the one asked now: what
    the answer should be is then read from the question asked now alone ("How long does
    an entry stay in it?" asks for a duration, though "Why does docent cache answers?"
    came first)."""
    return question.rstrip().rstrip("?!.").rstrip() + "."


def _subject(question: str) -> str | None:
    """What a "What is X?" question is about: X (short enough to stand for a pronoun)."""
    m = _SUBJECT.match(question)
    if m is None:
        return None
    subject = m.group("subject").strip()
    if _PERSON.match(subject):
        return None  # "How do I stream answers?" asks how to do something, about no subject
    if len(subject.split()) > _MAX_SUBJECT_WORDS or _SEVERAL.search(subject):
        return None  # "the difference between A and B": "them" is A and B, not the difference
    return subject


def _naming(pronoun: str, subject: str) -> str:
    """The subject in the pronoun's place: "its" and "their" become "X's"."""
    return f"{subject}'s" if pronoun.lower() in ("its", "their") else subject
