"""reStructuredText (Sphinx) pages through docutils: sections as headings, nothing read from disk."""

from __future__ import annotations

from pathlib import Path

from docent.formats.rst import rst_to_markdown
from docent.retrieval.chunking import chunk_markdown

SAMPLES = Path(__file__).parent / "samples" / "sphinx"


def _words(text: str) -> int:
    return len(text.split()) + 2


def _page() -> str:
    return rst_to_markdown((SAMPLES / "configuration.rst").read_text())


def test_sections_become_headings_with_their_sphinx_anchors():
    text = _page()
    assert text.startswith("# Configuring Lantern {#configuring-lantern}\n")
    assert "## Cache settings {#cache-settings}" in text
    assert "### Timeouts {#timeouts}" in text


def test_chunks_get_title_heading_path_and_deep_links():
    chunks = chunk_markdown(_page(), "guide/configuration.rst", count_tokens=_words,
                            base_url="https://lantern.example/", min_tokens=1)
    assert {c.title for c in chunks} == {"Configuring Lantern"}
    proxies = next(c for c in chunks if "HTTPS_PROXY" in c.text)
    assert proxies.section_title == "Configuring Lantern > Network settings > Proxies"
    assert proxies.page_url == "https://lantern.example/guide/configuration.html#proxies"


def test_code_lists_tables_and_definitions_keep_their_markdown_form():
    text = _page()
    assert '```toml\n[cache]\ndir = "/var/cache/lantern"\nlimit = "5GB"\n```' in text
    assert "| `timeout` | 30 | seconds before a request gives up |" in text
    assert "**`cache_dir`**: Where downloaded models are kept." in text
    assert "1. Set `HTTPS_PROXY` to the proxy's address.\n2. Run `lantern doctor`" in text


def test_admonitions_roles_and_sphinx_directives_read_as_text():
    text = _page()
    assert "**Note:** Settings are read once, at start-up" in text
    assert "**Warning:** A timeout of 0 waits forever." in text
    assert "See the install guide first, and\n`lantern.config.load` for the loader." in text
    assert "Added in version 2.1: The `limit` key accepts units (`MB`, `GB`)." in text
    assert "See also: plugins and `lantern.net.Session`." in text
    for gone in ("toctree", "maxdepth", ":ref:", ":func:", "orphan", "contents::", "On this page"):
        assert gone not in text, gone


def test_include_and_literalinclude_read_nothing_from_disk(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE\n")
    text = rst_to_markdown(
        f"Title\n=====\n\n.. include:: {secret}\n\n.. literalinclude:: {secret}\n\n"
        f".. raw:: html\n   :file: {secret}\n\n.. csv-table::\n   :file: {secret}\n\nEnd.\n"
    )
    assert "TOP-SECRET-VALUE" not in text
    assert "End." in text


def test_broken_markup_is_converted_without_an_error():
    text = rst_to_markdown("Title\n=====\n\n.. unknown-directive:: x\n\n`unclosed\n\n:nope:`x`\n")
    assert text.startswith("# Title")
