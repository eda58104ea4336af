"""Ingestion: incremental by content hash, deletions, --reset, bad files, missing path."""

from __future__ import annotations

from pathlib import Path

import pytest

from docent.ingest import IngestError, ingest_path
from docent.retrieval.store import open_store
from tests.retrieval.conftest import write_docs

DOCS = {
    "guide.md": "# Guide\n\n## Install\n\nRun the installer.\n\n## Use\n\nAsk a question.\n",
    "api/chat.md": "# Chat\n\nPOST a message to the chat endpoint.\n",
    "api/notes.markdown": "# Notes\n\nMarkdown with the long suffix.\n",
    "api/ignored.txt": "not markdown",
    ".hidden/secret.md": "# Hidden\n\nnever ingested\n",
}


def _ingest(root, settings, embedder, **kw):
    kw.setdefault("progress", False)
    return ingest_path(root, settings, embedder=embedder, **kw)


def _texts(settings, embedder):
    return {c.source_file: c.text for c in open_store(settings, embedder).all_chunks()}


def test_first_run_adds_every_markdown_file(tmp_path, data_settings, fake_embedder):
    report = _ingest(write_docs(tmp_path / "docs", DOCS), data_settings, fake_embedder)
    assert (report.files_seen, report.added, report.updated, report.removed) == (3, 3, 0, 0)
    assert report.chunks_written == report.total_chunks > 0
    assert set(_texts(data_settings, fake_embedder)) == {
        "guide.md", "api/chat.md", "api/notes.markdown"}
    assert "3 added" in report.summary() and "3 files seen" in report.summary()


