"""Internal metadata never reaches the answer text: chunk ids, scores, "Retrieved from:"."""

from __future__ import annotations

import re

_CODE = re.compile(r"(```.*?```|~~~.*?~~~)", re.DOTALL)
_LEAKS = [
    # whole lines that only carry retrieval bookkeeping
    re.compile(r"(?im)^[ \t>*-]*(retrieved from|source|sources|chunk[ _]?id)\s*:.*chunk\S*.*$\n?"),
    re.compile(r"(?im)^[ \t>*-]*retrieved from\s*:.*$\n?"),
    # inline mentions
    re.compile(r"(?i)[(\[]?[ \t]*\b(?:source|chunk[ _]?id)[ \t]*[:=][ \t]*chunk[\w-]*[ \t]*[)\]]?"),
    re.compile(
        r"(?i)[(\[]?[ \t]*\b(?:similarity[ _]?)?score[ \t]*[:=][ \t]*[01](?:\.\d+)?[ \t]*[)\]]?"
    ),
    re.compile(r"(?i)\bchunk[_-][0-9a-f]{6,}\b"),
    re.compile(r"(?i)\bchunk_id\b"),
    re.compile(r"\b[0-9a-f]{16,64}\b"),  # bare content hashes (chunk ids)
]
_EMPTY_PARENS = re.compile(r"\([ \t]*[,;]?[ \t]*\)|\[[ \t]*[,;]?[ \t]*\]")
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")  # inside a line: indentation is markdown
_SPACE_PUNCT = re.compile(r"[ \t]+([.,;:!?])")
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)


def strip_internal_metadata(text: str) -> str:
    """Remove retrieval bookkeeping from prose; code blocks are left untouched."""
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):  # even parts are prose
        prose = parts[i]
        for pattern in _LEAKS:
            prose = pattern.sub("", prose)
        prose = _EMPTY_PARENS.sub("", prose)
        prose = _TRAILING.sub("", _SPACE_PUNCT.sub(r"\1", _SPACES.sub(" ", prose)))
        parts[i] = prose
    return re.sub(r"\n{3,}", "\n\n", "".join(parts)).strip()
