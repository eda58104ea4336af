"""Data shapes shared by chunking, the store and the retriever."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# Per-chunk data worked out from a chunk's text (its answer-unit vectors read from the
# store, its units and terms) is prepared at start-up for up to this many chunks and kept
# for as many: FastAPI's 2,080 chunks take ~1 s and ~45 MB, 4,096 at most ~90 MB.
WARM_CHUNKS = 4096


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a document, with the metadata a citation needs."""

    chunk_id: str  # stable hash of source_file + heading path + text
    source_file: str  # path relative to the ingested root, POSIX separators
    title: str  # the document's title (first H1, else the file stem)
    section_title: str  # heading path, e.g. "Configuration > Guards"
    slug: str  # anchor of the deepest heading, e.g. "guards"
    page_url: str  # deep link when DOCS_BASE_URL is set, else ""
    text: str  # the chunk's markdown body

    def to_dict(self) -> dict[str, str]:
        # Every field is a string: a shallow copy, without `asdict`'s deep copy per call.
        return dict(vars(self))


@dataclass(frozen=True)
class Hit:
    """A chunk returned by a search, with its relevance in 0..1 (higher is better)."""

    chunk: Chunk
    score: float


class Retriever(Protocol):
    """What the agent needs from retrieval; tests pass in-memory fakes."""

    def search(self, query: str, k: int) -> list[Hit]:
        """The best `k` hits for `query`, best first; [] when nothing matches."""
        ...

    def count(self) -> int:
        """Number of chunks indexed."""
        ...
