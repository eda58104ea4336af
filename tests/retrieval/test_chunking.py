"""Chunking: heading paths, code fences kept whole, sizing, anchors, links, stable ids, chrome."""

from __future__ import annotations

import re

import pytest

from docent.retrieval.chunking import (
    MAX_UNIT_CHARS,
    chunk_markdown,
    clean_for_embedding,
    embedding_text,
    page_url,
)


def words(text: str) -> int:
    return len(re.findall(r"\w+", text)) + 2


def chunks(text: str, source: str = "guide/setup.md", **kw):
    kw.setdefault("count_tokens", words)
    return chunk_markdown(text, source, **kw)


def test_sections_carry_their_heading_path_and_slug():
    text = (
        "# Guide\n\nIntro words here.\n\n## Configuration\n\nConfig text.\n\n"
        "### Guards\n\nGuard text.\n\n## Other\n\nOther text.\n"
    )
    got = chunks(text, min_tokens=0)
    assert [c.section_title for c in got] == [
        "Guide", "Guide > Configuration", "Guide > Configuration > Guards", "Guide > Other",
    ]
    assert [c.slug for c in got] == ["guide", "configuration", "guards", "other"]
    assert all(c.title == "Guide" for c in got)
    assert "Guard text." in got[2].text and "Config text." not in got[2].text


def test_embedding_text_starts_with_title_and_heading_path():
    got = chunks("# Guide\n\n## Guards\n\nSee [the limits](https://x.org/limits).\n")
    assert embedding_text(got[0]).startswith("Guide\nGuide > Guards\n\n")
    # Link targets are noise to a vector; the link text stays.
    assert "the limits" in embedding_text(got[0]) and "x.org" not in embedding_text(got[0])
    assert "https://x.org/limits" in got[0].text


def test_a_link_whose_text_is_only_here_keeps_the_name_of_its_site():
    # "request test tokens [here](https://cloud.google.com/...)": the site is what it names
    text = ("Request test tokens [here](https://cloud.google.com/web3/faucet), 1 STT per day. "
            "See the [faucet guide](https://docs.example.org/faucet) or [**this link**]"
            "(https://www.example.org/x).")
    assert clean_for_embedding(text) == (
        "Request test tokens here (cloud.google.com), 1 STT per day. See the faucet guide or "
        "**this link** (example.org).")
    assert clean_for_embedding("Read it [here](../other-page.md).") == "Read it here."


def test_links_run_together_stay_apart():
    # A crawl's grid of page cards: each card's name a word of its own.
    assert clean_for_embedding("[Elix.fi](/e/elix)[Meme Coins](/e/meme)[Tokos](/e/tokos)") == (
        "Elix.fi, Meme Coins, Tokos")


def test_a_here_links_path_words_are_named_only_when_asked_for():
    from docent.retrieval.chunking import name_bare_links

    text = "Get tokens [here](https://cloud.google.com/web3/faucet/somnia_shannon/v2/a.html?q=1)."
    assert name_bare_links(text, path_words=True).startswith(
        "Get tokens [here (cloud.google.com faucet somnia shannon)](")
    # what is embedded and indexed keeps the site only
    assert clean_for_embedding(text) == "Get tokens here (cloud.google.com)."


def test_code_fence_is_never_split_and_hash_lines_inside_are_not_headings():
    code = "\n".join(f"    value_{i} = compute({i})  # step {i}" for i in range(60))
    text = (
        "# Page\n\nBefore the code.\n\n````python\n# not a heading\n\n"
        f"{code}\n\n## still code\n```\nnested fence text\n```\n````\n\nAfter the code.\n"
    )
    got = chunks(text, max_tokens=64, min_tokens=0)
    holders = [c for c in got if "# not a heading" in c.text]
    assert len(holders) == 1
    body = holders[0].text
    assert "value_59 = compute(59)" in body and "nested fence text" in body
    assert body.count("````") == 2
    assert not any("not a heading" in c.section_title or "still code" in c.section_title
                   for c in got)


def test_tilde_fence_is_kept_whole():
    lines = "\n".join(f"line {i} of the shell session" for i in range(80))
    got = chunks(f"# T\n\n~~~bash\n{lines}\n# comment\n~~~\n\ntail\n", max_tokens=64)
    assert sum("~~~bash" in c.text for c in got) == 1
    holder = next(c for c in got if "~~~bash" in c.text)
    assert "line 79 of the shell session" in holder.text and "# comment" in holder.text


def test_long_sections_split_at_paragraphs_within_the_budget():
    paragraphs = [f"Paragraph {i} " + "word " * 30 + "end." for i in range(12)]
    got = chunks("# Long\n\n## Part\n\n" + "\n\n".join(paragraphs) + "\n", max_tokens=100)
    assert len(got) > 3
    assert all(words(embedding_text(c)) <= 100 for c in got)
    for p in paragraphs:
        assert sum(p in c.text for c in got) == 1
    assert {c.section_title for c in got} == {"Long > Part"}


