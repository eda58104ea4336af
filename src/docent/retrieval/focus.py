"""A question's vectors: the whole question's, and one leaning to the sentence that asks.

"Our model weights are about 1 GB and load at start-up. If I run 4 workers on one VM,
roughly how much RAM will the app use?": the scene outweighs the question in the whole
question's vector. The answerer ranks statements by the normalised sum of the whole's
vector and the asking part's (`docent.retrieval.sufficiency.asked_part`), and that part's
vector is the mean of its tokens' states in the same model run, so it costs no model time
of its own. Search keeps the whole question's vector: leaning it to the asking part too
cost leads that name the answer and refused an answerable question.
"""

from __future__ import annotations

import numpy as np

from docent.retrieval.embeddings import Embedder
from docent.retrieval.sufficiency import asked_part


def question_vectors(embedder: Embedder, text: str) -> tuple[np.ndarray, np.ndarray]:
    """(the vector of `text`, whitespace-normalised; its vector leaning to the part that
    asks, which is the same vector when no sentence sets the scene first)."""
    text = " ".join(text.split())
    asked = asked_part(text)
    # The asking part is the question's end ("If I run 4 workers..., how much RAM...?").
    spans = [(len(text) - len(asked), len(text))] if asked != text and text.endswith(asked) else []
    whole, parts = embedder.embed_spans([text], [spans])
    vector = whole[0]
    if not spans or not parts[0][0].any():  # the asking part fell past the model's window
        return vector, vector
    leaning = vector + parts[0][0]
    return vector, (leaning / np.linalg.norm(leaning)).astype(np.float32)
