"""Markdown parsing for chunking: front matter, headings, code fences and page chrome."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATTR_ID = re.compile(r"^(.*?)\s*\{\s*#([\w.:-]+)[^}]*\}\s*$")
_MAX_HEADING_CHARS = 150  # a longer line after an empty heading is prose, not its text
LIST_ITEM = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# Navigation and widgets of crawled sites (GitBook): they carry no content.
_CHROME = re.compile(
    r"^(?:copy|previous|next|was this helpful\??|last updated\b.{0,40}"
    r"|(?:\[(?:previous|next)[^\]]*\]\([^)]*\)\s*)+)$",
    re.IGNORECASE,
)


@dataclass
class Block:
    """A paragraph, list or code block: the unit a section is split on."""

    text: str
    code: bool = False


@dataclass
class Section:
    """The content under one heading, down to the next heading of any level."""

    path: tuple[str, ...]  # heading titles from the top, () before the first heading
    slug: str  # anchor of the deepest heading
    level: int  # 0 for text before the first heading
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Document:
    """A parsed page: its title and sections in order."""

    title: str
    sections: list[Section]


def is_chrome(line: str) -> bool:
    """True for a line of page chrome such as "Copy" or "Last updated 2 months ago"."""
    return bool(_CHROME.match(line.strip()))


def github_slug(text: str) -> str:
    """The anchor GitHub derives from a heading's text."""
    text = _LINK.sub(r"\1", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def heading_title(raw: str) -> tuple[str, str | None]:
    """A heading's display text and its explicit `{ #id }` anchor, if any."""
    raw = re.sub(r"[ \t]+#+$", "", raw.strip())
    explicit = None
    match = _ATTR_ID.match(raw)
    if match:
        raw, explicit = match.group(1), match.group(2)
    return _LINK.sub(r"\1", raw).strip(), explicit


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML front matter as flat `key: value` pairs, and the text after it."""
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            meta = {}
            for line in lines[1:end]:
                key, sep, value = line.partition(":")
                if sep and key.strip() and not key.startswith((" ", "\t")):
                    meta[key.strip()] = value.strip().strip("\"'")
            return meta, "\n".join(lines[end + 1 :])
    return {}, text


def parse_markdown(text: str, fallback_title: str) -> Document:
    """Sections of `text` by heading, never breaking a fenced or indented code block."""
    meta, body = split_front_matter(text.replace("\r\n", "\n").replace("\r", "\n"))
    parser = _Parser()
    for line in body.split("\n"):
        parser.feed(line)
    parser.close()
    title = parser.first_h1 or meta.get("title") or fallback_title
    return Document(title=title, sections=[s for s in parser.sections if s.blocks])


class _Parser:
    """A line-at-a-time state machine; fences and indented code make `#` lines literal."""

    def __init__(self) -> None:
        self.sections: list[Section] = [Section(path=(), slug="", level=0)]
        self.stack: list[tuple[int, str]] = []
        self.slugs: dict[str, int] = {}
        self.first_h1: str | None = None
        self.lines: list[str] = []
        self.fence: tuple[str, int] | None = None
        self.indented = False
        self.pending_level = 0  # an empty heading waiting for its text (GitBook crawls)

    def feed(self, line: str) -> None:
        if self.fence:
            self.lines.append(line)
            close = _FENCE.match(line)
            char, size = self.fence
            if close and close.group(1)[0] == char and len(close.group(1)) >= size:
                if not close.group(2).strip():
                    self._flush(code=True)
            return
        if self.indented:
            if not line.strip() or line.startswith(("    ", "\t")):
                self.lines.append(line)
                return
            self._flush(code=True)
        fence = _FENCE.match(line)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            self._flush()
            self.pending_level = 0
            self.fence = (fence.group(1)[0], len(fence.group(1)))
            self.lines.append(line)
            return
        if not line.strip():
            self._flush()
            return
        if line.startswith(("    ", "\t")) and not self.lines and not self._after_list():
            self.indented = True
            self.lines.append(line)
            return
        heading = _HEADING.match(line)
        if heading:
            self._flush()
            if heading.group(2) and heading.group(2).strip("# \t"):
                self._open(len(heading.group(1)), heading.group(2))
            else:
                self.pending_level = len(heading.group(1))
            return
        if is_chrome(line):
            return
        if self.pending_level:
            level, self.pending_level = self.pending_level, 0
            if len(line) <= _MAX_HEADING_CHARS:
                self._open(level, line)
                return
        self.lines.append(line)

    def close(self) -> None:
        self._flush(code=bool(self.fence or self.indented))

    def _after_list(self) -> bool:
        blocks = self.sections[-1].blocks
        return bool(blocks) and not blocks[-1].code and bool(
            LIST_ITEM.match(blocks[-1].text.split("\n")[-1])
        )

    def _flush(self, code: bool = False) -> None:
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
        if self.lines:
            self.sections[-1].blocks.append(Block("\n".join(self.lines), code=code))
        self.lines = []
        self.fence = None
        self.indented = False

    def _open(self, level: int, raw: str) -> None:
        title, explicit = heading_title(raw)
        if level == 1 and self.first_h1 is None:
            self.first_h1 = title
        slug = explicit or self._unique(github_slug(title))
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        self.stack.append((level, title))
        path = tuple(t for _, t in self.stack)
        self.sections.append(Section(path=path, slug=slug, level=level))

    def _unique(self, slug: str) -> str:
        # GitHub numbers repeated anchors on one page: "usage", "usage-1", ...
        seen = self.slugs.get(slug, 0)
        self.slugs[slug] = seen + 1
        return slug if seen == 0 else f"{slug}-{seen}"
