"""The Chroma collection of record: chunks, their vectors, and which files built them."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from docent.config import Settings
from docent.retrieval.embeddings import Embedder
from docent.retrieval.types import Chunk

MODEL_KEY = "docent_embedding_model"
DIM_KEY = "docent_embedding_dim"
FINGERPRINT_KEY = "docent_fingerprint"
_CHUNK_META = [f.name for f in fields(Chunk) if f.name != "text"]
_PAGE = 2000  # rows per get/upsert call, below Chroma's maximum batch size
# Fingerprints written by this process: its own stores share one up-to-date index.
_WRITTEN_HERE: set[str] = set()


class EmbeddingMismatchError(RuntimeError):
    """The collection was built by another embedding model than the one in use."""


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as read back from the store, with its ingestion metadata."""

    chunk: Chunk
    file_hash: str
    source_root: str


def make_client(settings: Settings) -> Any:
    """An HTTP client when `chroma_url` is set, else the embedded store under `data_dir`."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    # Telemetry would phone home; docent never touches the network on its own.
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_url is not None:
        url = settings.chroma_url
        return chromadb.HttpClient(
            host=url.host or "localhost",
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=chroma_settings,
        )
    settings.store_path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.store_path), settings=chroma_settings)


def drop_collection(settings: Settings, client: Any = None) -> None:
    """Delete the collection whatever built it (what `--reset` needs after a model change)."""
    client = client if client is not None else make_client(settings)
    try:
        client.delete_collection(settings.collection)
    except Exception:  # noqa: BLE001 - absent already is fine; Chroma's error types vary
        pass


def open_store(settings: Settings, embedder: Embedder, client: Any = None) -> DocStore:
    """Open (or create) the collection, refusing one built by another embedding model."""
    if client is not None:
        return DocStore(client, settings.collection, embedder)
    embedded = settings.chroma_url is None
    return DocStore(make_client(settings), settings.collection, embedder,
                    reopen=(lambda: reopen_embedded(settings)) if embedded else None)


def reopen_embedded(settings: Settings) -> Any:
    """A new embedded client under `data_dir` that reads the store afresh from disk.

    Chroma shares one in-memory system (and its vector index) among the clients of a
    path, so a plain new client would keep the stale index another process's ingestion
    left behind; dropping the shared system makes the next client load the current one.
    The old system is left to the garbage collector, not stopped: a search may still be
    using it, and a reader has nothing to save.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    with SharedSystemClient._refcount_lock:
        SharedSystemClient._identifier_to_system.pop(str(settings.store_path), None)
    return make_client(settings)


