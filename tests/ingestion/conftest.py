"""Ingestion tests use the retrieval fixtures: temp data dirs and the fake embedder."""

from tests.retrieval.conftest import data_settings, fake_embedder, store  # noqa: F401
