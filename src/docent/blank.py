"""What counts as an empty question: nothing a reader could see.

Whitespace, control characters (NUL…) and invisible format characters (zero-width space,
joiners, the byte-order mark…) carry no question; neither do the few "filler" letters that
render as blank. A message made only of them is empty, exactly like "" or "   ".
"""

from __future__ import annotations

import unicodedata

# Letters and symbols that are drawn as nothing (Hangul fillers, the blank Braille pattern).
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Control, format, and separator categories: NUL, U+200B-U+200D, U+2060, U+FEFF, spaces.
_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})


def is_blank(text: str) -> bool:
    """Whether `text` has nothing visible in it."""
    return all(
        ch in _BLANK_GLYPHS or unicodedata.category(ch) in _INVISIBLE for ch in text
    )
