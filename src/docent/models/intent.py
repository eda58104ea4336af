"""What kind of answer a question asks for, read from its wording.

The extractive model leads with the statement that answers the question asked: a value for
"how many", a name for "which setting", the steps or code for "how do I", a definition for
"what is". Only the question's own wording is read; nothing here knows any corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["howto", "value", "name", "outcome", "concept", "yesno", "other"]

_HOWTO = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|might|shall)\s+(?:i|we|you|one)\b"
    r"|\bhow\s+to\b|\bhow\s+(?:do|does)\s+(?:\w+\s+){0,3}(?:set|configure|enable|make)\b"
    r"|\b(?:what(?:'s|\s+is)|which\s+is)\s+the\s+(?:best|recommended|right|correct|proper|"
    r"simplest|easiest|preferred)\s+way\b"
    r"|\bis\s+there\s+a\s+way\b|\bwhat\s+(?:do|should)\s+i\s+(?:do|use|run|put|add|write)\b"
    r"|\bwhere\s+(?:do|should|can)\s+i\s+(?:put|add|set|configure|define|declare|place)\b"
    r"|^\s*(?:show\s+me\s+how|explain\s+how\s+to)\b",
    re.I,
)
_VALUE = re.compile(
    r"\bhow\s+(?:much|many|long|big|large|often|fast|old|soon|frequently)\b"
    r"|\bwhat\s+(?:percentage|percent|amount|fraction|share|number)\b"
    r"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:\w+\s+){0,3}?"
    r"(?:default|maximum|minimum|max|min|limit|size|price|cost|fee|length|duration|timeout|"
    r"port|version|rate|ratio|threshold|interval|period|amount|count|number|supply|address|"
    r"id|chain\s+id|apy|apr)s?\b"
    r"|\b(?:which|what)\s+version\b|\bwhen\s+(?:was|were|did|does|is|will)\b|\bsince\s+when\b"
    r"|\b(?:cheapest|most\s+expensive|charges?|costs?)\b",
    re.I,
)
_NAME_NOUNS = (
    r"variable|setting|option|parameter|param|argument|flag|command|function|class|method|"
    r"decorator|header|field|key|file|endpoint|event|status(?:\s+code)?|code|type|tool|"
    r"library|package|module|server|media\s+type|format|keyword|attribute|property|exception|"
    r"error|middleware|dependency|library|framework|network|wallet|token|contract|service|"
    r"provider|model|response|object|hook|api|route|path|extension|plugin|url|uri|software|"
    r"address|name|command\s+line|cli"
)
_NAME = re.compile(
    rf"\b(?:which|what)\s+(?:\w+\s+){{0,3}}?(?:{_NAME_NOUNS})s?\b"
    r"|\bwhat\s+(?:is|are)\s+(?:it|they)\s+called\b|\bwhat\s+do\s+i\s+(?:import|call|name)\b",
    re.I,
)
_OUTCOME = re.compile(
    r"\bwhat\s+happens\b|\bwhat\s+(?:does|will)\s+(?:\w+\s+){0,4}(?:return|do|send|show|get)\b"
    r"|\bwhat\s+(?:do|will)\s+(?:i|we|you|users?|clients?)\s+(?:get|see|receive)\b",
    re.I,
)
_CONCEPT = re.compile(
    r"^\s*(?:what\s+(?:is|are)\s+(?:a|an|the)?\b|why\b|explain\b|describe\b)"
    r"|\bwhat(?:'s|\s+is)\s+the\s+difference\b|\bwhat\s+does\s+.+\s+mean\b|\bwhy\b",
    re.I,
)
_YESNO = re.compile(
    r"^\s*(?:can|could|does|do|is|are|should|will|would|may|must|has|have)\b", re.I
)


@dataclass(frozen=True)
class Intent:
    """The kind of answer a question wants."""

    kind: Kind

    @property
    def wants_code(self) -> bool:
        """Whether an example (code, a command) is part of a good answer."""
        return self.kind in ("howto", "name")

    @property
    def wants_specifics(self) -> bool:
        """Whether the answer is a concrete thing: a value, a name, a command."""
        return self.kind in ("howto", "value", "name", "outcome")


def intent_of(question: str) -> Intent:
    """The kind of answer `question` asks for, the most specific reading first."""
    text = " ".join(question.split())
    if _OUTCOME.search(text):
        return Intent("outcome")
    if _VALUE.search(text):
        return Intent("value")
    if _HOWTO.search(text):
        return Intent("howto")
    if _NAME.search(text):
        return Intent("name")
    if _CONCEPT.search(text):
        return Intent("concept")
    if _YESNO.search(text):
        return Intent("yesno")
    return Intent("other")