class DocStore:
    """Chunks in one Chroma collection; vectors are always computed by us, never by Chroma."""

    def __init__(
        self, client: Any, name: str, embedder: Embedder,
        reopen: Callable[[], Any] | None = None,
    ) -> None:
        self.client = client
        self.name = name
        self.embedder = embedder
        self._reopen = reopen
        self._lock = threading.Lock()
        self._seen: str | None = None  # the fingerprint this process last read or wrote
        self._collection = self._open()

    # --- collection lifecycle ---

    def _base_metadata(self) -> dict[str, Any]:
        return {MODEL_KEY: self.embedder.name, DIM_KEY: self.embedder.dim}

    def _open(self) -> Any:
        # get first: get_or_create would overwrite an existing collection's metadata.
        try:
            collection = self.client.get_collection(self.name, embedding_function=None)
        except Exception:  # noqa: BLE001 - "does not exist" has no stable type across versions
            collection = self.client.create_collection(
                self.name,
                embedding_function=None,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={**self._base_metadata(), FINGERPRINT_KEY: _new_fingerprint()},
                get_or_create=True,
            )
        meta = collection.metadata or {}
        model, dim = meta.get(MODEL_KEY), meta.get(DIM_KEY)
        if model is None and collection.count() == 0:
            fresh = {**self._base_metadata(), FINGERPRINT_KEY: _new_fingerprint()}
            collection.modify(metadata=fresh)
        elif model != self.embedder.name or dim != self.embedder.dim:
            raise EmbeddingMismatchError(
                f"collection {self.name!r} was built with embedding model "
                f"{model or 'unknown'!s} (dim {dim}), but this process uses "
                f"{self.embedder.name} (dim {self.embedder.dim}); "
                "re-ingest with --reset to rebuild it"
            )
        return collection

    def _current(self) -> Any:
        # Re-read so metadata written and collections recreated by other processes show.
        collection = self.client.get_collection(self.name, embedding_function=None)
        with self._lock:
            self._collection = collection
        return collection

    def fingerprint(self) -> str:
        """Changes whenever an ingestion changed the collection, in any process."""
        value = self._read_fingerprint()
        foreign = value != self._seen and value not in _WRITTEN_HERE
        if self._seen is not None and foreign and self._reopen is not None:
            # Another process re-ingested: an embedded client's vector index is stale.
            with self._lock:
                self.client = self._reopen()
            value = self._read_fingerprint()
        self._seen = value
        return value

    def _read_fingerprint(self) -> str:
        return str((self._current().metadata or {}).get(FINGERPRINT_KEY, ""))

    def touch(self) -> str:
        """Record that the contents changed; returns the new fingerprint."""
        value = _new_fingerprint()
        self._current().modify(metadata={**self._base_metadata(), FINGERPRINT_KEY: value})
        self._seen = value
        return value

    def reset(self) -> None:
        """Drop every chunk by recreating the collection."""
        try:
            self.client.delete_collection(self.name)
        except Exception:  # noqa: BLE001 - absent already is fine; Chroma's error types vary
            pass
        with self._lock:
            self._collection = self._open()

    # --- writes ---

    def upsert(
        self, chunks: Sequence[Chunk], embeddings: np.ndarray, *, file_hash: str, source_root: str
    ) -> None:
        """Write the chunks of one file with their vectors."""
        for start in range(0, len(chunks), _PAGE):
            part = chunks[start : start + _PAGE]
            self._collection.upsert(
                ids=[c.chunk_id for c in part],
                embeddings=np.asarray(embeddings[start : start + _PAGE], dtype=np.float32),
                documents=[c.text for c in part],
                metadatas=[
                    {**{k: getattr(c, k) for k in _CHUNK_META},
                     "file_hash": file_hash, "source_root": source_root}
                    for c in part
                ],
            )

    def delete_files(self, source_files: Iterable[str], source_root: str) -> None:
        """Remove every chunk of these files, ingested from `source_root`."""
        files = list(source_files)
        for start in range(0, len(files), 100):
            self._collection.delete(
                where={"$and": [{"source_root": source_root},
                                {"source_file": {"$in": files[start : start + 100]}}]}
            )

    # --- reads ---

    def count(self) -> int:
        """Number of chunks in the collection."""
        return int(self._current().count())

    def files(self, source_root: str) -> dict[str, str]:
        """Files ingested from `source_root`, each with the content hash it was ingested at."""
        out: dict[str, str] = {}
        for _, _, meta in self._scan(where={"source_root": source_root}, documents=False):
            out[str(meta["source_file"])] = str(meta["file_hash"])
        return out

    def all_chunks(self) -> list[Chunk]:
        """Every chunk, for building a keyword index from the collection itself."""
        return [_to_chunk(doc or "", meta) for _, doc, meta in self._scan()]

    def query(self, vector: np.ndarray, n: int) -> list[tuple[Chunk, float]]:
        """The `n` nearest chunks with their cosine similarity, best first."""
        total = self._collection.count()
        if total == 0 or n <= 0:
            return []
        res = self._collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=min(n, total),
            include=["documents", "metadatas", "distances"],
        )
        return [
            (_to_chunk(doc or "", meta), 1.0 - float(dist))
            for doc, meta, dist in zip(
                res["documents"][0], res["metadatas"][0], res["distances"][0], strict=True
            )
            if meta is not None  # deleted by an ingestion still under way
        ]

    def embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by chunk id."""
        if not ids:
            return {}
        res = self._collection.get(ids=list(ids), include=["embeddings"])
        return {
            i: np.asarray(e, dtype=np.float32)
            for i, e in zip(res["ids"], res["embeddings"], strict=True)
        }

    def _scan(
        self, where: dict[str, Any] | None = None, documents: bool = True
    ) -> Iterable[tuple[str, str | None, dict[str, Any]]]:
        include = ["metadatas", "documents"] if documents else ["metadatas"]
        offset = 0
        while True:
            res = self._collection.get(where=where, limit=_PAGE, offset=offset, include=include)
            ids = res["ids"]
            docs = res["documents"] if documents else [None] * len(ids)
            yield from zip(ids, docs, res["metadatas"], strict=True)
            if len(ids) < _PAGE:
                return
            offset += _PAGE


def _new_fingerprint() -> str:
    value = uuid.uuid4().hex
    _WRITTEN_HERE.add(value)
    return value


def _to_chunk(text: str, meta: dict[str, Any]) -> Chunk:
    return Chunk(**{k: str(meta.get(k, "")) for k in _CHUNK_META}, text=text)
