"""Retrieval fixtures: temp data dirs, a deterministic fake embedder, the real model once."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from docent.config import Settings, load_settings
from docent.retrieval.embeddings import MiniLMEmbedder
from docent.retrieval.store import DocStore, open_store

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Hashing bag-of-words: texts sharing words are close. Counts what it embeds."""

    name = "fake-bow"
    dim = 64

    def __init__(self) -> None:
        self.embedded = 0

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text)) + 2

    def embed_spans(self, texts, spans):
        """Each span as the substring it covers (the spans cost no embedding of their own)."""
        parts = [self._bow([t[a:b] for a, b in s]) for t, s in zip(texts, spans, strict=True)]
        return self.embed(texts), parts

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return self._bow(texts)

    def _bow(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = hashlib.sha256(word.encode()).digest()
                out[row, h[0] % self.dim] += 1.0 if h[1] % 2 else -1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else 1.0 / np.sqrt(self.dim)
        return out


class RandomEmbedder(FakeEmbedder):
    """A vector per text from its hash: vector search that knows nothing of meaning."""

    name = "fake-random"

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)


def write_docs(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create markdown files under `root` from {relative path: content}."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def data_settings(tmp_path: Path) -> Settings:
    return load_settings(data_dir=tmp_path / "data")


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def store(data_settings: Settings, fake_embedder: FakeEmbedder) -> DocStore:
    return open_store(data_settings, fake_embedder)


@pytest.fixture(scope="session")
def real_embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()
