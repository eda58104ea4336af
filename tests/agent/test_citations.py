"""CONTRACT.md, grounding: citation numbers checked in code, sources list the cited ones."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from docent.agent.citations import enforce_citations
from tests.fakes import call

SOURCES = [{"n": 1, "chunk_id": "a"}, {"n": 2, "chunk_id": "b"}]


def test_unknown_citations_are_removed_and_text_stays_tidy():
    text, cited = enforce_citations("A [1]. B [7][2]. C [9]. D [8] and E.", SOURCES)
    assert text == "A [1]. B [2]. C. D and E."
    assert [s["n"] for s in cited] == [1, 2]


def test_code_and_links_are_not_citations():
    text, cited = enforce_citations(
        "Use `items[3]`:\n```python\nx = items[1]  [9]\n```\nSee [docs](http://x) [2].", SOURCES
    )
    assert "items[3]" in text and "x = items[1]  [9]" in text and "[docs](http://x)" in text
    assert [s["n"] for s in cited] == [2]


def test_sources_follow_first_citation_order():
    _, cited = enforce_citations("B [2] then A [1] then B [2].", SOURCES)
    assert [s["chunk_id"] for s in cited] == ["b", "a"]


def test_response_lists_only_cited_sources(run_both):
    # The fake retriever returns chunks 1 and 2 for "limit"; the answer cites only [2] and [5].
    chat, terminal, _, _, _ = run_both([call("limit"), AIMessage("Turns are capped [2] [5].")])
    assert chat["response"] == "Turns are capped [2]."
    assert [s["n"] for s in chat["sources"]] == [2] == [s["n"] for s in terminal["sources"]]
    assert "text" not in chat["sources"][0] and chat["sources"][0]["content_preview"]


def test_source_previews_are_plain_text():
    from docent.agent.tools import _preview

    text = "## Limits\nSet `X` to **5**.\n```bash\nexport X=5\n```\nSee [the docs](http://x) {* ../a.py *}"
    assert _preview(text) == "Limits Set X to 5. export X=5 See the docs"
