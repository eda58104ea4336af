"""A passage ending by announcing a block gets the block its page's next chunk opens with."""

from __future__ import annotations

from docent.ingest import ingest_path
from docent.retrieval.announced import completed
from docent.retrieval.bm25 import KeywordIndex
from docent.retrieval.store import in_file_order
from docent.retrieval.types import Chunk
from tests.retrieval.conftest import FakeEmbedder, write_docs
from tests.retrieval.test_retriever import _retriever


def chunk(i: int, text: str) -> Chunk:
    return Chunk(f"c{i}", "testing.md", "Testing", "Testing", "testing", "", text)


RUN = "```console\n$ pytest\n```"


def test_an_announcement_gets_the_block_the_next_chunk_opens_with():
    ends = chunk(1, "Write the test first.\n\nRun the tests with:")
    assert completed(ends, chunk(2, f"{RUN}\n\nThen read the report.")).text == (
        f"Write the test first.\n\nRun the tests with:\n\n{RUN}")


def test_a_crawled_pages_indented_block_is_a_block_too():
    ends = chunk(1, "Create a new file `app/api/route.ts`:")
    following = chunk(2, "    import { NextRequest } from 'next/server'\n    \n"
                         "    export async function GET() {}\n\nReplace the key.")
    assert completed(ends, following).text == (
        "Create a new file `app/api/route.ts`:\n\n    import { NextRequest } from "
        "'next/server'\n    \n    export async function GET() {}")


def test_the_title_a_crawled_page_shows_over_its_code_announces_it():
    block = "    export const wallets = [inAppWallet({ sponsorGas: true })];"
    for title in ("constants", "page.tsx", "`interact.js`", "Complete Code"):
        ends = chunk(1, f"Create the file `constants/index.ts`.\n\n{title}")
        assert completed(ends, chunk(2, f"{block}\n\nNext, the page.")).text.endswith(block)
    # a sentence, a list item or markup is no title
    for last in ("Create the file.", "- constants", "<div class=\"termy\">", "///",
                 "Then paste the code that follows"):
        ends = chunk(1, f"Set it up.\n\n{last}")
        assert completed(ends, chunk(2, block)) is ends


def test_nothing_is_added_without_an_announcement_or_an_opening_block():
    ends = chunk(1, "Run the tests with:")
    assert completed(ends, chunk(2, f"Then read the report.\n\n{RUN}")) is ends
    assert completed(ends, None) is ends
    plain = chunk(1, "Run the tests.")
    assert completed(plain, chunk(2, RUN)) is plain
    # a list item or a heading ending in ":" announces nothing of the next chunk
    for text in ("Steps:\n\n- install it:", "## Usage:"):
        listed = chunk(1, text)
        assert completed(listed, chunk(2, RUN)) is listed


def test_the_next_chunk_is_known_only_for_a_page_stored_in_its_own_order():
    def page(i: int, section: str, file: str = "testing.md") -> Chunk:
        return Chunk(f"{file}{i}", file, "T", section, "", "", f"text {i}")

    ordered = [page(1, "A"), page(2, "A"), page(3, "B")]
    index = KeywordIndex(ordered)
    assert index.following == {"testing.md1": ordered[1], "testing.md2": ordered[2]}
    # re-ingested in part: a changed chunk is appended after another page's
    assert KeywordIndex([*ordered[:2], page(1, "X", "other.md"), ordered[2]]).following == {}
    # ... or right after its own page's, where its section comes back
    assert KeywordIndex([page(1, "A"), page(2, "B"), page(3, "A")]).following == {}


def test_a_file_with_every_place_known_is_listed_in_order_where_it_began():
    def row(file: str, i: int, place: int | None) -> tuple[str, Chunk, int | None]:
        return file, Chunk(f"{file}{i}", file, "T", "S", "", "", f"text {i}"), place

    rows = [row("a.md", 1, 0), row("b.md", 1, None), row("a.md", 3, 2), row("b.md", 2, None),
            row("a.md", 2, 1)]
    # a.md's chunks together, in order; b.md (stored before places were kept) as stored
    assert [c.chunk_id for c in in_file_order(rows)] == ["a.md1", "a.md2", "a.md3", "b.md1",
                                                         "b.md2"]
    rows = [row("b.md", 2, None), row("a.md", 1, 0), row("b.md", 1, None)]
    assert [c.chunk_id for c in in_file_order(rows)] == ["b.md2", "a.md1", "b.md1"]


def test_search_completes_a_passage_cut_before_the_block_it_announces(tmp_path, data_settings):
    embedder = FakeEmbedder()
    filler = " ".join(f"word{j}" for j in range(150))  # keeps each section a chunk of its own
    docs = write_docs(tmp_path / "docs", {
        "testing.md": f"# Testing\n\n## Run them\n\n{filler}\n\nRun the kiln tests with:\n\n"
                      f"## Output\n\n{RUN}\n\nThe kiln report follows. {filler}\n",
        "other.md": "# Other\n\nNothing about kilns.\n",
    })
    ingest_path(docs, data_settings, embedder=embedder, progress=False)
    retriever = _retriever(data_settings, embedder)
    sections = [c.section_title for c in retriever.keyword_index().by_file["testing.md"]]
    assert sections == ["Testing > Run them", "Testing > Output"]  # cut before the block
    hits = retriever.search("How do I run the kiln tests?", 3)
    run = next(h.chunk for h in hits if h.chunk.section_title == "Testing > Run them")
    assert run.text.endswith(f"Run the kiln tests with:\n\n{RUN}")


def test_a_page_changed_in_part_is_still_read_in_its_own_order(tmp_path, data_settings):
    # Re-ingesting a changed page embeds only its new chunks and keeps the others where
    # they were; the store keeps each chunk's place, so the page still reads in order and
    # a cut announcement still gets its block.
    embedder = FakeEmbedder()
    filler = " ".join(f"word{j}" for j in range(150))
    page = (f"# Testing\n\n## Setup\n\n{filler}\n\n{{extra}}## Run them\n\n{filler}\n\n"
            f"Run the kiln tests with:\n\n## Output\n\n{RUN}\n\nThe kiln report follows. "
            f"{filler}\n")
    docs = write_docs(tmp_path / "docs", {"testing.md": page.format(extra=""),
                                          "other.md": "# Other\n\nNothing about kilns.\n"})
    ingest_path(docs, data_settings, embedder=embedder, progress=False)
    (docs / "testing.md").write_text(page.format(extra=f"## Glaze\n\nGlaze notes. {filler}\n\n"))
    report = ingest_path(docs, data_settings, embedder=embedder, progress=False)
    assert report.chunks_reused == 3  # only the new section was embedded
    retriever = _retriever(data_settings, embedder)
    sections = [c.section_title for c in retriever.keyword_index().by_file["testing.md"]]
    assert sections == ["Testing > Setup", "Testing > Glaze", "Testing > Run them",
                        "Testing > Output"]
    hits = retriever.search("How do I run the kiln tests?", 3)
    run = next(h.chunk for h in hits if h.chunk.section_title == "Testing > Run them")
    assert run.text.endswith(f"Run the kiln tests with:\n\n{RUN}")
