"""MDX (Docusaurus) to markdown: the prose stays, the code around it goes.

- front matter is kept: the chunker reads its `title`;
- `import` and `export` statements (one line or many) are removed;
- JSX tags (`<Tabs groupId="os">`, `<TabItem value="mac" label="macOS">`, `<Admonition />`,
  fragments) are removed and what they wrap is kept; `{/* comments */}` are removed;
- admonitions (`:::tip Title`, `:::note[Title]`, `:::`) become a label on their text:
  "Tip: Title", or "Note: " before the first line when they have no title;
- code (fenced blocks and inline `code`) is left exactly as written.

Removed lines become blank lines, so line numbers stay those of the file.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_STATEMENT = re.compile(r"^(?:import|export)\b")
_ADMONITION = re.compile(r"^ {0,3}:{3,}\s*([A-Za-z][\w-]*)?\s*(?:\[(.*)\])?\s*(.*?)\s*$")
_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_TAG_START = re.compile(r"<(?:/?[A-Za-z]|/?>)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_OPEN = "{[("
_CLOSE = "}])"


def mdx_to_markdown(text: str) -> str:
    """The markdown of an MDX page (see the module docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    fence: str | None = None
    depth = 0  # brackets open in an import/export statement still being removed
    label: str | None = None  # an admonition's label waiting for its first line of text
    in_front_matter = bool(lines) and lines[0].strip() == "---"
    tag_state = _TagState()
    for number, line in enumerate(lines):
        if in_front_matter:
            out.append(line)
            if number > 0 and line.strip() in ("---", "..."):
                in_front_matter = False
            continue
        if fence is not None:
            out.append(line)
            if line.strip().startswith(fence):
                fence = None
            continue
        if depth > 0:  # the rest of a statement spanning lines
            depth = max(depth + _balance(line), 0)
            out.append("")
            continue
        if _STATEMENT.match(line):
            depth = max(_balance(line), 0)
            out.append("")
            continue
        match = _FENCE.match(line)
        if match and not tag_state.inside:
            fence = match.group(1)
            if label is not None:
                out.append(label)
                out.append("")
                label = None
            out.append(line)
            continue
        admonition = _ADMONITION.match(line)
        if admonition and not tag_state.inside:
            kind, bracketed, rest = admonition.groups()
            title = (bracketed or rest or "").strip()
            if kind:  # an opening line; a bare ":::" closes
                name = kind.capitalize()
                if title:
                    out.append(f"**{name}: {title}**")
                    label = None
                else:
                    out.append("")
                    label = f"**{name}:**"
            else:
                out.append("")
            continue
        cleaned = tag_state.strip(line)
        if label is not None and cleaned.strip():
            if cleaned.lstrip().startswith(("#", "-", "*", "+", "|", ">")) or cleaned[:1].isdigit():
                out.append(label)
                out.append("")
            else:
                indent = len(cleaned) - len(cleaned.lstrip())
                cleaned = cleaned[:indent] + label + " " + cleaned[indent:]
            label = None
        out.append(cleaned)
    return _COMMENT.sub("", "\n".join(out))


def _balance(line: str) -> int:
    """Opening minus closing brackets on a line, outside string literals."""
    depth = 0
    quote: str | None = None
    for char in line:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
    return depth


class _TagState:
    """Removes JSX tags from lines, across lines for a tag whose attributes span several."""

    def __init__(self) -> None:
        self.inside = False  # within a tag's `<...>` left open on an earlier line
        self._braces = 0
        self._quote: str | None = None

    def strip(self, line: str) -> str:
        """`line` without its JSX tags (inline code spans are left as they are)."""
        if not line.strip() and self._braces == 0:
            self.inside = False  # a "<" that opened no tag ends at a paragraph's end
            self._quote = None
        out: list[str] = []
        pos = 0
        if not self.inside:
            for span in _CODE_SPAN.finditer(line):
                out.append(self._strip_text(line[pos : span.start()]))
                if self.inside:  # a tag opened before the code span: it is not code
                    pos = span.start()
                    break
                out.append(span.group())
                pos = span.end()
        out.append(self._strip_text(line[pos:]))
        result = "".join(out)
        return "" if not result.strip() and result != line else result

    def _strip_text(self, text: str) -> str:
        out: list[str] = []
        i = 0
        while i < len(text):
            if not self.inside:
                match = _TAG_START.search(text, i)
                if match is None:
                    out.append(text[i:])
                    break
                out.append(text[i : match.start()])
                self.inside = True
                i = match.start() + 1
                continue
            char = text[i]
            if self._quote:
                if char == self._quote:
                    self._quote = None
            elif char in "\"'" and self._braces == 0:
                self._quote = char
            elif char == "{":
                self._braces += 1
            elif char == "}":
                self._braces = max(self._braces - 1, 0)
            elif char == ">" and self._braces == 0:
                self.inside = False
            i += 1
        return "".join(out)
