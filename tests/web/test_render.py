"""render_markdown (issue 4): answers as safe HTML. Raw HTML is escaped, only http, https,
mailto and relative links survive, and `[n]` citations link to their sources."""

from __future__ import annotations

import pytest

from docent.render import is_safe_url, render_markdown

SOURCES = [{"n": 1, "title": "Guide"}, {"n": 2, "title": "Limits"}]


def test_markdown_renders_headings_lists_code_and_tables():
    html = render_markdown(
        "## Topic\n\nText.\n\n### Key Points\n\n- one\n- two\n\n```bash\nexport A=1\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |", [])
    assert "<h2>Topic</h2>" in html and "<h3>Key Points</h3>" in html
    assert "<li>one</li>" in html
    assert '<pre><code class="language-bash">export A=1\n</code></pre>' in html
    assert "<table>" in html and "<td>2</td>" in html


@pytest.mark.parametrize("payload", [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=//evil></iframe>",
    '<div onmouseover="alert(1)">hover</div>',
])
def test_raw_html_in_an_answer_is_escaped(payload):
    html = render_markdown(f"Before {payload} after.\n\n{payload}", [])
    assert "<script" not in html and "<img" not in html and "<iframe" not in html
    assert "<div" not in html and "<a " not in html
    assert "&lt;" in html


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)",
    "&#106;avascript:alert(1)", "vbscript:msgbox(1)", "data:text/html,<script>x</script>",
    "file:///etc/passwd", "ftp://files.example/a", "wss://node.example/ws",
])
def test_dangerous_links_are_not_links(url):
    html = render_markdown(f"[click]({url}) and <{url}>", [])
    assert "<a " not in html
    assert 'href="' not in html


@pytest.mark.parametrize("url", [
    "https://docs.example.com/a#b", "http://localhost:8000/x", "mailto:team@example.com",
    "/docs/config", "config.md#limits", "#top",
])
def test_safe_links_survive(url):
    assert is_safe_url(url)
    assert 'href="' in render_markdown(f"[ok]({url})", [])


def test_external_links_open_in_a_new_tab_without_opener():
    html = render_markdown("[docs](https://example.com)", [])
    assert 'target="_blank"' in html and 'rel="noopener noreferrer nofollow"' in html
    assert 'target="_blank"' not in render_markdown("[here](/docs)", [])


def test_images_become_links_and_load_nothing():
    html = render_markdown("![diagram](https://tracker.example/pixel.png)", [])
    assert "<img" not in html
    assert '<a href="https://tracker.example/pixel.png"' in html and ">diagram</a>" in html
    unsafe = render_markdown("![map](ftp://files.example/map.png)", [])
    assert "<img" not in unsafe and "<a " not in unsafe and "map" in unsafe


def test_an_unsafe_link_keeps_its_label_and_citations_after_it_still_link():
    html = render_markdown("See [the node](wss://node.example/ws) first [1].", SOURCES)
    assert "<a href" not in html and "the node" in html
    assert html.count('class="cite"') == 1


def test_citations_link_to_their_source_entry():
    html = render_markdown("Set it [1]. Also [2][1].", SOURCES, query_id="req-7")
    assert '<a class="cite" href="#src-req-7-1" data-n="1">[1]</a>' in html
    assert '<a class="cite" href="#src-req-7-2" data-n="2">[2]</a><a class="cite"' in html
    assert '<a class="cite" href="#src-1" data-n="1">' in render_markdown("It [1].", SOURCES)


@pytest.mark.parametrize("text", [
    "Use `items[1]` here.",
    "```python\nprint(items[1])\nx = [1]\n```",
    "Index items[1] directly.",
    "[1](https://example.com)",
    "Unknown [9].",
])
def test_brackets_that_are_not_citations_stay_text(text):
    assert 'class="cite"' not in render_markdown(text, SOURCES)


def test_citation_in_a_table_and_a_list_item():
    html = render_markdown("- limit [2]\n\n| a |\n|---|\n| b [1] |", SOURCES)
    assert html.count('class="cite"') == 2


def test_escaped_text_around_a_citation_stays_escaped():
    html = render_markdown("a <b> [1] & c", SOURCES)
    assert "a &lt;b&gt; <a class=\"cite\"" in html and "&amp; c" in html


def test_query_id_cannot_break_out_of_the_attribute():
    html = render_markdown("x [1]", SOURCES, query_id='"><script>')
    assert "<script>" not in html


def test_empty_answer_is_empty_html():
    assert render_markdown("", []) == ""
