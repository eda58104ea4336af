"""The Chroma collection of record: chunks, their vectors, and which files built them."""

from __future__ import annotations

import base64
import os
import threading
import time
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
UNITS_KEY = "docent_units_version"
FILE_CHUNKS_KEY = "file_chunks"  # per chunk: how many chunks its file has
ORDINAL_KEY = "ordinal"  # per chunk: its place in its file (0, 1, ...)
# The companion collection of answer-unit vectors is named after the chunks' collection.
UNITS_SUFFIX = "-units"
_CHUNK_META = [f.name for f in fields(Chunk) if f.name != "text"]
_PAGE = 2000  # rows per get/upsert call, below Chroma's maximum batch size
UnitVectors = dict[str, np.ndarray]
"""An answer unit's key (`docent.models.unit_vectors.unit_key`) to its vector."""
# Fingerprints written by this process: its own stores share one up-to-date index.
_WRITTEN_HERE: set[str] = set()
# An embedded store's database files: any write by any process changes one of them.
_DB_FILES = ("chroma.sqlite3", "chroma.sqlite3-wal")
# While those files are unchanged, the fingerprint read is skipped for at most this long:
# a file's time moves in steps of a few ms, so two writes in one step could look as one.
_FINGERPRINT_MAX_AGE = 1.0


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
    _drop(client, settings.collection)


def _drop(client: Any, name: str) -> None:
    for each in (name, name + UNITS_SUFFIX):
        try:
            client.delete_collection(each)
        except Exception:  # noqa: BLE001 - absent already is fine; Chroma's error types vary
            pass


