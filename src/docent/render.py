"""An answer's markdown as safe HTML for the web chat: no raw HTML, only safe links.

markdown-it-py with raw HTML disabled escapes every tag in an answer or a quoted document,
so nothing the model or a document writes can run as script. Links keep only http, https,
mailto and relative targets; images become plain links (no request to another host).
Each inline `[n]` citation (outside code, not glued to a word, not a link label) that
matches a source becomes `<a class="cite" href="#src-{query_id}-{n}">[n]</a>`: it points
at the entry in the sources list under the answer, which carries the title, section,
preview and the `page_url` deep link, so a citation works the same with or without
`page_url` and inside the widget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

# The contract's citation shape (src/docent/agent/citations.py): [n] not glued to a word.
_CITATION = re.compile(r"(?<!\w)\[(\d{1,3})\]")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
# Browsers ignore these inside a URL's scheme ("java\tscript:"), so they are stripped first.
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028\u2029\ufeff]")


def is_safe_url(url: str) -> bool:
    """True for http(s), mailto and scheme-less (relative or fragment) URLs."""
    match = _SCHEME.match(_INVISIBLE.sub("", url))
    return match is None or match.group(1).lower() in _SAFE_SCHEMES


def _mark_citations(state: StateCore) -> None:
    """Split text tokens around `[n]` into `cite` tokens, except inside link labels."""
    known: set[int] = state.env.get("docent_sources", set())
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Token] = []
        depth = 0  # inside a link label, [n] is text
        for tok in block.children:
            depth += tok.type == "link_open"
            depth -= tok.type == "link_close"
            if tok.type != "text" or depth or "[" not in tok.content:
                out.append(tok)
                continue
            out.extend(_split_text(tok.content, known))
        block.children = out


def _split_text(text: str, known: set[int]) -> Iterable[Token]:
    start = 0
    for m in _CITATION.finditer(text):
        n = int(m.group(1))
        if n not in known:
            continue
        if m.start() > start:
            yield _text(text[start : m.start()])
        cite = Token("cite", "", 0)
        cite.meta = {"n": n}
        yield cite
        start = m.end()
    if start < len(text):
        yield _text(text[start:])


def _text(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


def _render_cite(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    n = tokens[idx].meta["n"]
    anchor = escape(env.get("docent_anchor", "src"))
    return f'<a class="cite" href="#{anchor}-{n}" data-n="{n}">[{n}]</a>'


def _render_link_open(
    renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    tok = tokens[idx]
    if str(tok.attrGet("href") or "").lower().startswith(("http://", "https://")):
        tok.attrSet("target", "_blank")
        tok.attrSet("rel", "noopener noreferrer nofollow")
    return str(renderer.renderToken(tokens, idx, options, env))


def _render_image(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    # An image would load from wherever its URL points: show a link to it instead.
    tok = tokens[idx]
    alt = escape(tok.content or "image")
    src = escape(str(tok.attrGet("src") or ""))
    if not src:
        return alt
    return f'<a href="{src}" target="_blank" rel="noopener noreferrer nofollow">{alt}</a>'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = is_safe_url  # type: ignore[method-assign]
    md.core.ruler.push("docent_citations", _mark_citations)
    md.add_render_rule("cite", _render_cite)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    return md


_MD = _build()


def render_markdown(text: str, sources: list[dict[str, Any]], query_id: str = "") -> str:
    """The answer as HTML; `[n]` of a listed source links to `#src-{query_id}-{n}`.

    Without a query_id the anchors are `#src-{n}`; the page's script scopes them to the
    answer they belong to either way.
    """
    known = {int(s["n"]) for s in sources if str(s.get("n", "")).isdigit()}
    env = {"docent_sources": known, "docent_anchor": f"src-{query_id}" if query_id else "src"}
    return _MD.render(text or "", env)
