"""A question's vectors: the whole question's, one leaning to the sentence that asks, and
one leaning to each later ask.

"Our model weights are about 1 GB and load at start-up. If I run 4 workers on one VM,
roughly how much RAM will the app use?": the scene outweighs the question in the whole
question's vector. The answerer ranks statements by the normalised sum of the whole's
vector and the asking part's (`docent.retrieval.sufficiency.asked_part`), and that part's
vector is the mean of its tokens' states in the same model run, so it costs no model time
of its own. Search keeps the whole question's vector: leaning it to the asking part too
cost leads that name the answer and refused an answerable question. Each ask after the
first ("Which REST endpoint do I hit, and how do I authenticate?") gets a vector leaning
to it the same way, by which search adds the best page's section for that ask.
"""

from __future__ import annotations

import numpy as np

from docent.intent import later_asks
from docent.retrieval.embeddings import Embedder
from docent.retrieval.sufficiency import asked_part

QuestionVectors = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]


def question_vectors(embedder: Embedder, text: str) -> QuestionVectors:
    """(the vector of `text`, whitespace-normalised; its vector leaning to the part that
    asks, which is the same vector when no sentence sets the scene first; and one leaning
    to each ask after the first, `docent.intent.later_asks`: "...and how do I
    authenticate?"), all from one model run."""
    text = " ".join(text.split())
    asked = asked_part(text)
    # The asking part is the question's end ("If I run 4 workers..., how much RAM...?").
    spans = [(len(text) - len(asked), len(text))] if asked != text and text.endswith(asked) else []
    asks = [(at, at + len(ask)) for ask in later_asks(text) if (at := text.rfind(ask)) >= 0]
    whole, parts = embedder.embed_spans([text], [spans + asks])
    vector = whole[0]
    # a part past the model's window is a row of zeros: the whole question stands for it
    leaning = [_leaning(vector, part) for part in parts[0]]
    focus = leaning[0] if spans else vector
    return vector, focus, tuple(leaning[len(spans):])


def _leaning(vector: np.ndarray, part: np.ndarray) -> np.ndarray:
    if not part.any():
        return vector
    both = vector + part
    return (both / np.linalg.norm(both)).astype(np.float32)