def open_store(settings: Settings, embedder: Embedder, client: Any = None) -> DocStore:
    """Open (or create) the collection, refusing one built by another embedding model."""
    if client is not None:
        return DocStore(client, settings.collection, embedder)
    embedded = settings.chroma_url is None
    return DocStore(make_client(settings), settings.collection, embedder,
                    reopen=(lambda: reopen_embedded(settings)) if embedded else None,
                    files=[settings.store_path / f for f in _DB_FILES] if embedded else ())


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
    """Chunks in one Chroma collection; vectors are always computed by us, never by Chroma.

    A companion collection (`<name>-units`) keeps, per chunk, the vectors of its answer
    units (`docent.models.unit_vectors`), packed in its metadata; its vector is the chunk's.
    """

    def __init__(
        self, client: Any, name: str, embedder: Embedder,
        reopen: Callable[[], Any] | None = None, files: Sequence[os.PathLike[str]] = (),
    ) -> None:
        self.client = client
        self.name = name
        self.embedder = embedder
        self._reopen = reopen
        self._files = list(files)  # an embedded store's database files (see `fingerprint`)
        self._lock = threading.Lock()
        self._seen: str | None = None  # the fingerprint this process last read or wrote
        self._read: tuple[tuple[Any, ...], float] | None = None  # files' state and time then
        self._collection = self._open()
        self._units: Any = None  # opened on first use

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
                metadata={**self._base_metadata(), FINGERPRINT_KEY: new_fingerprint()},
                get_or_create=True,
            )
        meta = collection.metadata or {}
        model, dim = meta.get(MODEL_KEY), meta.get(DIM_KEY)
        if model is None and collection.count() == 0:
            fresh = {**self._base_metadata(), FINGERPRINT_KEY: new_fingerprint()}
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
        """Changes whenever an ingestion changed the collection, in any process.

        Reading it from Chroma costs ~0.5 ms, a tenth of a search's own work; an embedded
        store skips the read while its database files are as they were at the last one
        (for at most _FINGERPRINT_MAX_AGE s), since no process wrote anything since.
        """
        files = self.files_state()
        now = time.monotonic()
        last = self._read
        if (last is not None and self._seen is not None and files == last[0]
                and now - last[1] < _FINGERPRINT_MAX_AGE):
            return self._seen
        value = self.read_fingerprint()
        foreign = value != self._seen and value not in _WRITTEN_HERE
        if self._seen is not None and foreign and self._reopen is not None:
            # Another process re-ingested: an embedded client's vector index is stale.
            with self._lock:
                self.client = self._reopen()
                self._units = None
            value = self.read_fingerprint()
        self._seen = value
        self._read = (files, now) if files is not None else None  # as they were before the read
        return value

    def files_state(self) -> tuple[Any, ...] | None:
        """Identity, size and time of an embedded store's database files, which any write
        by any process changes; None for a Chroma server's store."""
        if not self._files:
            return None
        state: list[Any] = []
        for path in self._files:
            try:
                st = os.stat(path)
            except OSError:
                state.append(None)
            else:
                state.append((st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(state)

    def read_fingerprint(self) -> str:
        """The fingerprint as stored now, without reopening anything."""
        return str((self._current().metadata or {}).get(FINGERPRINT_KEY, ""))

    def touch(self, units_version: int | None = None, fingerprint: str | None = None) -> str:
        """Record that the contents changed (and, given `units_version`, that every chunk's
        unit vectors are of that version); returns the new fingerprint (`fingerprint`, made
        by `new_fingerprint`, when given)."""
        value = fingerprint or new_fingerprint()
        meta = {**self._base_metadata(), FINGERPRINT_KEY: value}
        kept = (self._current().metadata or {}).get(UNITS_KEY)
        version = units_version if units_version is not None else kept
        if version is not None:
            meta[UNITS_KEY] = version
        self._current().modify(metadata=meta)
        self._seen = value
        return value

    def reset(self) -> None:
        """Drop every chunk by recreating the collection."""
        _drop(self.client, self.name)
        with self._lock:
            self._collection = self._open()
            self._units = None

    def units_version(self) -> int:
        """The `UNITS_VERSION` the stored unit vectors were made with (0: none stored)."""
        return int((self._current().metadata or {}).get(UNITS_KEY, 0))

    def _units_collection(self, create: bool = True) -> Any:
        """The companion collection; None when it doesn't exist and `create` is off (a
        read never creates it)."""
        if self._units is None:
            name = self.name + UNITS_SUFFIX
            if create:
                self._units = self.client.get_or_create_collection(
                    name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
                )
            else:
                try:
                    self._units = self.client.get_collection(name, embedding_function=None)
                except Exception:  # noqa: BLE001 - "does not exist" has no stable type
                    return None
        return self._units

    # --- writes ---

    def upsert(
        self, chunks: Sequence[Chunk], embeddings: np.ndarray, *, file_hash: str,
        source_root: str, units: Sequence[UnitVectors] | None = None,
        file_chunks: int | None = None, ordinals: Sequence[int] | None = None,
    ) -> None:
        """Write chunks of one file with their vectors, and with each chunk's packed
        unit vectors (`docent.models.unit_vectors.pack`) when given. `file_chunks`, the
        number of chunks the whole file has, lets `files` tell a file written only in part;
        `ordinals`, each chunk's place in its file, let `all_chunks` list it in order."""
        for start in range(0, len(chunks), _PAGE):
            part = chunks[start : start + _PAGE]
            ids = [c.chunk_id for c in part]
            vectors = np.asarray(embeddings[start : start + _PAGE], dtype=np.float32)
            where: dict[str, Any] = {"file_hash": file_hash, "source_root": source_root}
            if file_chunks is not None:
                where[FILE_CHUNKS_KEY] = file_chunks
            places = ordinals[start : start + _PAGE] if ordinals is not None else None
            self._collection.upsert(
                ids=ids,
                embeddings=vectors,
                documents=[c.text for c in part],
                metadatas=[
                    {**{k: getattr(c, k) for k in _CHUNK_META}, **where,
                     **({ORDINAL_KEY: places[j]} if places is not None else {})}
                    for j, c in enumerate(part)
                ],
            )
            if units is not None:
                packed = [pack(u) for u in units[start : start + _PAGE]]
                self._units_collection().upsert(
                    ids=ids,
                    embeddings=vectors,
                    metadatas=[
                        {"source_file": c.source_file, "file_hash": file_hash,
                         "source_root": source_root, "keys": keys, "vectors": blob}
                        for c, (keys, blob) in zip(part, packed, strict=True)
                    ],
                )

    def delete_files(self, source_files: Iterable[str], source_root: str) -> None:
        """Remove every chunk of these files, ingested from `source_root`."""
        files = list(source_files)
        for start in range(0, len(files), 100):
            where = {"$and": [{"source_root": source_root},
                              {"source_file": {"$in": files[start : start + 100]}}]}
            self._collection.delete(where=where)
            self._units_collection().delete(where=where)

    def delete_ids(self, ids: Sequence[str]) -> None:
        """Remove these chunks (and their unit vectors)."""
        for start in range(0, len(ids), _PAGE):
            part = list(ids[start : start + _PAGE])
            self._collection.delete(ids=part)
            self._units_collection().delete(ids=part)

    def keep(
        self, ids: Sequence[str], *, file_hash: str, file_chunks: int,
        ordinals: Sequence[int] | None = None,
    ) -> None:
        """Mark chunks kept from an earlier version of their file as belonging to its
        current content (their text, vector and unit vectors are unchanged), at their
        places in it (`ordinals`) when given."""
        meta: dict[str, Any] = {"file_hash": file_hash, FILE_CHUNKS_KEY: file_chunks}
        for start in range(0, len(ids), _PAGE):
            part = list(ids[start : start + _PAGE])
            metas = ([{**meta, ORDINAL_KEY: o} for o in ordinals[start : start + _PAGE]]
                     if ordinals is not None else [meta] * len(part))
            self._collection.update(ids=part, metadatas=metas)

    # --- reads ---

    def count(self) -> int:
        """Number of chunks in the collection."""
        return int(self._current().count())

    def files(self, source_root: str) -> dict[str, str]:
        """Files ingested from `source_root`, each with the content hash it was ingested at;
        "" for a file whose chunks disagree or are fewer than it had (a run cut short)."""
        hashes: dict[str, set[str]] = {}
        counts: dict[str, int] = {}
        expected: dict[str, int] = {}
        for _, _, meta in self._scan(where={"source_root": source_root}, documents=False):
            name = str(meta["source_file"])
            hashes.setdefault(name, set()).add(str(meta["file_hash"]))
            counts[name] = counts.get(name, 0) + 1
            if FILE_CHUNKS_KEY in meta:  # absent in stores written before it existed
                expected[name] = int(meta[FILE_CHUNKS_KEY])
        return {
            name: next(iter(seen))
            if len(seen) == 1 and expected.get(name, counts[name]) == counts[name] else ""
            for name, seen in hashes.items()
        }

    def file_chunks(self, source_file: str, source_root: str) -> dict[str, Chunk]:
        """The stored chunks of one file, by id, with text."""
        where = {"$and": [{"source_root": source_root}, {"source_file": source_file}]}
        return {i: _to_chunk(doc or "", meta) for i, doc, meta in self._scan(where=where)}

    def with_units(self, ids: Sequence[str]) -> set[str]:
        """Those of `ids` that have stored unit vectors."""
        units = self._units_collection(create=False)
        if units is None or not ids:
            return set()
        found: set[str] = set()
        for start in range(0, len(ids), _PAGE):
            found.update(units.get(ids=list(ids[start : start + _PAGE]), include=[])["ids"])
        return found

    def all_chunks(self) -> list[Chunk]:
        """Every chunk, for building a keyword index from the collection itself: each
        file's chunks together and in the file's order when the store knows it (an
        ingestion that re-embeds part of a changed file appends the new chunks)."""
        return in_file_order([
            (f"{meta.get('source_root', '')}\n{meta.get('source_file', '')}",
             _to_chunk(doc or "", meta), meta.get(ORDINAL_KEY))
            for _, doc, meta in self._scan()
        ])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[Chunk, float]]:
        """The `n` nearest chunks with their cosine similarity, best first."""
        if n <= 0:
            return []
        # No count first: Chroma returns what there is (none for an empty collection).
        res = self._collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=n,
            include=["documents", "metadatas", "distances"],
        )
        return [
            (_to_chunk(doc or "", meta), 1.0 - float(dist))
            for doc, meta, dist in zip(
                res["documents"][0], res["metadatas"][0], res["distances"][0], strict=True
            )
            if meta is not None  # deleted by an ingestion still under way
        ]

    def nearest(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """The ids of the `n` nearest chunks with their cosine similarity, best first: no
        text or metadata read (the caller has them), a fifth of `query`'s cost."""
        if n <= 0:
            return []
        res = self._collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=n,
            include=["distances"],
        )
        pairs = zip(res["ids"][0], res["distances"][0], strict=True)
        return [(i, 1.0 - float(d)) for i, d in pairs]

    def chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (those still in the collection)."""
        if not ids:
            return {}
        res = self._collection.get(ids=list(ids), include=["documents", "metadatas"])
        return {
            i: _to_chunk(doc or "", meta)
            for i, doc, meta in zip(res["ids"], res["documents"], res["metadatas"], strict=True)
            if meta is not None
        }

    def all_vectors(self, limit: int) -> tuple[list[str], np.ndarray] | None:
        """Every chunk's id and stored vector, in the store's order; None when there are
        more than `limit` chunks."""
        if self.count() > limit:
            return None
        ids: list[str] = []
        parts = [np.zeros((0, self.embedder.dim), dtype=np.float32)]
        offset = 0
        while True:
            res = self._collection.get(limit=_PAGE, offset=offset, include=["embeddings"])
            ids += res["ids"]
            rows = np.asarray(res["embeddings"], dtype=np.float32)
            parts.append(rows.reshape(len(res["ids"]), self.embedder.dim))
            if len(res["ids"]) < _PAGE:
                break
            offset += _PAGE
        return ids, np.concatenate(parts)

    def embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by chunk id."""
        if not ids:
            return {}
        res = self._collection.get(ids=list(ids), include=["embeddings"])
        return {
            i: np.asarray(e, dtype=np.float32)
            for i, e in zip(res["ids"], res["embeddings"], strict=True)
        }

    def unit_vectors(self, ids: Sequence[str]) -> dict[str, UnitVectors]:
        """Answer-unit vectors by chunk id, for the chunks that have them."""
        if not ids:
            return {}
        try:
            units = self._units_collection(create=False)
            res = units.get(ids=list(ids), include=["metadatas"]) if units is not None else None
        except Exception:  # noqa: BLE001 - recreated by another process: open it again once
            self._units = None
            units = self._units_collection(create=False)
            res = units.get(ids=list(ids), include=["metadatas"]) if units is not None else None
        if res is None:
            return {}
        return {
            i: unpack(str(meta["keys"]), str(meta["vectors"]), self.embedder.dim)
            for i, meta in zip(res["ids"], res["metadatas"], strict=True)
            if meta and "keys" in meta
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


def pack(vectors: UnitVectors) -> tuple[str, str]:
    """(keys, vectors) as two strings for store metadata: float16, base64."""
    keys = list(vectors)
    matrix = np.stack([vectors[k] for k in keys]).astype(np.float16) if keys else np.zeros(0)
    return ",".join(keys), base64.b64encode(matrix.tobytes()).decode("ascii")


def unpack(keys: str, blob: str, dim: int) -> UnitVectors:
    """The inverse of `pack`, as float32 rows."""
    names = [k for k in keys.split(",") if k]
    if not names:
        return {}
    raw = np.frombuffer(base64.b64decode(blob), dtype=np.float16).astype(np.float32)
    matrix = raw.reshape(len(names), dim)
    return dict(zip(names, matrix, strict=True))


def new_fingerprint() -> str:
    value = uuid.uuid4().hex
    _WRITTEN_HERE.add(value)
    return value


def in_file_order(rows: Sequence[tuple[str, Chunk, Any]]) -> list[Chunk]:
    """The chunks of (file key, chunk, ordinal) rows as they came, except that a file whose
    every chunk has an ordinal has them together, in its order, where its first one came.
    A file written before ordinals were kept stays as stored: the keyword index then tells
    whether that is the file's own order (`docent.retrieval.bm25`)."""
    by_file: dict[str, list[tuple[Chunk, Any]]] = {}
    for key, chunk, ordinal in rows:
        by_file.setdefault(key, []).append((chunk, ordinal))
    out: list[Chunk] = []
    placed: set[str] = set()
    for key, chunk, _ in rows:
        page = by_file[key]
        if not all(isinstance(o, int) for _, o in page):
            out.append(chunk)
        elif key not in placed:
            placed.add(key)
            out += [c for c, _ in sorted(page, key=lambda row: int(row[1]))]
    return out


def _to_chunk(text: str, meta: dict[str, Any]) -> Chunk:
    return Chunk(**{k: str(meta.get(k, "")) for k in _CHUNK_META}, text=text)
