"""Leaving an embedded store that its readers open without writing to it.

Chroma (1.5) writes an embedded collection's vector index (HNSW) to disk, with the
bookkeeping that says how far it got, only after `sync_threshold` (default 1000) new records.
Below that, nothing of it is saved: every process that opens the store (`docent ask`,
`docent serve`) replays the collection's whole log into a fresh index, re-creating the index
files as it goes, and the log is never pruned. So a read path wrote, and an ingestion of
fewer than 1000 chunks was never settled. After an ingestion changed anything, docent makes
Chroma save the index once: the threshold is lowered on a private client that then loads
the collection (its replay saves it), and put back.
"""

from __future__ import annotations

import warnings
from typing import Any

from docent.config import Settings
from docent.retrieval.store import UNITS_SUFFIX


def persist_vector_index(settings: Settings) -> None:
    """Save the embedded collection's vector index and its log position to disk now."""
    from chromadb.api.shared_system_client import SharedSystemClient

    path = str(settings.store_path)
    # A private Chroma system, so the index is loaded afresh under the lowered threshold;
    # the process's own shared system (the ingestion's) is put back afterwards.
    with SharedSystemClient._refcount_lock:
        shared = SharedSystemClient._identifier_to_system.pop(path, None)
    try:
        with warnings.catch_warnings():
            # Chroma reads its own configuration back and calls "no embedding function"
            # (docent embeds itself) a legacy configuration; there is nothing to act on.
            warnings.simplefilter("ignore", DeprecationWarning)
            for name in (settings.collection, settings.collection + UNITS_SUFFIX):
                _save_index(settings, name)
    finally:
        with SharedSystemClient._refcount_lock:
            if shared is None:
                SharedSystemClient._identifier_to_system.pop(path, None)
            else:
                SharedSystemClient._identifier_to_system[path] = shared


def _save_index(settings: Settings, name: str) -> None:
    from docent.retrieval.store import make_client

    try:
        collection = make_client(settings).get_collection(name, embedding_function=None)
    except Exception:  # noqa: BLE001 - no such collection (no unit vectors): nothing to save
        return
    hnsw: dict[str, Any] = dict((collection.configuration_json or {}).get("hnsw") or {})
    restore = {"sync_threshold": hnsw.get("sync_threshold", 1000),
               "batch_size": hnsw.get("batch_size", 100)}
    collection.modify(configuration={"hnsw": {"sync_threshold": 1, "batch_size": 1}})
    try:
        collection.count()  # loads the index: the replay of the log saves it
    finally:
        collection.modify(configuration={"hnsw": restore})

