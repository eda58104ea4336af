"""The embedding queue: chunks of many files embedded together, sorted by length, in slices."""

from __future__ import annotations

from docent.ingest import ingest_path
from docent.retrieval.chunking import embedding_text
from tests.retrieval.conftest import write_docs


class RecordingEmbedder:
    """The fake embedder, recording each call's texts."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.calls: list[list[str]] = []

    def count_tokens(self, text):
        return self.inner.count_tokens(text)

    def embed(self, texts):
        return self.inner.embed(texts)

    def embed_spans(self, texts, spans):
        self.calls.append(list(texts))
        return self.inner.embed_spans(texts, spans)


def test_chunks_of_many_files_are_embedded_together_shortest_first(
    tmp_path, data_settings, fake_embedder
):
    docs = {f"page{n}.md": f"# Page {n}\n\n" + "word " * (5 + 37 * (n % 4)) + "\n" for n in range(12)}
    root = write_docs(tmp_path / "docs", docs)
    embedder = RecordingEmbedder(fake_embedder)
    ingest_path(root, data_settings, embedder=embedder, progress=False)
    assert len(embedder.calls) == 1  # 12 chunks: one slice, not one call per file
    lengths = [len(t) for t in embedder.calls[0]]
    assert lengths == sorted(lengths)
    assert {t.split("\n")[0] for t in embedder.calls[0]} == {f"Page {n}" for n in range(12)}


def test_a_window_is_embedded_in_slices_and_every_chunk_written_once(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    from docent.ingestion import pipeline
    from docent.retrieval.store import open_store

    monkeypatch.setattr(pipeline, "WINDOW", 10)
    monkeypatch.setattr(pipeline, "SLICE", 4)
    docs = {f"page{n}.md": f"# Page {n}\n\nText of page {n}.\n" for n in range(23)}
    root = write_docs(tmp_path / "docs", docs)
    embedder = RecordingEmbedder(fake_embedder)
    report = ingest_path(root, data_settings, embedder=embedder, progress=False)
    assert [len(c) for c in embedder.calls] == [4, 4, 2, 4, 4, 2, 3]
    stored = open_store(data_settings, fake_embedder).all_chunks()
    assert report.chunks_written == len(stored) == 23
    assert sorted(embedding_text(c) for c in stored) == sorted(t for c in embedder.calls for t in c)


def test_slices_are_embedded_side_by_side_by_ingest_threads_runs(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    import threading

    from docent.ingestion import pipeline
    from docent.retrieval.store import open_store

    monkeypatch.setattr(pipeline, "WINDOW", 8)
    monkeypatch.setattr(pipeline, "SLICE", 4)
    both = threading.Barrier(2, timeout=10)  # passes only when two runs are under way at once

    class MeetingEmbedder(RecordingEmbedder):
        def embed_spans(self, texts, spans):
            both.wait()
            return super().embed_spans(texts, spans)

    docs = {f"page{n}.md": f"# Page {n}\n\nText of page {n}.\n" for n in range(16)}
    root = write_docs(tmp_path / "docs", docs)
    embedder = MeetingEmbedder(fake_embedder)
    settings = data_settings.model_copy(update={"ingest_threads": 2})
    report = ingest_path(root, settings, embedder=embedder, progress=False)
    assert [len(c) for c in embedder.calls] == [4, 4, 4, 4]
    stored = open_store(settings, fake_embedder)
    assert report.chunks_written == stored.count() == 16
    # Each chunk got its own vector, not a neighbour slice's.
    for chunk in stored.all_chunks():
        [vector] = stored.embeddings([chunk.chunk_id]).values()
        assert float(vector @ fake_embedder.embed([embedding_text(chunk)])[0]) > 0.99
