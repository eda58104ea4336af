"""Citations enforced in code: only numbers that map to a retrieved source survive."""

from __future__ import annotations

import re
from typing import Any

# A citation is [n] not glued to a word (so `items[1]` is not one) and not a link [n](url).
_CITATION = re.compile(r"(?<!\w)\[(\d{1,3})\](?!\()")
_DROPPED = "\x00"
# A citation as it streams: [n] and the character after it ("(" makes it a link label).
_STREAM_CITATION = re.compile(r"\[(\d{1,3})\](.?)", re.DOTALL)
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


def renumber(text: str, cited: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Citations renumbered 1, 2, 3… in order of first appearance (`cited`'s order, as
    `enforce_citations` returns it), and copies of the sources carrying their new numbers."""
    new = {int(s["n"]): i for i, s in enumerate(cited, start=1)}

    def swap(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"[{new[n]}]" if n in new else match.group(0)

    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = _CITATION.sub(swap, parts[i])
    return "".join(parts), [{**s, "n": new[int(s["n"])]} for s in cited]


class CitationStream:
    """The same renumbering applied to an answer as it streams, piece by piece.

    Text inside code (a fenced block, or `inline code` on one line) passes unchanged; `[n]`
    of a known source becomes its number in order of first appearance, an unknown one is
    dropped, as the final answer will have it. A piece that may end inside a citation or
    a fence marker is held back until the next piece (or `flush`) tells.
    """

    def __init__(self) -> None:
        self.known: set[int] = set()  # source numbers retrieved so far in the run
        self.restart()

    def restart(self) -> None:
        """Forget the text so far: a new model reply is starting."""
        self._new: dict[int, int] = {}
        self._held = ""
        self._fence = False
        self._inline = False
        self._line_start = True
        self._prev = " "  # the last character sent

    def feed(self, piece: str) -> str:
        """What can be sent of the answer so far."""
        return self._scan(self._held + piece, final=False)

    def flush(self) -> str:
        """The rest, at the end of the answer."""
        return self._scan(self._held, final=True)

    def _scan(self, text: str, final: bool) -> str:
        out: list[str] = []
        i = 0
        self._held = ""
        while i < len(text):
            ch = text[i]
            if self._line_start and ch in "`~" and not self._inline:
                run = len(text[i:]) - len(text[i:].lstrip(ch))
                if run < 3 and i + run == len(text) and not final:
                    self._held = text[i:]  # maybe a fence marker: wait for more
                    break
                if run >= 3:
                    self._fence = not self._fence
                    out.append(text[i : i + run])
                    i += run
                    self._line_start = False
                    self._prev = ch
                    continue
            if ch == "\n":
                self._line_start, self._inline = True, False
            elif not ch.isspace():
                self._line_start = False
            if self._fence:
                out.append(ch)
            elif ch == "`":
                self._inline = not self._inline
                out.append(ch)
            elif ch == "[" and not self._inline and not (self._prev.isalnum() or self._prev == "_"):
                m = _STREAM_CITATION.match(text, i)
                if m is None or (not m.group(2) and not final):
                    if re.fullmatch(r"\[\d{0,3}\]?", text[i:]) and not final:
                        self._held = text[i:]  # maybe a citation: wait for more
                        break
                    out.append(ch)
                elif m.group(2) == "(":  # a link label [1](url), not a citation
                    out.append(ch)
                else:
                    n = int(m.group(1))
                    if n in self.known:
                        mapped = self._new.setdefault(n, len(self._new) + 1)
                        out.append(f"[{mapped}]")
                        self._prev = "]"
                    i = m.end(1) + 1
                    continue
            else:
                out.append(ch)
            self._prev = ch
            i += 1
        return "".join(out)
