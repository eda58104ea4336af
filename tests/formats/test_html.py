"""Built HTML pages: the main content as markdown, navigation chrome dropped, anchors kept."""

from __future__ import annotations

from pathlib import Path

from docent.formats.html import html_to_markdown
from docent.retrieval.chunking import chunk_markdown

SAMPLES = Path(__file__).parent / "samples" / "site" / "guide"
CHROME = ("Skip to content", "Search the docs", "Getting started", "Breadcrumbs", "Docs »",
          "Previous", "Next", "On this page", "Copyright", "Privacy", "View page source",
          "GitHub", "Edit this page", "Last updated", "Copy", "¶", "dataLayer", "Blog")


def _words(text: str) -> int:
    return len(text.split()) + 2


def test_sphinx_page_keeps_its_content_and_drops_the_chrome():
    text = html_to_markdown((SAMPLES / "deploy.html").read_text())
    for chrome in CHROME:
        assert chrome not in text, chrome
    assert text.startswith("# Deploying Lantern {#deploying-lantern}\n")
    assert "## Behind a reverse proxy {#behind-a-reverse-proxy}" in text
    assert "```ini\n[Service]\nExecStart=/usr/bin/lantern serve --port 8400\n" in text
    assert "| `LANTERN_PORT` | 8400 | port Lantern listens on |" in text
    assert "- Use `/healthz` for the liveness probe." in text
    assert "Run `systemctl daemon-reload` after editing the unit." in text


def test_docusaurus_page_keeps_its_heading_and_code_language():
    text = html_to_markdown((SAMPLES / "plugins.html").read_text())
    for chrome in CHROME:
        assert chrome not in text, chrome
    assert text.startswith("# Writing plugins\n")
    assert "## A first plugin {#a-first-plugin}" in text
    assert "```python\ndef register(app):\n" in text
    assert "Hooks run in the order the plugins were registered." in text


def test_chunks_of_a_built_page_link_to_the_page_itself():
    text = html_to_markdown((SAMPLES / "deploy.html").read_text())
    chunks = chunk_markdown(text, "guide/deploy.html", count_tokens=_words,
                            base_url="https://lantern.example/", min_tokens=1)
    assert {c.title for c in chunks} == {"Deploying Lantern"}
    health = next(c for c in chunks if "/readyz" in c.text)
    assert health.section_title == "Deploying Lantern > Health checks"
    assert health.page_url == "https://lantern.example/guide/deploy.html#health-checks"


def test_a_page_without_h1_takes_its_title_from_the_title_tag():
    html = ("<html><head><title>Limits | Lantern docs</title></head><body><nav>Menu</nav>"
            "<main><p>Requests are capped at 10 a minute.</p></main></body></html>")
    text = html_to_markdown(html)
    chunks = chunk_markdown(text, "limits.html", count_tokens=_words)
    assert [c.title for c in chunks] == ["Limits"]
    assert "Menu" not in text


def test_a_page_without_main_or_article_falls_back_to_the_body_without_chrome():
    html = ("<html><body><header><a href='/'>Home</a></header><div class='sidebar'>Links"
            "</div><div><h2 id='x'>Usage</h2><p>Call it.</p></div><footer>(c)</footer></body></html>")
    text = html_to_markdown(html)
    assert "## Usage {#x}" in text and "Call it." in text
    for chrome in ("Home", "Links", "(c)"):
        assert chrome not in text
