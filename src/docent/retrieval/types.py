"""Data shapes shared by chunking, the store and the retriever."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


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
