"""A question's vector leaning to the sentence that asks, read from the search's own model run."""

from __future__ import annotations

import numpy as np

from docent.ingest import ingest_path
from docent.retrieval.focus import question_vectors
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import open_store
from tests.retrieval.conftest import write_docs

SCENE = "Our model weights are about 1 GB and get loaded when the app starts."
ASKED = "If I run 4 worker processes on one VM, roughly how much RAM will the API use?"


def test_a_question_without_a_scene_has_one_vector(fake_embedder):
    whole, leaning, asks = question_vectors(fake_embedder, "How  much RAM does each worker use?")
    assert leaning is whole and asks == () and fake_embedder.embedded == 1


def test_with_a_scene_the_vector_leans_to_the_sentence_that_asks(real_embedder):
    whole, leaning, _ = question_vectors(real_embedder, f"{SCENE} {ASKED}")
    assert abs(float(np.linalg.norm(leaning)) - 1.0) < 1e-5
    answer, scene = real_embedder.embed([
        "Each worker process loads its own copy of the model, so four workers use four times "
        "the memory.",
        "Model weights are loaded when the application starts up.",
    ])
    # Closer to the statement that answers, relative to the one about the scene.
    assert float(leaning @ answer - leaning @ scene) > float(whole @ answer - whole @ scene) + 0.02


def test_the_answerer_reads_the_leaning_vector_from_the_search_run(
    tmp_path, data_settings, fake_embedder
):
    docs = write_docs(tmp_path / "docs", {"workers.md": "# Workers\n\nEach worker loads the "
                                          "model, so RAM grows with workers.\n"})
    ingest_path(docs, data_settings, embedder=fake_embedder, progress=False)
    retriever = HybridRetriever(open_store(data_settings, fake_embedder), fake_embedder,
                                data_settings, max_unknown_shift=2.0)
    question = f"{SCENE} {ASKED}"
    retriever.search(question, 3)
    embedded = fake_embedder.embedded
    whole = retriever.query_vector(question)
    leaning = retriever.focus_vector(question)
    assert fake_embedder.embedded == embedded  # no model run of its own
    assert not np.allclose(whole, leaning)
    assert np.allclose((whole, leaning), question_vectors(fake_embedder, question)[:2])


def test_each_later_ask_has_a_vector_leaning_to_it_from_the_same_run(fake_embedder):
    question = "Which REST endpoint lists balances, and how do I authenticate the request?"
    whole, leaning, asks = question_vectors(fake_embedder, question)
    assert fake_embedder.embedded == 1 and len(asks) == 1
    assert abs(float(np.linalg.norm(asks[0])) - 1.0) < 1e-5
    ask = fake_embedder.embed(["how do I authenticate the request?"])[0]
    # nearer the ask than the whole question is
    assert float(asks[0] @ ask) > float(whole @ ask) + 0.05
