"""Small text helpers shared by the extractive model: terms, sentences, references."""

from __future__ import annotations

import re
from dataclasses import dataclass

STOPWORDS = frozenset(
    """a an and are as at be by can could do does did for from has have how i if in into is
    it its me my of on or our should so than that the their them then there these they this
    those to was we were what when where which who why will with would you your about also
    any use using used get set make way want need there's it's what's i'm
    """.split()
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*[A-Za-z0-9_]|[A-Za-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Dr)\.|\b[A-Z]\.)$")
_REF_HEADER = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)


def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'limits'/'limit', 'configured'/'configure'."""
    w = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


def terms(text: str) -> list[str]:
    """Content words of `text`, stemmed, stopwords removed, in order."""
    out = []
    for raw in _WORD.findall(text):
        for part in re.split(r"[_\-]", raw) if "_" in raw or "-" in raw else [raw]:
            low = part.lower()
            if len(low) > 1 and low not in STOPWORDS:
                out.append(stem(low))
        if ("_" in raw or "-" in raw) and raw.lower() not in STOPWORDS:
            out.append(raw.lower())
    return out


def sentences(text: str) -> list[str]:
    """Split prose into sentences, not after abbreviations such as "e.g." or "i.e."."""
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        piece = text[start : m.end()].strip()
        if _ABBREVIATION.search(text[start : m.start()].rstrip("\"')]")):
            continue
        out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


@dataclass(frozen=True)
class Reference:
    """One numbered passage as the model reads it in a tool message."""

    n: int
    heading: str
    body: str

    @property
    def topic(self) -> str:
        where = self.heading.rsplit(" (", 1)[0]
        return where.split(" > ")[-1].strip() or where


def parse_references(tool_text: str) -> list[Reference]:
    """Split a `search_docs` tool message into its numbered passages."""
    matches = list(_REF_HEADER.finditer(tool_text))
    refs = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(tool_text)
        refs.append(Reference(int(m.group(1)), m.group(2), tool_text[m.end() : end].strip()))
    return refs


def split_units(body: str) -> list[tuple[str, bool]]:
    """A passage as answer units: sentences, list items and whole code blocks.

    Returns (unit, is_code). Headings and table rules are dropped.
    """
    units: list[tuple[str, bool]] = []
    lines = body.splitlines()
    i = 0
    paragraph: list[str] = []

    def flush() -> None:
        text = " ".join(paragraph).strip()
        paragraph.clear()
        if text:
            units.extend((s, False) for s in sentences(text))

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        fence = re.match(r"^(`{3,}|~{3,})", stripped)
        if fence:
            flush()
            marker = fence.group(1)
            block = [line]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                block.append(lines[i])
                i += 1
            if i < len(lines):
                block.append(lines[i])
            units.append(("\n".join(block), True))
        elif not stripped or stripped.startswith("#") or re.fullmatch(r"[|:\- ]+", stripped):
            flush()
        elif re.match(r"^([-*+]|\d+[.)])\s+", stripped):
            flush()
            paragraph.append(re.sub(r"^([-*+]|\d+[.)])\s+", "", stripped))
            flush()
        else:
            paragraph.append(stripped)
        i += 1
    flush()
    return units
