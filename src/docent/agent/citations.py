"""Citations enforced in code: only numbers that map to a retrieved source survive."""

from __future__ import annotations

import re
from typing import Any

# A citation is [n] not glued to a word (so `items[1]` is not one) and not a link [n](url).
_CITATION = re.compile(r"(?<!\w)\[(\d{1,3})\](?!\()")
_DROPPED = "\x00"
_GAP = re.compile(r"[ \t]*\x00+[ \t]*")
# Fenced blocks and inline code are left exactly as written.
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.DOTALL)


def enforce_citations(
    text: str, sources: list[dict[str, Any]]
) -> tuple[str, list[dict[str, Any]]]:
    """Drop `[n]` with no matching source; return the text and the cited sources in order."""
    by_number = {int(s["n"]): s for s in sources}
    cited: list[int] = []

    def keep_or_drop(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n not in by_number:
            return _DROPPED
        if n not in cited:
            cited.append(n)
        return match.group(0)

    parts = _CODE.split(text)
    # split() with one group alternates prose (even index) and code (odd index).
    for i in range(0, len(parts), 2):
        parts[i] = _GAP.sub(_close_gap, _CITATION.sub(keep_or_drop, parts[i]))
    return "".join(parts).strip(), [by_number[n] for n in cited]


def _close_gap(match: re.Match[str]) -> str:
    # "a [9]." -> "a."; "a [9] b" -> "a b"; "a [9][2]" -> "a [2]"
    end = match.string[match.end() : match.end() + 1]
    return "" if not end or end in ".,;:!?\n" else " "


def citation_numbers(text: str) -> list[int]:
    """The `[n]` numbers used in prose, in order of first use."""
    seen: list[int] = []
    for i, part in enumerate(_CODE.split(text)):
        if i % 2 == 0:
            for m in _CITATION.finditer(part):
                if int(m.group(1)) not in seen:
                    seen.append(int(m.group(1)))
    return seen