def test_one_file_is_counted_as_one(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", {"guide.md": "# Guide\n\nOne short page.\n"})
    summary = _ingest(root, data_settings, fake_embedder).summary()
    assert "1 file seen, 1 added" in summary and "1 chunk written" in summary


def test_second_run_on_unchanged_docs_embeds_nothing(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", DOCS)
    _ingest(root, data_settings, fake_embedder)
    fingerprint = open_store(data_settings, fake_embedder).fingerprint()
    embedded = fake_embedder.embedded
    report = _ingest(root, data_settings, fake_embedder)
    assert (report.unchanged, report.added, report.chunks_written) == (3, 0, 0)
    assert fake_embedder.embedded == embedded
    assert open_store(data_settings, fake_embedder).fingerprint() == fingerprint


def test_changed_file_replaces_all_its_chunks(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", DOCS)
    first = _ingest(root, data_settings, fake_embedder)
    fingerprint = open_store(data_settings, fake_embedder).fingerprint()
    write_docs(root, {"api/chat.md": "# Chat\n\nStream replies over SSE instead.\n"})
    report = _ingest(root, data_settings, fake_embedder)
    assert (report.updated, report.unchanged, report.added) == (1, 2, 0)
    assert _texts(data_settings, fake_embedder)["api/chat.md"] == "Stream replies over SSE instead."
    assert report.total_chunks == first.total_chunks
    assert open_store(data_settings, fake_embedder).fingerprint() != fingerprint


def test_deleted_file_loses_its_chunks(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", DOCS)
    _ingest(root, data_settings, fake_embedder)
    (root / "guide.md").unlink()
    report = _ingest(root, data_settings, fake_embedder)
    assert report.removed == 1
    assert "guide.md" not in _texts(data_settings, fake_embedder)


def test_reset_rebuilds_from_nothing(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", DOCS)
    first = _ingest(root, data_settings, fake_embedder)
    report = _ingest(root, data_settings, fake_embedder, reset=True)
    assert (report.added, report.unchanged) == (3, 0)
    assert report.total_chunks == first.total_chunks


def test_bad_files_are_skipped_with_a_reason_and_the_rest_ingested(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    root = write_docs(tmp_path / "docs", {
        **DOCS,
        "latin1.md": "# Caf\xe9\n\nna\xefve\n".encode("latin-1"),
        "empty.md": "  \n\n",
        "locked.md": "# Locked\n\nsecret\n",
    })
    real_read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        # Permission bits do not stop root, so unreadability is simulated.
        if self.name == "locked.md":
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    (root / "moved.md").symlink_to(tmp_path / "elsewhere.md")  # a link to no file
    report = _ingest(root, data_settings, fake_embedder)
    reasons = dict(report.skipped)
    assert reasons["moved.md"] == (f"a symbolic link to {tmp_path / 'elsewhere.md'}, which "
                                   "does not exist")
    assert "UTF-8" in reasons["latin1.md"]
    assert reasons["empty.md"] == "empty file"
    assert "Permission denied" in reasons["locked.md"]
    assert report.added == 3
    assert set(_texts(data_settings, fake_embedder)) == {
        "guide.md", "api/chat.md", "api/notes.markdown"}
    assert "latin1.md (not UTF-8" in report.summary()


def test_a_file_that_becomes_empty_loses_its_old_chunks(tmp_path, data_settings, fake_embedder):
    root = write_docs(tmp_path / "docs", DOCS)
    _ingest(root, data_settings, fake_embedder)
    write_docs(root, {"guide.md": ""})
    report = _ingest(root, data_settings, fake_embedder)
    assert ("guide.md", "empty file") in report.skipped and report.removed == 1
    assert "guide.md" not in _texts(data_settings, fake_embedder)


def test_missing_path_raises_a_clear_error(tmp_path, data_settings, fake_embedder):
    with pytest.raises(IngestError, match="not found: .*nowhere"):
        _ingest(tmp_path / "nowhere", data_settings, fake_embedder)


def test_a_folder_without_doc_files_is_said_so(tmp_path, data_settings, fake_embedder):
    # A wrong path, or docs in a format docent does not read, stored nothing silently.
    root = write_docs(tmp_path / "notes", {"a.txt": "plain text", "b.pdf": "%PDF"})
    with pytest.raises(IngestError, match=r"no doc files in .*notes: docent ingests \.md, "
                       r".*\.htm files; it holds 2 other files, such as a\.txt$"):
        _ingest(root, data_settings, fake_embedder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(IngestError, match=r"no doc files in .*empty: .*\.htm files$"):
        _ingest(tmp_path / "empty", data_settings, fake_embedder)


def test_a_file_named_alone_in_another_format_says_what_docent_reads(tmp_path, data_settings,
                                                                     fake_embedder):
    notes = write_docs(tmp_path / "in", {"notes.txt": "plain text", "report.pdf": b"%PDF-1.4\n\xe2\xe3"})
    assert _ingest(notes / "notes.txt", data_settings, fake_embedder).added == 1  # as markdown
    report = _ingest(notes / "report.pdf", data_settings, fake_embedder)
    assert report.skipped == [("report.pdf", "not UTF-8 text (invalid byte at offset 9); docent "
                               "reads .md, .markdown, .mdx, .rst, .html or .htm files, so "
                               "convert it to one of them")]


def test_a_folder_emptied_on_purpose_removes_what_it_held(tmp_path, data_settings,
                                                         fake_embedder):
    root = write_docs(tmp_path / "docs", {"a.md": "# A\n\nalpha\n"})
    _ingest(root, data_settings, fake_embedder)
    (root / "a.md").unlink()
    # --reset with a folder of no doc files is a mistake, not a way to empty the index
    with pytest.raises(IngestError, match="no doc files"):
        _ingest(root, data_settings, fake_embedder, reset=True)
    assert open_store(data_settings, fake_embedder).count() == 1
    report = _ingest(root, data_settings, fake_embedder)
    assert (report.files_seen, report.removed, report.total_chunks) == (0, 1, 0)


def test_two_roots_in_one_collection_do_not_remove_each_other(
    tmp_path, data_settings, fake_embedder
):
    _ingest(write_docs(tmp_path / "one", {"a.md": "# A\n\nalpha\n"}), data_settings,
            fake_embedder)
    report = _ingest(write_docs(tmp_path / "two", {"b.md": "# B\n\nbeta\n"}), data_settings,
                     fake_embedder)
    assert report.removed == 0
    assert set(_texts(data_settings, fake_embedder)) == {"a.md", "b.md"}
