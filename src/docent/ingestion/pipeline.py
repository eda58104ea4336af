"""Embedding across files: chunks from many files in length-sorted batches, written as they go.

Batches of one file's chunks were padded to their longest chunk (28% of the compute on the
FastAPI docs went to padding) and a big file was embedded, and held, whole. Here chunks wait
in a window of up to `window` chunks from any number of files; a full window is sorted by
length and embedded in slices (each slice in the embedder's own small batches), then written
per file. Memory is the window's, whatever the size of a file; a file is finished (the
chunks its old version had and the new one lacks are deleted, the chunks it kept marked as
current) once every new chunk of it is written.

Slices are embedded `parallel` at a time, each by one model run on one onnxruntime
thread: small batches leave little for one run to share between threads, so on two cores
two runs side by side embed ~15% more per second than one run on two threads.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from docent.models.unit_vectors import encode_chunks
from docent.retrieval.chunking import embedding_text
from docent.retrieval.embeddings import Embedder
from docent.retrieval.store import DocStore, UnitVectors
from docent.retrieval.types import Chunk

WINDOW = 512  # chunks sorted together; bigger windows pad less and hold more
SLICE = 32  # chunks per embedding call: how often progress moves


@dataclass
class FileWork:
    """What one changed file needs: its chunks to embed, and what to do once they're written."""

    rel: str
    digest: str
    n_chunks: int  # chunks of the file's new version
    fresh: list[Chunk]  # to embed
    kept: list[str] = field(default_factory=list)  # stored chunk ids reused as they are
    stale: list[str] = field(default_factory=list)  # stored chunk ids to delete at the end
    pending: int = 0  # fresh chunks not written yet
    place: dict[str, int] = field(default_factory=dict)  # each chunk id's place in the file


class EmbeddingQueue:
    """Queue files' chunks; they are embedded and written in windows; `close` flushes the rest."""

    def __init__(
        self, store: DocStore, embedder: Embedder, source_root: str, *,
        on_embedded: Callable[[int], None] = lambda n: None,
        on_finished: Callable[[FileWork], None] = lambda work: None,
        window: int | None = None, slice_size: int | None = None, parallel: int = 1,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.source_root = source_root
        self.window = window or WINDOW
        self.slice_size = slice_size or SLICE
        self._on_embedded = on_embedded
        self._on_finished = on_finished
        self._queue: list[tuple[FileWork, Chunk]] = []
        self._pool = ThreadPoolExecutor(parallel, "docent-embed") if parallel > 1 else None

    def add(self, work: FileWork) -> None:
        """Queue a file's fresh chunks; a file with none is finished at once."""
        work.pending = len(work.fresh)
        if not work.fresh:
            self._finish(work)
            return
        for chunk in work.fresh:
            self._queue.append((work, chunk))
            if len(self._queue) >= self.window:
                self._flush()
        work.fresh = []  # the queue holds them now; a big file's text is freed as it goes

    def close(self) -> None:
        """Embed and write whatever is still queued."""
        if self._queue:
            self._flush()

    def shutdown(self) -> None:
        """Stop the embedding threads (after `close`, or when the ingestion failed)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def _flush(self) -> None:
        items, self._queue = self._queue, []
        texts = [embedding_text(chunk) for _, chunk in items]
        order = sorted(range(len(items)), key=lambda i: len(texts[i]))
        vectors = np.zeros((len(items), self.embedder.dim), dtype=np.float32)
        units: list[UnitVectors] = [{} for _ in items]
        parts = [order[start : start + self.slice_size]
                 for start in range(0, len(order), self.slice_size)]

        def run(part: list[int]) -> tuple[np.ndarray, list[UnitVectors]]:
            return encode_chunks(self.embedder, [items[i][1] for i in part])

        done = self._pool.map(run, parts) if self._pool is not None else map(run, parts)
        for part, (part_vectors, part_units) in zip(parts, done, strict=True):
            vectors[part] = part_vectors
            for i, table in zip(part, part_units, strict=True):
                units[i] = table
            self._on_embedded(len(part))
        self._write(items, vectors, units)

    def _write(
        self, items: list[tuple[FileWork, Chunk]], vectors: np.ndarray,
        units: list[UnitVectors],
    ) -> None:
        by_file: dict[int, list[int]] = {}
        for i, (work, _) in enumerate(items):
            by_file.setdefault(id(work), []).append(i)
        for rows in by_file.values():
            work = items[rows[0]][0]
            chunks = [items[i][1] for i in rows]
            self.store.upsert(
                chunks, vectors[rows], file_hash=work.digest,
                source_root=self.source_root, units=[units[i] for i in rows],
                file_chunks=work.n_chunks, ordinals=_places(work, chunks),
            )
            work.pending -= len(rows)
            if work.pending == 0:
                self._finish(work)

    def _finish(self, work: FileWork) -> None:
        if work.stale:
            self.store.delete_ids(work.stale)
        if work.kept:
            self.store.keep(work.kept, file_hash=work.digest, file_chunks=work.n_chunks,
                            ordinals=[work.place[i] for i in work.kept] if work.place else None)
        self._on_finished(work)


def _places(work: FileWork, chunks: list[Chunk]) -> list[int] | None:
    """The chunks' places in their file, when the work knows them."""
    return [work.place[c.chunk_id] for c in chunks] if work.place else None
