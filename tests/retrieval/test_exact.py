"""Exact search over an embedded collection's vectors held in memory (retrieval/exact.py):
the same nearest chunks as Chroma, no Chroma query once read, and Chroma again after a
write until the vectors are read anew."""

from __future__ import annotations

import numpy as np
import pytest

from docent.ingest import ingest_path
from docent.retrieval import retriever as retriever_module
from docent.retrieval.chunking import embedding_text
from docent.retrieval.exact import VectorTable
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import open_store
from docent.retrieval.types import Chunk
from tests.retrieval.conftest import FakeEmbedder, RandomEmbedder, write_docs

TOPICS = ["kilns", "glazes", "clay", "wheels", "firing", "tools"]


def _indexed(tmp_path, data_settings, embedder):
    files = {f"{t}.md": f"# {t.title()}\n\nNotes about {t} and more {t}.\n" for t in TOPICS}
    ingest_path(write_docs(tmp_path / "docs", files), data_settings, embedder=embedder,
                progress=False)
    retriever = HybridRetriever(open_store(data_settings, embedder), embedder, data_settings,
                                max_unknown_shift=2.0, min_coverage=0.0, check_names=False)
    return retriever, embedder


@pytest.fixture
def indexed(tmp_path, data_settings):
    return _indexed(tmp_path, data_settings, FakeEmbedder())


def _asked(retriever, monkeypatch):
    calls: list[int] = []
    real = retriever.store.nearest
    monkeypatch.setattr(retriever.store, "nearest", lambda v, n: calls.append(n) or real(v, n))
    return calls


def test_the_table_finds_what_chroma_finds(tmp_path, data_settings):
    retriever, embedder = _indexed(tmp_path, data_settings, RandomEmbedder())  # no ties
    retriever.warm_up()
    table = retriever._vector_table()
    assert table is not None and table.matrix is not None and len(table.ids) == len(TOPICS)
    for topic in TOPICS:
        vector = embedder.embed([f"about {topic}"])[0]
        exact, chroma = table.nearest(vector, 3), retriever.store.nearest(vector, 3)
        assert [i for i, _ in exact] == [i for i, _ in chroma]
        assert [s for _, s in exact] == pytest.approx([s for _, s in chroma], abs=1e-5)


def test_after_warm_up_a_search_asks_chroma_nothing(indexed, monkeypatch):
    retriever, _ = indexed
    retriever.warm_up()
    calls = _asked(retriever, monkeypatch)
    assert retriever.search("notes about glazes", 3)
    assert calls == []


def test_a_write_sends_searches_to_chroma_until_the_vectors_are_read_again(
    indexed, monkeypatch
):
    retriever, embedder = indexed
    retriever.warm_up()
    calls = _asked(retriever, monkeypatch)
    late = Chunk(chunk_id="late-1", source_file="late.md", title="Late", section_title="Late",
                 slug="late", page_url="", text="Quokka zebra umbrella notes.")
    retriever.store.upsert([late], embedder.embed([embedding_text(late)]), file_hash="x",
                           source_root="/r")  # an ingestion under way: no new fingerprint
    assert retriever.search("quokka zebra umbrella", 3)[0].chunk == late
    assert calls == [retriever.depth]
    assert retriever.wait_for_vector_table(10)
    assert retriever.search("quokka zebra umbrella", 3)[0].chunk == late
    assert calls == [retriever.depth]  # the table read after the write has it


def test_a_collection_bigger_than_the_table_is_searched_by_chroma(indexed, monkeypatch):
    retriever, _ = indexed
    monkeypatch.setattr(retriever_module, "WARM_CHUNKS", len(TOPICS) - 1)
    retriever.warm_up()
    calls = _asked(retriever, monkeypatch)
    assert retriever.search("notes about glazes", 3)
    assert calls == [retriever.depth]


def test_a_failed_read_leaves_searches_to_chroma_until_the_next_write(
    indexed, monkeypatch, caplog
):
    retriever, embedder = indexed
    reads: list[int] = []

    def broken(limit):
        reads.append(limit)
        raise RuntimeError("disk error")

    monkeypatch.setattr(retriever.store, "all_vectors", broken)
    calls = _asked(retriever, monkeypatch)
    assert retriever.search("notes about glazes", 3) and retriever.search("notes about clay", 3)
    assert len(reads) == 1 and calls == [retriever.depth] * 2
    assert "searches ask Chroma" in caplog.text
    late = Chunk(chunk_id="late-1", source_file="late.md", title="Late", section_title="Late",
                 slug="late", page_url="", text="Quokka zebra umbrella notes.")
    retriever.store.upsert([late], embedder.embed([embedding_text(late)]), file_hash="x",
                           source_root="/r")
    retriever.search("notes about kilns", 3)
    assert retriever.wait_for_vector_table(10) and len(reads) == 2  # tried again after a write


def test_nearest_orders_by_similarity_then_by_store_order():
    matrix = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    table = VectorTable("s", ["a", "b", "c", "d"], matrix)
    assert table.nearest(np.array([1.0, 0.0]), 3) == [("a", 1.0), ("c", 1.0),
                                                      ("d", pytest.approx(0.6))]
    assert [i for i, _ in table.nearest(np.array([0.0, 1.0]), 10)] == ["b", "d", "a", "c"]
    assert table.nearest(np.array([0.0, 1.0]), 0) == []
    assert VectorTable("s").nearest(np.array([1.0, 0.0]), 3) == []


def test_vectors_gives_the_rows_of_the_ids_it_holds():
    matrix = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    table = VectorTable("s", ["a", "b"], matrix)
    found = table.vectors(["b", "missing"])
    assert list(found) == ["b"] and found["b"].tolist() == [0.0, 1.0]
    assert VectorTable("s").vectors(["a"]) == {}