def test_tiny_sibling_sections_are_merged_and_keep_their_heading():
    text = "# Page\n\n## Alpha\n\nShort alpha.\n\n## Beta\n\nShort beta.\n"
    merged = chunks(text, min_tokens=20)
    assert len(merged) == 1
    assert "## Beta" in merged[0].text and "Short alpha." in merged[0].text
    assert len(chunks(text, min_tokens=0)) == 2


def test_front_matter_is_stripped_and_gives_the_title_without_h1():
    text = "---\ntitle: Deploying docent\ntags: [a, b]\n---\n\nSome body text.\n"
    got = chunks(text)
    assert got[0].title == "Deploying docent"
    assert "tags" not in got[0].text and "---" not in got[0].text


def test_h1_wins_over_front_matter_and_stem_is_the_last_resort():
    assert chunks("---\ntitle: Meta\n---\n# Real Title\n\nx\n")[0].title == "Real Title"
    assert chunks("Just text.\n", source="how-to/query-params.md")[0].title == "Query params"
    assert chunks("Just text.\n", source="tutorial/index.md")[0].title == "Tutorial"


def test_mkdocs_explicit_anchor_is_the_slug_and_left_out_of_the_title():
    text = "# Query Parameters { #query-parameters }\n\nx\n\n## Query parameters { #query-params }\n\ny\n"
    got = chunks(text, min_tokens=0)
    assert got[0].title == "Query Parameters"
    assert got[1].section_title == "Query Parameters > Query parameters"
    assert got[1].slug == "query-params"


def test_github_slugs_drop_punctuation_and_number_repeats():
    text = "# Hello, World! `code`\n\nx\n\n## Usage\n\na\n\n## Usage\n\nb\n"
    got = chunks(text, min_tokens=0)
    assert [c.slug for c in got] == ["hello-world-code", "usage", "usage-1"]


def test_page_url_with_and_without_base_url():
    got = chunks("# Setup\n\n## Install\n\nx\n", base_url="https://docs.example.com/",
                 min_tokens=0)
    assert got[0].page_url == "https://docs.example.com/guide/setup#install"
    assert chunks("# Setup\n\nx\n")[0].page_url == ""
    assert page_url("https://d.io", "guide/index.md", "top") == "https://d.io/guide/#top"
    assert page_url("https://d.io", "index.md", "") == "https://d.io/"


def test_chunk_ids_are_stable_unique_and_follow_the_text():
    text = "# A\n\n## B\n\nsame\n\n## B\n\nsame\n"
    first, again = chunks(text, min_tokens=0), chunks(text, min_tokens=0)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    assert len({c.chunk_id for c in first}) == len(first)
    assert all(re.fullmatch(r"[0-9a-f]{16,}", c.chunk_id) for c in first)
    changed = chunks(text.replace("same\n\n## B", "other\n\n## B"), min_tokens=0)
    assert changed[1].chunk_id != first[1].chunk_id
    assert chunks(text, source="other.md", min_tokens=0)[1].chunk_id != first[1].chunk_id


def test_page_chrome_lines_are_dropped_but_real_sentences_stay():
    text = (
        "# Tokens | Site Docs\n\nCopy\n\n# Tokens\n\nThe supply is fixed.\n\nCopy\n\n"
        "Copy the file into your project.\n\n"
        "[PreviousUse Cases](/a/b)[NextStaking](/c/d)\n\nLast updated 2 months ago\n\n"
        "Was this helpful?\n\nPrevious\n\nNext\n"
    )
    body = "\n".join(c.text for c in chunks(text))
    assert "The supply is fixed." in body and "Copy the file into your project." in body
    for chrome in ("\nCopy\n", "PreviousUse", "Last updated", "helpful", "\nPrevious", "\nNext"):
        assert chrome not in "\n" + body + "\n"


def test_empty_gitbook_heading_takes_the_next_line_as_its_text():
    text = "# Overview\n\nIntro.\n\n## \n\nToken Utility\n\nSOMI is used for staking.\n"
    got = chunks(text, min_tokens=0)
    assert got[-1].section_title == "Overview > Token Utility"
    assert got[-1].slug == "token-utility"
    assert got[-1].text == "SOMI is used for staking."


def test_indented_code_after_a_paragraph_is_not_split():
    code = "\n".join(f"    function f{i}() external returns (uint256);" for i in range(40))
    text = f"# C\n\nPaste this:\n\n{code}\n\nDone.\n"
    got = chunks(text, max_tokens=64, min_tokens=0)
    assert sum("function f0()" in c.text for c in got) == 1
    holder = next(c for c in got if "function f0()" in c.text)
    assert "function f39()" in holder.text


