"""The embedded store recovers by itself (`retrieval/recovering.py`): a missing database is
reported, not recreated; a failed reopen is retried at most once a second."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

import docent.retrieval.store as store_module
from docent.ingest import ingest_path
from docent.retrieval.recovering import (
    RecoveringRetriever,
    StoreMissingError,
    StoreUnavailableError,
)
from tests.retrieval.conftest import write_docs


@pytest.fixture
def recovering(tmp_path, data_settings, fake_embedder):
    docs = write_docs(tmp_path / "docs", {"a.md": "# Alpha\n\nAlpha pages explain alpha.\n"})
    ingest_path(docs, data_settings, embedder=fake_embedder, progress=False)
    now = [0.0]
    return RecoveringRetriever(data_settings, fake_embedder, clock=lambda: now[0]), now


def test_a_missing_database_is_reported_and_not_created_again(recovering, data_settings):
    retriever, _ = recovering
    assert retriever.count() == 1
    shutil.rmtree(data_settings.data_dir)
    with pytest.raises(StoreMissingError, match="missing"):
        retriever.count()
    with pytest.raises(StoreMissingError):
        retriever.search("alpha", 3)
    assert not data_settings.data_dir.exists()


def test_a_failing_reopen_is_tried_again_at_most_once_a_second(recovering, data_settings,
                                                                 monkeypatch):
    retriever, now = recovering
    database = data_settings.store_path / "chroma.sqlite3"
    with sqlite3.connect(database) as db:
        db.execute("ALTER TABLE collections RENAME TO collections_gone")
    with pytest.raises(Exception):  # noqa: B017 - whatever Chroma raises: "no such table"
        retriever.count()
    attempts = []
    real = store_module.reopen_embedded
    monkeypatch.setattr(store_module, "reopen_embedded",
                        lambda s: attempts.append(now[0]) or real(s))
    with pytest.raises(Exception):  # noqa: B017 - the reopen itself fails
        retriever.count()
    now[0] += 0.5
    with pytest.raises(StoreUnavailableError, match="just now"):
        retriever.count()
    assert attempts == [0.0]  # not tried again within the second
    with sqlite3.connect(database) as db:
        db.execute("ALTER TABLE collections_gone RENAME TO collections")
    now[0] += 0.6
    assert retriever.count() == 1
    assert attempts == [0.0, 1.1]
