"""The keyword index saved beside the store, and its refresh in the background.

A server loads the index ingestion saved instead of reading and tokenising every chunk,
and after a re-ingestion keeps answering from the index it has while the new one is loaded
or built: no search waits for a rebuild.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from docent.ingest import ingest_path
from docent.retrieval import keyword_store
from docent.retrieval.bm25 import KeywordIndex
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import DocStore, open_store
from tests.retrieval.conftest import write_docs

DOCS = {
    "guide.md": "# Guide\n\nThe lantern command starts the server on port 8400.\n",
    "limits.md": "# Limits\n\nRequests are capped by QWERTY_LIMIT per minute.\n",
    "release-notes.md": "# Release notes\n\n## 1.2\n\nDocs for Zephyrhost deployments.\n",
}


def _retriever(settings, embedder):
    return HybridRetriever(open_store(settings, embedder), embedder, settings,
                           max_unknown_shift=2.0, min_coverage=0.0)


def test_ingestion_saves_the_index_of_the_fingerprint_it_leaves(
    tmp_path, data_settings, fake_embedder
):
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=fake_embedder,
                progress=False)
    fingerprint = open_store(data_settings, fake_embedder).read_fingerprint()
    saved = keyword_store.load(keyword_store.index_dir(data_settings), fingerprint)
    assert saved is not None
    built = KeywordIndex(open_store(data_settings, fake_embedder).all_chunks())
    assert sorted(saved.by_id) == sorted(built.by_id)
    assert saved.doc_freq == built.doc_freq and saved.raw_words == built.raw_words
    assert saved.changelog_only == built.changelog_only
    assert "zephyrhost" in saved.changelog_only.words
    assert saved.search("QWERTY_LIMIT", 2)[0][0].source_file == "limits.md"


def test_a_server_starts_from_the_saved_index_without_reading_every_chunk(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=fake_embedder,
                progress=False)

    def no_full_read(self):
        raise AssertionError("the keyword index was rebuilt from the store")

    monkeypatch.setattr(DocStore, "all_chunks", no_full_read)
    retriever = _retriever(data_settings, fake_embedder)
    retriever.warm_up()
    assert retriever.search("QWERTY_LIMIT per minute", 1)[0].chunk.source_file == "limits.md"
    # the saved index still knows which names only the release notes use
    assert retriever.search("How do I deploy on Zephyrhost?", 2) == []


def test_without_a_saved_index_one_is_built_and_saved(tmp_path, data_settings, fake_embedder):
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=fake_embedder,
                progress=False)
    directory = keyword_store.index_dir(data_settings)
    for folder in directory.iterdir():
        (folder / "meta.json").unlink()  # a folder without meta.json is never loaded
    retriever = _retriever(data_settings, fake_embedder)
    retriever.warm_up()
    fingerprint = retriever.store.read_fingerprint()
    assert keyword_store.load(directory, fingerprint) is not None


def test_an_unreadable_saved_index_is_rebuilt(tmp_path, data_settings, fake_embedder, caplog):
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=fake_embedder,
                progress=False)
    directory = keyword_store.index_dir(data_settings)
    fingerprint = open_store(data_settings, fake_embedder).read_fingerprint()
    (directory / fingerprint / "chunks.json").write_text("[[1, 2", encoding="utf-8")
    assert keyword_store.load(directory, fingerprint) is None
    assert "saved keyword index unreadable" in caplog.text
    retriever = _retriever(data_settings, fake_embedder)
    assert retriever.search("QWERTY_LIMIT", 1)[0].chunk.source_file == "limits.md"


def test_old_fingerprints_are_pruned(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", DOCS)
    for n in range(4):
        write_docs(root, {"extra.md": f"# Extra\n\nVersion {n} of the page.\n"})
        ingest_path(root, data_settings, embedder=fake_embedder, progress=False)
    folders = list(keyword_store.index_dir(data_settings).iterdir())
    assert len(folders) == 2
    current = open_store(data_settings, fake_embedder).read_fingerprint()
    assert current in {f.name for f in folders}


def test_searches_during_a_rebuild_are_answered_by_the_previous_index(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    root = write_docs(tmp_path / "docs", DOCS)
    ingest_path(root, data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder)
    retriever.warm_up()
    # Another process re-ingests; its saved index is missing, so this one must build.
    write_docs(root, {"proxy.md": "# Proxy\n\nSet ZEBRA_PROXY to route requests.\n"})
    (root / "guide.md").unlink()
    ingest_path(root, data_settings, embedder=fake_embedder, progress=False,
                store=open_store(data_settings, fake_embedder))
    monkeypatch.setattr(keyword_store, "load", lambda directory, fingerprint: None)
    release, reading = threading.Event(), threading.Event()
    real = DocStore.all_chunks

    def slow_full_read(self):
        reading.set()
        assert release.wait(30)
        return real(self)

    monkeypatch.setattr(DocStore, "all_chunks", slow_full_read)
    try:
        hits = retriever.search("lantern command port 8400", 3)  # starts the rebuild
        assert reading.wait(10)
        # Answered while the rebuild is blocked; the deleted page's keyword hit is dropped.
        waits = []
        settled = retriever._settled
        monkeypatch.setattr(retriever, "_settled", SimpleNamespace(
            wait=lambda timeout=None: waits.append(timeout) or settled.wait(timeout),
            set=settled.set, clear=settled.clear))
        during = retriever.search("lantern command starts server", 3)
        assert waits == [retriever.stale_wait]  # once per search, not once per check
        monkeypatch.setattr(retriever, "_settled", settled)
        assert "guide.md" not in [h.chunk.source_file for h in hits + during]
        assert not retriever.wait_for_keyword_index(timeout=0.1)
    finally:
        release.set()
    assert retriever.wait_for_keyword_index(timeout=30)
    assert "proxy.md" in retriever.keyword_index().raw_words or any(
        c.source_file == "proxy.md" for c in retriever.keyword_index().chunks)
    after = retriever.search("ZEBRA_PROXY", 1)
    assert after[0].chunk.source_file == "proxy.md"
    assert retriever.cache_info().size == 1  # only the answer from the current index


def test_a_failed_rebuild_leaves_the_old_index_serving(
    tmp_path, data_settings, fake_embedder, monkeypatch, caplog
):
    root = write_docs(tmp_path / "docs", DOCS)
    ingest_path(root, data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder)
    retriever.warm_up()
    write_docs(root, {"more.md": "# More\n\nAnother page.\n"})
    ingest_path(root, data_settings, embedder=fake_embedder, progress=False,
                store=open_store(data_settings, fake_embedder))
    monkeypatch.setattr(keyword_store, "load", lambda directory, fingerprint: None)

    def broken(self):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(DocStore, "all_chunks", broken)
    assert retriever.search("QWERTY_LIMIT", 1)[0].chunk.source_file == "limits.md"
    assert retriever.wait_for_keyword_index(timeout=30)
    assert "keyword index rebuild failed" in caplog.text
    assert retriever.search("QWERTY_LIMIT per minute", 1)[0].chunk.source_file == "limits.md"


@pytest.mark.parametrize("fingerprint", ["f1"])
def test_saving_twice_keeps_the_first_folder(tmp_path, fingerprint):
    index = KeywordIndex([])
    keyword_store.save(index, tmp_path, fingerprint)
    first = (tmp_path / fingerprint / "meta.json").stat().st_mtime_ns
    keyword_store.save(index, tmp_path, fingerprint)
    assert (tmp_path / fingerprint / "meta.json").stat().st_mtime_ns == first
    loaded = keyword_store.load(tmp_path, fingerprint)
    assert loaded is not None and loaded.search("anything", 3) == []


def test_the_index_is_saved_before_its_fingerprint_is_written(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    """A server that sees the new fingerprint must find its index ready, never build it."""
    seen: list[bool] = []
    real = DocStore.touch

    def touch(self, units_version=None, fingerprint=None):
        directory = keyword_store.index_dir(data_settings)
        seen.append(keyword_store.load(directory, fingerprint) is not None)
        return real(self, units_version=units_version, fingerprint=fingerprint)

    monkeypatch.setattr(DocStore, "touch", touch)
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=fake_embedder,
                progress=False)
    assert seen == [True]


def test_a_folder_of_an_older_format_is_replaced(tmp_path):
    """After an upgrade that changes the format, the first save replaces the old folder:
    left in place, every process would rebuild the index at every start."""
    from docent.retrieval.types import Chunk

    chunk = Chunk(chunk_id="c1", source_file="guide.md", title="Guide", section_title="Guide",
                  slug="guide", page_url="", text="The lantern command starts the server.")
    keyword_store.save(KeywordIndex([chunk]), tmp_path, "f1")
    meta = tmp_path / "f1" / "meta.json"
    meta.write_text(meta.read_text().replace(f'"format": {keyword_store.FORMAT}',
                                             f'"format": {keyword_store.FORMAT - 1}'))
    assert keyword_store.load(tmp_path, "f1") is None  # an older format is not loaded
    keyword_store.save(KeywordIndex([chunk]), tmp_path, "f1")
    loaded = keyword_store.load(tmp_path, "f1")
    assert loaded is not None and loaded.search("lantern", 1)[0][0].chunk_id == "c1"
    assert [p.name for p in tmp_path.iterdir()] == ["f1"]  # nothing left aside
