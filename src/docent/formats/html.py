"""A built HTML page to markdown: the main content only, through markdownify.

The main element is the page's one `<article>` inside `<main>`, else `<main>` (or
`role="main"`), else its one `<article>`, else `<body>`. Navigation chrome is dropped
from it: `nav`, `aside`, `footer`, forms and buttons, ARIA navigation and search regions,
and elements whose classes name a table of contents, breadcrumbs, pagination, a sidebar,
heading permalinks, "edit this page" or "last updated" (the names Sphinx, MkDocs and
Docusaurus themes use). Headings keep their anchors (`## Title {#id}`, from the heading
or its `<section>`), code blocks their language. The title is the first `<h1>`, else the
`<title>` without the site's name.

Measured against trafilatura and readability-lxml on the built Sphinx and Docusaurus pages
under tests/formats/samples/site (bench/README.md): trafilatura was twice as fast but drops
heading anchors and code languages; readability kept only the code block of the Docusaurus
page.
"""

from __future__ import annotations

import re
from typing import Any

_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Class and id words (camelCase and kebab-case split) that mark page chrome.
_CHROME_WORDS = {
    "toc", "breadcrumb", "breadcrumbs", "pagination", "sidebar", "headerlink", "navbar",
    "copybutton", "skip", "related", "footer",
}
_CHROME_PHRASES = (
    "table-of-contents", "hash-link", "edit-this-page", "last-updated", "button-group",
    "admonition-icon", "footer-buttons", "on-this-page",
)
_CHROME_TAGS = ["nav", "aside", "footer", "script", "style", "noscript", "form", "button",
                "svg", "template", "iframe", "input", "select", "textarea", "link", "meta"]
_CHROME_ROLES = {"navigation", "search", "banner", "contentinfo", "complementary"}
_TITLE_SUFFIX = re.compile(r"\s+(?:[—|·–-]|::)\s+.*$")


def html_to_markdown(text: str) -> str:
    """The markdown of a built HTML page's main content (see the module docstring)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "lxml")
    main = _main_element(soup)
    if main is None:
        return ""
    for tag in main.find_all(_CHROME_TAGS):
        tag.decompose()
    for tag in main.find_all("header"):
        if tag.find("h1") is None:  # a page header; Docusaurus keeps the h1 in one
            tag.decompose()
    for tag in main.find_all(_is_chrome):
        tag.decompose()
    body = _converter().convert_soup(main)
    title = ""
    if soup.title and soup.title.string and main.find("h1") is None:
        title = _TITLE_SUFFIX.sub("", soup.title.string.strip())
    head = f"---\ntitle: {title}\n---\n\n" if title else ""
    return head + re.sub(r"\n{3,}", "\n\n", body).strip() + "\n"


def _main_element(soup: Any) -> Any:
    main = soup.find("main") or soup.find(attrs={"role": "main"})
    if main is not None:
        articles = main.find_all("article")
        return articles[0] if len(articles) == 1 else main
    articles = soup.find_all("article")
    if len(articles) == 1:
        return articles[0]
    return soup.body or soup


def _is_chrome(tag: Any) -> bool:
    if tag.name in ("html", "body", "main", "article", "h1", "h2", "h3", "h4", "h5", "h6",
                    "pre", "code", "table"):
        return False
    if tag.get("role") in _CHROME_ROLES or tag.get("aria-hidden") == "true":
        return True
    names = [*tag.get("class", []), tag.get("id") or ""]
    for name in names:
        words = [w.lower() for w in _WORDS.findall(name)]
        if _CHROME_WORDS.intersection(words):
            return True
        joined = "-".join(words)
        if any(phrase in joined for phrase in _CHROME_PHRASES):
            return True
    return False


def _converter() -> Any:
    from markdownify import MarkdownConverter

    class Converter(MarkdownConverter):  # type: ignore[misc]
        """markdownify with heading anchors kept."""

        def convert_hN(self, n: int, el: Any, text: str, parent_tags: Any) -> str:
            out = str(super().convert_hN(n, el, text, parent_tags))  # type: ignore[misc]
            anchor = el.get("id") or _section_id(el)
            if anchor and out.strip():
                out = out.rstrip("\n") + f" {{#{anchor}}}\n\n"
            return out

    return Converter(heading_style="ATX", bullets="-", code_language_callback=_language,
                     strip=["img"], escape_underscores=False, escape_asterisks=False)


def _section_id(heading: Any) -> str:
    """The id of the `<section>` a heading titles (Sphinx puts the anchor there)."""
    parent = heading.parent
    if parent is not None and parent.name == "section" and parent.get("id"):
        first = parent.find(re.compile(r"^h[1-6]$"))
        if first is heading:
            return str(parent["id"])
    return ""


def _language(el: Any) -> str:
    """A code block's language from `language-x` (Prism, highlight.js) or `highlight-x`
    (Sphinx) on it, its `<code>` or an ancestor."""
    candidates = [el, *el.find_all("code", limit=1), *el.parents]
    for tag in candidates[:6]:
        for cls in tag.get("class", []) if hasattr(tag, "get") else []:
            for prefix in ("language-", "highlight-", "lang-"):
                if cls.startswith(prefix) and cls[len(prefix):] not in ("default", "none"):
                    return str(cls[len(prefix):])
    return ""
