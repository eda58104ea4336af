"""Typing slips in a question, read as the word the docs use.

"How can I limit a query paarmeter's length?" searched "paarmeter", a word no passage has:
the search lost the question's subject and the refusal checks found a word the docs never
use carrying the question, so they refused it. One letter swapped in one word of each
answerable development question refused 30 of 564 of them (2 before).

A word is read as a slip when it is neither a word of the docs (in any form they use) nor
an English word (one of the 120,000 of five letters or more in pyspellchecker's English
word list: "whine", "lumps", "expiry" are no slips), and one edit (a letter left out,
added, changed, or two neighbours swapped) makes it a word of the docs. Of several such
words, the one in the most chunks wins (two forms of one word are one); a tie changes
nothing. The list is American: "behaviour" is read as the docs' "behavior". Left as
written: words under five letters ("libs", "htmx", "algo": shorthand and names more often
than slips), contractions ("shouldn't", "arent"), words in code (backticks, identifiers
with `_`, `.` or `/`) and names (capitalised inside a sentence: "Acme", "SQLModel"), which
the refusal checks read as names.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Protocol

from docent.retrieval.bm25 import tokenize

_WORD = re.compile(r"(?<![\w`'/.@$-])([A-Za-z][a-z]{4,})(?![\w`/(@-]|\.\w|'[a-z])")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n)[\W_]*$")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_LISTED = re.compile(rb'"([a-z]{5,})":')  # an entry of the word list: '"parameter": 1234'


class Vocabulary(Protocol):
    """What the docs' words are (`docent.retrieval.bm25.KeywordIndex`)."""

    def uses(self, word: str) -> bool:
        """Whether the docs use a lower-cased word in some form."""
        ...

    def chunks_writing(self, word: str) -> int:
        """In how many chunks the docs write it (0: nowhere, or only in a changelog)."""
        ...


def respelled(text: str, docs: Vocabulary) -> str:
    """`text` with each slip replaced by the docs' word."""

    def mend(m: re.Match[str]) -> str:
        word = m.group(1)
        lowered = word.lower()
        if word != lowered and not _SENTENCE_START.search(text, 0, m.start()):
            return word  # a name
        if docs.uses(lowered) or is_english(lowered) or _contraction(lowered):
            return word
        counts = {c: docs.chunks_writing(c) for c in set(_one_edit(lowered)) if len(c) >= 5}
        most = max(counts.values(), default=0)
        # Two forms of one word ("deploys", "deployed") are one reading: the search reads both
        # as the same term.
        best = sorted({tuple(tokenize(c)): c for c, n in sorted(counts.items())
                       if n == most}.values())
        if most == 0 or len(best) > 1:
            return word
        return best[0].capitalize() if word[0].isupper() else best[0]

    return _WORD.sub(mend, text)


def _contraction(word: str) -> bool:
    """A contraction typed without its apostrophe: "arent", "shouldnt"."""
    return word.endswith("nt") and not tokenize(word[:-1])  # "aren", "shouldn": stopwords


def _one_edit(word: str) -> Iterator[str]:
    """Every string one deletion, transposition, substitution or insertion from `word`."""
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            yield head + tail[1:]
            if len(tail) > 1:
                yield head + tail[1] + tail[0] + tail[2:]
            for c in _LETTERS:
                if c != tail[0]:
                    yield head + c + tail[1:]
        for c in _LETTERS:
            yield head + c + tail


def is_english(word: str) -> bool:
    """Whether a lower-case word of five letters or more is in the English word list."""
    return f"\n{word}\n".encode() in _english()


@lru_cache(maxsize=1)
def _english() -> bytes:
    """pyspellchecker's English words of five letters or more, one a line (1.2 MB, read
    once: kept as one string, a set of them took 11 MB; a lookup scans it in 1 ms, and
    only words the docs never use are looked up). Read in blocks: decompressed whole, the
    3.7 MB word list left 7 MB more in a server's memory, block by block 3."""
    from importlib.resources import files

    parts, rest = [b"\n"], b""
    with (files("spellchecker") / "resources" / "en.json.gz").open("rb") as packed, \
            gzip.open(packed) as text:
        while block := text.read(1 << 16):
            block = rest + block
            cut = block.rfind(b",") + 1  # whole entries only: '"word": 123,'
            parts.append(b"".join(w + b"\n" for w in _LISTED.findall(block, 0, cut)))
            rest = block[cut:]
    parts.append(b"".join(w + b"\n" for w in _LISTED.findall(rest)))
    return b"".join(parts)
