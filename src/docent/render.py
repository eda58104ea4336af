"""An answer's markdown as safe HTML for the web chat: no raw HTML, only safe links.

markdown-it-pyrs (markdown-it in Rust, 20x faster than markdown-it-py: rendering was the
largest part of a /chat response's work after the search) parses CommonMark with tables
and strikethrough, and no raw-HTML rule, so every tag in an answer or a quoted document is
escaped and nothing the model or a document writes can run as script. Its HTML is then
walked tag by tag (its text never holds a `<`: that is escaped): links keep only http,
https, mailto and relative targets, the others become their label; external links open in
a new tab; images become plain links (no request to another host). Each `[n]` citation in
text (outside code and link labels, not glued to a word) that matches a source becomes
`<a class="cite" href="#src-{query_id}-{n}">[n]</a>`: it points at the entry in the sources
list under the answer, which carries the title, section, preview and the `page_url` deep
link, so a citation works the same with or without `page_url` and inside the widget.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape, unescape
from typing import Any

from markdown_it_pyrs import MarkdownIt

# The contract's citation shape (src/docent/agent/citations.py): [n] not glued to a word.
_CITATION = re.compile(r"(?<!\w)\[(\d{1,3})\]")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
# Browsers ignore these inside a URL's scheme ("java\tscript:"), so they are stripped first.
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028\u2029\ufeff]")
_TAG = re.compile(r"<(/?)([a-z0-9]+)([^>]*)>")
_ATTR = re.compile(r'([a-z]+)="([^"]*)"')
_NEW_TAB = ' target="_blank" rel="noopener noreferrer nofollow"'


def is_safe_url(url: str) -> bool:
    """True for http(s), mailto and scheme-less (relative or fragment) URLs."""
    match = _SCHEME.match(_INVISIBLE.sub("", url))
    return match is None or match.group(1).lower() in _SAFE_SCHEMES


@cache
def _parser() -> MarkdownIt:
    # CommonMark with GFM tables and strikethrough; no html_block/html_inline: raw HTML is text.
    return MarkdownIt("zero").enable_many([
        "blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph",
        "reference", "autolink", "backticks", "emphasis", "entity", "escape", "image", "link",
        "newline", "strikethrough", "table",
    ])


def render_markdown(text: str, sources: list[dict[str, Any]], query_id: str = "") -> str:
    """The answer as HTML; `[n]` of a listed source links to `#src-{query_id}-{n}`.

    Without a query_id the anchors are `#src-{n}`; the page's script scopes them to the
    answer they belong to either way.
    """
    if not text:
        return ""
    known = {int(s["n"]) for s in sources if str(s.get("n", "")).isdigit()}
    anchor = escape(f"src-{query_id}" if query_id else "src")
    return _Rewrite(known, anchor).html(_parser().render(text))


class _Rewrite:
    """One pass over markdown-it's HTML: links checked, images as links, citations linked."""

    def __init__(self, known: set[int], anchor: str) -> None:
        self.known = known
        self.anchor = anchor
        self.code = 0  # inside <code>/<pre>: [n] is text
        self.links: list[bool] = []  # open <a>s, each kept or dropped; inside one, [n] is text

    def html(self, rendered: str) -> str:
        out: list[str] = []
        at = 0
        for m in _TAG.finditer(rendered):
            out.append(self._text(rendered[at : m.start()]))
            out.append(self._tag(m))
            at = m.end()
        out.append(self._text(rendered[at:]))
        return "".join(out)

    def _text(self, text: str) -> str:
        if not text or self.code or self.links or "[" not in text or not self.known:
            return text
        return _CITATION.sub(self._cite, text)

    def _cite(self, m: re.Match[str]) -> str:
        n = int(m.group(1))
        if n not in self.known:
            return m.group()
        return f'<a class="cite" href="#{self.anchor}-{n}" data-n="{n}">[{n}]</a>'

    def _tag(self, m: re.Match[str]) -> str:
        closing, name, rest = m.group(1), m.group(2), m.group(3)
        if name in ("code", "pre"):
            self.code += -1 if closing else 1
            return m.group()
        if name == "a":
            if closing:
                return "</a>" if self.links and self.links.pop() else ""
            href = unescape(dict(_ATTR.findall(rest)).get("href", ""))
            self.links.append(is_safe_url(href))
            if not self.links[-1]:
                return ""  # an unsafe target: the label stays, as text
            if href.lower().startswith(("http://", "https://")):
                return f"<a{rest}{_NEW_TAB}>"
            return m.group()
        if name == "img":
            # An image would load from wherever its URL points: show a link to it instead.
            attrs = dict(_ATTR.findall(rest))
            alt, src = attrs.get("alt") or "image", attrs.get("src", "")
            if not src or not is_safe_url(unescape(src)):
                return alt
            return f'<a href="{src}"{_NEW_TAB}>{alt}</a>'
        return m.group()
