"""CONTRACT.md, grounding: citation numbers checked in code, sources list the cited ones."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage

from docent.agent.citations import enforce_citations, renumber
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
    assert chat["response"] == "Turns are capped [1]."  # [2] is the first source cited
    assert [s["n"] for s in chat["sources"]] == [1] == [s["n"] for s in terminal["sources"]]
    assert chat["sources"][0]["chunk_id"] == terminal["sources"][0]["chunk_id"] != "c1"
    assert "text" not in chat["sources"][0] and chat["sources"][0]["content_preview"]


def test_citations_are_numbered_in_order_of_first_appearance_in_stream_and_answer(run_both):
    answer = "Second [2], first [1], second again [2] and none [7].\n\n```\nx[1] [2]\n```"
    chat, terminal, frames, _, _ = run_both([call("limit"), AIMessage(answer)])
    want = "Second [1], first [2], second again [1] and none.\n\n```\nx[1] [2]\n```"
    assert chat["response"] == terminal["response"] == want
    streamed = "".join(json.loads(f["data"])["content"] for f in frames
                       if f["event"] == "on_chat_model_stream")
    assert " ".join(streamed.split()) == " ".join(want.replace(" and none.", " and none .").split())
    by_n = {s["n"]: s["chunk_id"] for s in chat["sources"]}
    assert [s["n"] for s in chat["sources"]] == [1, 2] and by_n[1] != by_n[2]


def test_renumbering_keeps_code_and_link_labels():
    text = "A [3] `b[3]` [see](x) [1] [3]"
    out, cited = renumber(text, [{"n": 3}, {"n": 1}])
    assert out == "A [1] `b[3]` [see](x) [2] [1]" and [s["n"] for s in cited] == [1, 2]


def test_source_previews_are_plain_text():
    from docent.agent.tools import _preview

    text = "## Limits\nSet `X` to **5**.\n```bash\nexport X=5\n```\nSee [the docs](http://x) {* ../a.py *}"
    assert _preview(text) == "Limits Set X to 5. export X=5 See the docs"


def test_a_citation_split_across_stream_pieces_is_renumbered_like_a_whole_one():
    from docent.agent.citations import CitationStream

    text = "Lead [6].\n```py\nx = a[6] [1]\n```\n- `b[2]` [7][2]\n- [x](y) [6] items[1] [2]"
    whole = CitationStream()
    whole.known = {1, 2, 6, 7}
    expected = whole.feed(text) + whole.flush()
    assert expected == "Lead [1].\n```py\nx = a[6] [1]\n```\n- `b[2]` [2][3]\n- [x](y) [1] items[1] [3]"
    by_char = CitationStream()
    by_char.known = {1, 2, 6, 7}
    assert "".join(by_char.feed(ch) for ch in text) + by_char.flush() == expected