@pytest.mark.parametrize("intro", [
    # "The bottlenecks are:", then one paragraph per item: no chunk ends part way through
    "The three bottlenecks are:",
    # an FAQ's "Q: ...?", then "A:" and the answer's items: the question stays with them
    "Q: What resources are there?\n\nA:",
])
def test_a_loose_list_moves_whole_with_its_announcing_paragraph(intro):
    fill = " ".join(f"word{i}" for i in range(40))
    items = "\n\n".join(f"  * Item {i} - " + " ".join(f"w{i}x{j}" for j in range(6))
                        for i in range(3))
    text = f"# Page\n\n{fill}.\n\n{intro}\n\n{items}\n\nAfter the list.\n"
    got = chunks(text, max_tokens=70, min_tokens=0)
    holder = next(c for c in got if "Item 0" in c.text)
    assert holder.text.startswith(intro)
    assert "Item 2" in holder.text
    assert fill not in holder.text


def test_a_paragraph_announcing_code_moves_with_the_code_to_the_next_chunk():
    fill = " ".join(f"word{i}" for i in range(40))
    code = "```bash\n" + "\n".join(f"export SETTING_{i}=value" for i in range(6)) + "\n```"
    text = f"# Page\n\n{fill}.\n\nSet these on every replica:\n\n{code}\n\nAfter the code.\n"
    got = chunks(text, max_tokens=60, min_tokens=0)
    assert len(got) == 2
    holder = next(c for c in got if "export SETTING_0" in c.text)
    assert holder.text.startswith("Set these on every replica:\n\n```bash")
    assert not any(c.text.rstrip().endswith(":") for c in got)


def test_a_table_a_crawl_flattened_stays_in_one_chunk_when_it_fits():
    # One cell a line: "Service", "Provider", then a row's cells. Cut after "[RPC](...)",
    # the rows would start the next chunk without the header that says what they are.
    fill = " ".join(f"word{i}" for i in range(30))
    rows = [("RPC", "Ankr, Public Node"), ("Oracles", "DIA"), ("Subgraphs", "Protofire, Ormi"),
            ("Wallets", "Privy, Thirdweb"), ("SDKs", "Sequence, Thirdweb"), ("APIs", "Ormi")]
    cells = ["Service", "Provider"] + [c for name, who in rows for c in (f"[{name}](/{name})", who)]
    text = f"# Tools\n\n{fill}.\n\n" + "\n\n".join(cells) + "\n\nAfter the table.\n"
    got = chunks(text, max_tokens=50, min_tokens=0)
    holder = next(c for c in got if "Sequence, Thirdweb" in c.text)
    assert holder.text.startswith("Service\n\nProvider\n\n[RPC](/RPC)")
    assert "Ormi\n" in holder.text + "\n" and fill not in holder.text
    # too big for one chunk, it is split between cells as before, each still a paragraph
    got = chunks(text, max_tokens=10, min_tokens=0)
    assert not any("Service" in c.text and "Sequence" in c.text for c in got)
    assert all("\n" not in c.text.replace("\n\n", "") for c in got)


def unknown_words(text: str) -> int:
    # As the real tokenizer counts them: a word over 100 characters is one [UNK] token.
    return sum(1 if len(w) > 100 else len(w) // 4 + 1 for w in text.split()) + 2


def test_no_chunk_outgrows_the_cap_whatever_one_block_holds():
    # A line no sentence end or token count splits (minified data, a run-on word), and a
    # generated code block of thousands of lines: each would be one chunk larger than a
    # run's whole context, and every question retrieving it would end MAX_CONTEXT_REACHED.
    blob = "x" * 50_000
    rows = "\n".join(f'  {{"field_{i}": "value number {i} of the schema"}},' for i in range(2000))
    text = f"# Data\n\n{blob}\n\n## Schema\n\nThe schema:\n\n```json\n{rows}\n```\n\nIt ends.\n"
    got = chunks(text, count_tokens=unknown_words)
    assert max(len(c.text) for c in got) <= MAX_UNIT_CHARS
    assert "".join(re.findall(r"x{100,}", "\n".join(c.text for c in got))) == blob  # all kept
    code = [c.text for c in got if "field_" in c.text]
    assert len(code) > 1 and all(t.startswith("```json\n") and t.endswith("\n```") for t in code)
    lines = [line for t in code for line in t.split("\n")[1:-1]]
    assert lines == rows.split("\n")  # cut at line ends, each line whole, in order


def test_an_inlined_data_uri_keeps_its_kind_but_not_its_payload():
    payload = "iVBORw0KGgo" + "A" * 5000 + "=="
    got = chunks(f"# Logo\n\nOur logo: ![logo](data:image/png;base64,{payload})\n\nIt is blue.\n")
    assert "![logo](data:image/png;base64,…)" in got[0].text and payload not in got[0].text
    short = 'const url = "data:application/json;base64," + btoa(json);'  # code building one
    assert short in chunks(f"# Code\n\n{short}\n")[0].text
