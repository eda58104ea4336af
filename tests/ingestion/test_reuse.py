"""Per-chunk reuse: re-ingesting an edited file embeds only its new chunk texts."""

from __future__ import annotations

from docent.ingest import ingest_path
from docent.models.unit_vectors import scored_units, unit_key
from docent.retrieval.store import open_store
from tests.retrieval.conftest import write_docs

FILLER = " ".join(f"word{k}" for k in range(50))  # sections long enough to stay apart
SECTIONS = [f"## Release {n}\n\nRelease {n} fixes bug number {n} in the parser and the cache. "
            f"{FILLER}" for n in range(40)]
NOTES = "# Release notes\n\n" + "\n\n".join(SECTIONS) + "\n"


class CountingEmbedder:
    """Wraps the fake embedder and records every text it embeds."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.texts: list[str] = []

    def count_tokens(self, text):
        return self.inner.count_tokens(text)

    def embed(self, texts):
        self.texts += texts
        return self.inner.embed(texts)

    def embed_spans(self, texts, spans):
        self.texts += texts
        return self.inner.embed_spans(texts, spans)


def _ingest(root, settings, embedder, **kw):
    return ingest_path(root, settings, embedder=embedder, progress=False, **kw)


def test_a_one_line_edit_embeds_only_the_chunk_that_changed(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", {"release-notes.md": NOTES, "other.md": "# Other\n\nx\n"})
    embedder = CountingEmbedder(fake_embedder)
    first = _ingest(root, data_settings, embedder)
    store = open_store(data_settings, fake_embedder)
    before = {c.chunk_id: c for c in store.all_chunks()}
    n_notes = sum(c.source_file == "release-notes.md" for c in before.values())
    assert n_notes > 5
    write_docs(root, {"release-notes.md": NOTES.replace("bug number 7 ", "bug number 77 ")})
    embedder.texts.clear()
    report = _ingest(root, data_settings, embedder)
    assert (report.updated, report.unchanged) == (1, 1)
    assert report.chunks_written == 1 and report.chunks_reused == n_notes - 1
    assert len(embedder.texts) == 1 and "bug number 77" in embedder.texts[0]
    after = {c.chunk_id: c for c in store.all_chunks()}
    assert report.total_chunks == first.total_chunks == len(after)
    assert [c.text for c in after.values() if "bug number 7 " in c.text] == []
    # Every chunk, kept or new, has its unit vectors, and the file reads as current.
    units = store.unit_vectors(list(after))
    assert set(units) == set(after)
    edited = next(c for c in after.values() if "bug number 77" in c.text)
    assert set(units[edited.chunk_id]) == {unit_key(u.text) for u in scored_units(edited.text)}
    assert _ingest(root, data_settings, embedder).unchanged == 2


def test_a_kept_chunk_whose_title_changed_is_embedded_again(tmp_path, data_settings, fake_embedder):
    """The id hashes the heading path and text, not the page title the vector also reads."""
    root = write_docs(tmp_path / "docs", {"page.md": "---\ntitle: Old\n---\n\nSome text here.\n"})
    embedder = CountingEmbedder(fake_embedder)
    _ingest(root, data_settings, embedder)
    write_docs(root, {"page.md": "---\ntitle: New\n---\n\nSome text here.\n"})
    embedder.texts.clear()
    report = _ingest(root, data_settings, embedder)
    assert report.chunks_reused == 0 and len(embedder.texts) == 1
    assert [c.title for c in open_store(data_settings, fake_embedder).all_chunks()] == ["New"]


def test_a_chunk_without_unit_vectors_is_not_reused(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", {"release-notes.md": NOTES})
    _ingest(root, data_settings, fake_embedder)
    store = open_store(data_settings, fake_embedder)
    ids = [c.chunk_id for c in store.all_chunks()]
    store._units_collection().delete(ids=ids[:3])
    write_docs(root, {"release-notes.md": NOTES.replace("bug number 7 ", "bug number 77 ")})
    report = _ingest(root, data_settings, fake_embedder)
    assert report.chunks_reused == len(ids) - 4 and report.chunks_written == 4
    assert set(store.unit_vectors(ids[:3])) == set(ids[:3])


def test_a_run_cut_short_inside_a_file_is_finished_by_the_next(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    from docent.ingestion import pipeline

    root = write_docs(tmp_path / "docs", {"release-notes.md": NOTES})
    calls = {"n": 0}
    real = pipeline.encode_chunks

    def dies_after_one_slice(embedder, chunks):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        return real(embedder, chunks)

    monkeypatch.setattr(pipeline, "encode_chunks", dies_after_one_slice)
    monkeypatch.setattr(pipeline, "WINDOW", 4)
    try:
        ingest_path(root, data_settings, embedder=fake_embedder, progress=False)
    except KeyboardInterrupt:
        pass
    store = open_store(data_settings, fake_embedder)
    written = store.count()
    assert 0 < written < len(SECTIONS)
    assert store.files(str(root.resolve())) == {"release-notes.md": ""}  # not complete
    monkeypatch.setattr(pipeline, "encode_chunks", real)
    report = ingest_path(root, data_settings, embedder=fake_embedder, progress=False)
    assert report.updated == 1 and report.chunks_reused == written
    assert store.count() == report.total_chunks > written
