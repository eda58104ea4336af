"""A passage that ends by announcing a block ("Run the tests with:", or the file name a
crawled page shows over its code) whose block opens the next chunk of its page: the
chunker cut between the two, so the passage is completed with that block before the
answer reads it ("Import `EventSourceResponse` from `fastapi.sse`:" is worth nothing
without the import it announces).
"""

from __future__ import annotations

import re
from dataclasses import replace

from docent.retrieval.types import Chunk

# The passage's last line is a sentence ending in ":", not a list item, heading, table row
# or fence (only its end is read: an announcement is a line).
_ANNOUNCING_END = re.compile(r"(?:^|\n)(?![ \t]*(?:[-*+]|\d+\.|#|\||`{3}|~{3}))[^\n]*:\s*$")
_TAIL = 400
# ... or its last line is the title a crawled page gives the code block below it (GitBook
# shows a file's name over its code: "constants", "page.tsx", "`interact.js`", "Complete
# Code"): a line of one to three words without markup or a sentence's end.
_WORD = r"\w[\w-]*(?:[./][\w-]+)*"
_CODE_TITLE = re.compile(rf"(?:^|\n)[ \t]*`?{_WORD}`?(?:[ \t]+{_WORD}){{0,2}}[ \t]*$")
# A fenced block the next chunk opens with, closed by the same fence; or an indented one,
# as crawled pages write code (up to the first line that is neither blank nor indented).
_OPENING_BLOCK = re.compile(
    r"\A\s*((`{3,}|~{3,})[^\n]*\n.*?\n\s*\2)[ \t]*(?:\n|\Z)"
    r"|\A(?:[ \t]*\n)*((?:(?: {4}|\t)[^\n]*\S[^\n]*(?:\n|\Z)(?:[ \t]*\n)*)+)",
    re.S,
)


def completed(chunk: Chunk, following: Chunk | None) -> Chunk:
    """`chunk` with the block `following` (the next chunk of its page) opens with, when
    `chunk` ends by announcing one; else `chunk` itself."""
    end = chunk.text.rstrip()[-_TAIL:]
    if following is None or not (_ANNOUNCING_END.search(end) or _CODE_TITLE.search(end)):
        return chunk
    block = _OPENING_BLOCK.match(following.text)
    if block is None:
        return chunk
    code = block.group(1) or block.group(3).rstrip()
    return replace(chunk, text=f"{chunk.text.rstrip()}\n\n{code}")
