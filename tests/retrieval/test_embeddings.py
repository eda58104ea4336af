"""The real MiniLM embedder: shape, normalisation, padding invariance, similarity order."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow


def test_vectors_are_unit_length_float32_rows(real_embedder):
    vectors = real_embedder.embed(["How do I deploy?", "Guards cap the tool calls."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert real_embedder.embed([]).shape == (0, 384)


def test_padding_in_a_batch_does_not_change_a_vector(real_embedder):
    short = "Limit the length of a query parameter."
    alone = real_embedder.embed([short])[0]
    batched = real_embedder.embed([short, "a much longer neighbour sentence " * 20])[0]
    assert np.allclose(alone, batched, atol=1e-4)


def test_similar_sentences_score_higher_than_unrelated_ones(real_embedder):
    a, b, c = real_embedder.embed([
        "How can I limit the maximum length of a query string parameter?",
        "Use Query with max_length to restrict how long a query parameter may be.",
        "Bananas ripen faster when stored next to apples.",
    ])
    assert float(a @ b) > float(a @ c) + 0.2


def test_token_count_is_not_truncated_and_long_inputs_still_embed(real_embedder):
    long = "tokens " * 600
    assert real_embedder.count_tokens(long) > 600
    assert real_embedder.count_tokens("hello world") == 4  # [CLS] hello world [SEP]
    assert real_embedder.embed([long]).shape == (1, 384)


def test_loading_the_model_writes_nothing_under_the_home_directory(tmp_path):
    """onnxruntime's telemetry kept a device id and an event database under ~/.cache."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env["HOME"] = str(home)
    code = ("from docent.retrieval.embeddings import MiniLMEmbedder; "
            "assert MiniLMEmbedder().embed(['x']).shape == (1, 384)")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert [p for p in home.rglob("*")] == []
