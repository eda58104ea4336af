"""Doc-site formats converted to markdown before chunking, so ingestion has one path.

Each converter is a small module of its own: `mdx` (Docusaurus), `rst` (docutils, Sphinx
sites), `html` (a built site's pages, main content only). Their output is markdown whose
headings carry the page's own anchors (`## Title {#id}`) where the source names them, so
sections, titles and deep links work as for markdown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath


@dataclass(frozen=True)
class Format:
    """How one kind of file becomes markdown."""

    name: str
    convert: Callable[[str], str]
    # Whether suspicious lines are screened in the source (its line numbers are the
    # file's) or in the converted text (HTML: the lines of the extracted text).
    screen_source: bool = True


def _markdown(text: str) -> str:
    return text


def _mdx(text: str) -> str:
    from docent.formats.mdx import mdx_to_markdown

    return mdx_to_markdown(text)


def _rst(text: str) -> str:
    from docent.formats.rst import rst_to_markdown

    return rst_to_markdown(text)


def _html(text: str) -> str:
    from docent.formats.html import html_to_markdown

    return html_to_markdown(text)


FORMATS: dict[str, Format] = {
    ".md": Format("markdown", _markdown),
    ".markdown": Format("markdown", _markdown),
    ".mdx": Format("mdx", _mdx),
    ".rst": Format("rst", _rst),
    ".html": Format("html", _html, screen_source=False),
    ".htm": Format("html", _html, screen_source=False),
}
SUFFIXES = tuple(FORMATS)


def format_of(path: str | PurePath) -> Format | None:
    """The format of a file by its suffix (any letter case); None when not ingested."""
    return FORMATS.get(PurePath(path).suffix.lower())
