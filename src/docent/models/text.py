"""Small text helpers shared by the extractive model: terms, sentences, references."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

STOPWORDS = frozenset(
    """a an and are as at be by can could do does did for from has have how i if in into is
    it its me my of on or our should so than that the their them then there these they this us
    those to was we were what when where which who why will with would you your about also
    any use using used get set make way want need there's it's what's i'm
    re ve ll doesn don isn aren wasn weren hasn haven hadn wouldn shouldn couldn didn
    """.split()
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*[A-Za-z0-9_]|[A-Za-z0-9]")
# A version ("3.9", "0.115.0"): `terms` keeps no digits-only word.
_VERSION = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w.]*\w)")
_CODE_NUMBER = re.compile(r"(?<![\w.,])\d{3,}(?![\w.,]*\d)(?!\w)")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Dr)\.|\b[A-Z]\.)$")
# A company's name ends in "Co.", "Ltd." or "Inc.", and goes on when another such word, a
# bracket or a quote follows: "Somnia TokenCo. Ltd. ("Company," ...) to eligible ...".
_COMPANY = re.compile(r"(?:\b(?i:co|ltd|inc|corp|llc|plc|gmbh)|(?<=[A-Za-z])(?:Co|CO))\.$")
_NAME_GOES_ON = re.compile(r"(?:ltd|inc|corp|llc|plc|gmbh)\b|[(\[\"“,]", re.I)
_REF_HEADER = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)
# A name and its version joined by a slash: "HTTP/2", "HTTP/1.1" (one term besides "http").
_SLASH_VERSION = re.compile(r"(?<![\w/.])[A-Za-z]{2,}/\d+(?:\.\d+)?(?![\w/.]*\w)")


def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'limits'/'limit', 'configured'/'configure'."""
    w = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


# The United States by any of its names: "US" (not in a line of capitals: "CONTACT US"),
# "U.S.", "USA", "United States". "us" the pronoun is a stopword, like "we": "I live in the
# US" had matched "("we," "us," or "our")", not "the United States of America (USA)".
_THE_US = re.compile(
    r"\bU\.S\.|\bUSA\b|\bUnited\s+States\b|(?<![A-Z]{2}\s)\bUS\b(?!\s+[A-Z]{2})")


def terms(text: str) -> list[str]:
    """Content words of `text`, stemmed, stopwords removed, in order; "usa" first when
    `text` names the United States; a name and its version joined by a slash ("http/2")
    last, besides the name's own word."""
    out = ["usa"] if _THE_US.search(text) else []
    for raw in _WORD.findall(text):
        for part in re.split(r"[_\-]", raw) if "_" in raw or "-" in raw else [raw]:
            low = part.lower()
            if len(low) > 1 and low not in STOPWORDS:
                out.append(stem(low))
        if ("_" in raw or "-" in raw) and raw.lower() not in STOPWORDS:
            out.append(raw.lower())
    out.extend(m.group(0).lower() for m in _SLASH_VERSION.finditer(text))
    return out


def versions(text: str) -> frozenset[str]:
    """The versions `text` gives ("Python 3.9", "0.115.0")."""
    return frozenset(_VERSION.findall(text))


def codes(text: str) -> frozenset[str]:
    """The whole numbers of three digits or more `text` gives ("HTTP 429", "port 8000")."""
    return frozenset(_CODE_NUMBER.findall(text))


def sentences(text: str) -> list[str]:
    """Split prose into sentences, not after abbreviations such as "e.g." or "i.e."."""
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        before = text[start : m.start()]
        if _ABBREVIATION.search(before.rstrip("\"')]")):
            continue
        if _COMPANY.search(before) and _NAME_GOES_ON.match(text, m.end()):
            continue
        # A quoted sentence inside a sentence: `The text "Done." is shown.`
        if m.group().strip() and text[m.end() : m.end() + 1].islower():
            continue
        out.append(text[start : m.end()].strip())
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


# An inline code span, captured (`re.split` keeps it): text inside is written as code.
CODE_SPAN = re.compile(r"(`[^`\n]+`)")


@dataclass(frozen=True)
class Reference:
    """One numbered passage as the model reads it in a tool message."""

    n: int
    heading: str
    body: str
    chunk_id: str | None = None  # the chunk's id when the tool message said it (its artifact)

    @property
    def where(self) -> str:
        """The passage's title and section, as ingestion put them before its text (the
        heading without its source file)."""
        return self.heading.rsplit(" (", 1)[0]

    @property
    def topic(self) -> str:
        where = self.where
        topic = _split_outside_code(where, " > ")[-1].strip() or where
        return plain_heading(topic) or where


def plain_heading(heading: str) -> str:
    """A heading as an answer shows it: crawled titles carry the site ("Page | Section |
    Site") and markup (`**`, `\\.`); a pipe inside code is the heading's own (`Promise<Hex |
    Error>`)."""
    heading = _split_outside_code(heading, " | ")[0].replace("**", "")
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!])", r"\1", heading).strip()


def _split_outside_code(text: str, sep: str) -> list[str]:
    """`text.split(sep)`, except at a `sep` inside a code span."""
    pieces = [""]
    for i, part in enumerate(CODE_SPAN.split(text)):
        if i % 2:  # a code span
            pieces[-1] += part
        else:
            first, *rest = part.split(sep)
            pieces[-1] += first
            pieces += rest
    return pieces


def parse_references(tool_text: str, chunk_ids: Sequence[str] | None = None) -> list[Reference]:
    """Split a `search_docs` tool message into its numbered passages; `chunk_ids`, the
    message's artifact, names their chunks in the same order."""
    matches = list(_REF_HEADER.finditer(tool_text))
    ids: Sequence[str | None] = (
        chunk_ids if chunk_ids is not None and len(chunk_ids) == len(matches)
        else [None] * len(matches)
    )
    refs = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(tool_text)
        body = tool_text[m.end() : end].strip()
        refs.append(Reference(int(m.group(1)), m.group(2), body, ids[i]))
    return refs
