"""MDX (Docusaurus) pages: front matter title, imports/exports and JSX gone, admonitions kept."""

from __future__ import annotations

from pathlib import Path

from docent.formats.mdx import mdx_to_markdown
from docent.retrieval.chunking import chunk_markdown

SAMPLES = Path(__file__).parent / "samples" / "docusaurus"


def _words(text: str) -> int:
    return len(text.split()) + 2


def test_imports_exports_and_jsx_are_removed_and_their_children_kept():
    text = mdx_to_markdown((SAMPLES / "install.mdx").read_text())
    for gone in ("import", "export", "@theme", "<Tabs", "TabItem", "groupId", "VersionBadge",
                 "minimumVersion", "{/*", "<Highlight", "</"):
        assert gone not in text.replace("</version>", ""), gone
    assert "It needs Python\n3.11 or newer on every platform." in text
    assert "Install Lantern with Homebrew: `brew install lantern`." in text


def test_code_is_left_exactly_as_written():
    text = mdx_to_markdown((SAMPLES / "install.mdx").read_text())
    assert "lantern --version   # prints <version> and the build date\n```" in text


def test_admonitions_become_a_label_on_their_text():
    install = mdx_to_markdown((SAMPLES / "install.mdx").read_text())
    assert "**Tip:** Run `lantern doctor` after installing" in install
    assert "**Warning: Upgrading from 1.x**" in install
    assert ":::" not in install
    plugins = mdx_to_markdown((SAMPLES / "plugins.mdx").read_text())
    assert "**Note: Hook order**\nHooks run in the order" in plugins


def test_line_numbers_stay_those_of_the_file():
    source = (SAMPLES / "install.mdx").read_text()
    text = mdx_to_markdown(source)
    assert len(text.split("\n")) == len(source.split("\n"))


def test_front_matter_title_and_explicit_anchor_reach_the_chunks():
    text = mdx_to_markdown((SAMPLES / "install.mdx").read_text())
    chunks = chunk_markdown(text, "docs/install.mdx", count_tokens=_words,
                            base_url="https://lantern.example/", min_tokens=1)
    assert {c.title for c in chunks} == {"Installing Lantern"}
    cache = next(c for c in chunks if "LANTERN_CACHE_DIR" in c.text)
    assert cache.section_title == "Configure the cache"
    assert cache.page_url == "https://lantern.example/docs/install#cache-setup"
    assert "sidebar_label" not in " ".join(c.text for c in chunks)


def test_a_stray_less_than_sign_does_not_swallow_the_page():
    text = mdx_to_markdown("Use a<b in the filter.\n\nThe next paragraph stays.\n")
    assert "The next paragraph stays." in text


def test_a_multiline_import_is_removed_whole():
    text = mdx_to_markdown("import {\n  A,\n  B,\n} from 'x';\n\nProse.\n")
    assert text.split() == ["Prose."]
