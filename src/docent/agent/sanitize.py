"""Internal metadata never reaches the answer text: chunk ids, scores, "Retrieved from:".

Only prose is cleaned: fenced code blocks and inline code spans are left as written, so a
checksum or a `chunk_size: 0.5` setting quoted as code survives.
"""

from __future__ import annotations

import re

# Code the rules never touch: fenced blocks, then inline spans (`x`, ``x``).
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|``[^\n]*?``|`[^`\n]+`)", re.DOTALL)
# What names a chunk or a document: a number, a hex id, a chunk_… id or a file name.
_REF = r"(?:#?\d+\b|[0-9a-f]{6,64}\b|chunk[_-][\w-]+|[\w./-]+\.(?:md|markdown|mdx|rst|txt|html?)\b)"
_LEAKS = [
    # whole lines that only carry retrieval bookkeeping
    re.compile(r"(?im)^[ \t>*-]*(retrieved from|source|sources|chunk[ _]?id)\s*:.*chunk\S*.*$\n?"),
    re.compile(r"(?im)^[ \t>*-]*(retrieved from|chunk[ _]?id)\s*[:=#].*$\n?"),
    # "[Retrieved from: x]", "(Retrieved from: x)", and the unbracketed kind to the line's end
    re.compile(r"(?i)[ \t]*[(\[][ \t]*retrieved from[ \t]*:[^)\]\n]*[)\]]"),
    re.compile(r"(?i)[ \t]*\bretrieved from[ \t]*:.*$", re.MULTILINE),
    # "Source: chunk 12", "(source = chunk_3f1c)", "Chunk ID: 42", "chunk_id=chunk0001"
    re.compile(
        r"(?i)[(\[]?[ \t]*\bsources?[ \t]*[:=][ \t]*chunk(?:[_-][\w-]*)?(?:[ \t]*" + _REF + r")?"
        r"[ \t]*[)\]]?"
    ),
    re.compile(r"(?i)[(\[]?[ \t]*\bchunk[ _-]?id\b[ \t]*[:=#]?[ \t]*(?:chunk)?[\w-]*[ \t]*[)\]]?"),
    re.compile(
        r"(?i)[(\[]?[ \t]*\b(?:similarity[ _]?)?score[ \t]*[:=][ \t]*[01](?:\.\d+)?[ \t]*[)\]]?"
    ),
    re.compile(r"(?i)\bchunk[_-][0-9a-f]{6,}\b"),
    re.compile(r"[(\[][ \t]*[0-9a-f]{32}[ \t]*[)\]]"),  # a bare chunk id in brackets
]
# "Based on chunk 12, …", "According to document configuration.md, …": the sentence goes on.
_ATTRIBUTION = re.compile(
    r"(?i)(?:,[ \t]*)?\b(?:based on|according to|as (?:stated|shown|described) in|per)[ \t]+"
    r"(?:the[ \t]+)?"
    r"(?:chunk|document|doc|passage)[ \t]+" + _REF + r"[ \t]*,?[ \t]*(\w?)"
)
# Cheap tests first: most answers hold none of these, and the patterns above scan at every
# position (they were 3% of a /chat).
_MAY_LEAK = re.compile(r"retrieved from|source|chunk|score|[0-9a-f]{32}")
_MAY_ATTRIBUTE = re.compile(r"based on|according to|as (?:stated|shown|described) in|\bper\b")
_EMPTY_PARENS = re.compile(r"\([ \t]*[,;]?[ \t]*\)|\[[ \t]*[,;]?[ \t]*\]")
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")  # inside a line: indentation is markdown
# (not after a list marker: "- ...as `description` is optional" stays a list item)
# (nor before a name or number a dot or colon opens: "a .env file", "costs .5 ETH")
_SPACE_PUNCT = re.compile(r"(?<![-*+.\s])[ \t]+([.,;:!?])(?!\w)")
# Before a line break only: a prose part that ends in a space is followed by inline code.
_TRAILING = re.compile(r"[ \t]+(?=\n)")


def strip_internal_metadata(text: str) -> str:
    """Remove retrieval bookkeeping from prose; code blocks and inline code are untouched."""
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):  # even parts are prose
        prose = parts[i]
        low = prose.lower()
        if _MAY_LEAK.search(low):  # every leak pattern holds one of these words
            for pattern in _LEAKS:
                prose = pattern.sub("", prose)
        if _MAY_ATTRIBUTE.search(low):
            prose = _ATTRIBUTION.sub(_drop_attribution, prose)
        prose = _EMPTY_PARENS.sub("", prose)
        prose = _TRAILING.sub("", _SPACE_PUNCT.sub(r"\1", _SPACES.sub(" ", prose)))
        parts[i] = prose
    return re.sub(r"\n{3,}", "\n\n", "".join(parts)).strip()


def _drop_attribution(match: re.Match[str]) -> str:
    """Remove the phrase; the word after it opens the sentence when the phrase did."""
    before = match.string[: match.start()].rstrip(" \t>*-")
    opens = not before or before[-1] in ".!?\n:"
    following = match.group(1)
    if opens:
        return following.upper()
    return " " + following if following else ""
