"""A question's vectors: the whole question's, one leaning to the sentence that asks, and
one leaning to each later ask.

"Our model weights are about 1 GB and load at start-up. If I run 4 workers on one VM,
roughly how much RAM will the app use?": the scene outweighs the question in the whole
question's vector. The answerer ranks statements by the normalised sum of the whole's
vector and the asking part's (`docent.retrieval.sufficiency.asked_part`), and that part's
vector is the mean of its tokens' states in the same model run, so it costs no model time
of its own. The asking part leaves out a scene opening its sentence even when the ask
points back at it ("Setting up an OApp on mainnet - what address do I point it at?").
Search keeps the whole question's vector: leaning it to the asking part too cost leads
that name the answer and refused an answerable question. Each ask after the
first ("Which REST endpoint do I hit, and how do I authenticate?") gets a vector leaning
to it the same way, by which search adds the best page's section for that ask.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from docent.intent import later_asks
from docent.retrieval.embeddings import Embedder, Span
from docent.retrieval.sufficiency import asked_part

QuestionVectors = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]


def question_vectors(embedder: Embedder, text: str) -> QuestionVectors:
    """(the vector of `text`, whitespace-normalised; its vector leaning to the part that
    asks, which is the same vector when no sentence sets the scene first; and one leaning
    to each ask after the first, `docent.intent.later_asks`: "...and how do I
    authenticate?"), all from one model run."""
    return questions_vectors(embedder, [text])[0]


def questions_vectors(embedder: Embedder, texts: Sequence[str]) -> list[QuestionVectors]:
    """`question_vectors` of each text, all from one model run (a batch): a question and
    the texts the refusal checks compare it with cost one run, not one each."""
    texts = [" ".join(text.split()) for text in texts]
    spans = [_spans(text) for text in texts]
    whole, parts = embedder.embed_spans(texts, [focus + asks for focus, asks in spans])
    out = []
    for vector, pooled, (focus, _) in zip(whole, parts, spans, strict=True):
        # a part past the model's window is a row of zeros: the whole question stands for it
        leaning = [_leaning(vector, part) for part in pooled]
        out.append((vector, leaning[0] if focus else vector, tuple(leaning[len(focus):])))
    return out


def _spans(text: str) -> tuple[list[Span], list[Span]]:
    """The span of the part that asks, when a scene comes first (none otherwise), and the
    span of each ask after the first."""
    asked = asked_part(text, keep_pointed_scene=False)
    # The asking part is the question's end ("If I run 4 workers..., how much RAM...?").
    focus = [(len(text) - len(asked), len(text))] if asked != text and text.endswith(asked) else []
    asks = [(at, at + len(ask)) for ask in later_asks(text) if (at := text.rfind(ask)) >= 0]
    return focus, asks


def _leaning(vector: np.ndarray, part: np.ndarray) -> np.ndarray:
    if not part.any():
        return vector
    both = vector + part
    return (both / np.linalg.norm(both)).astype(np.float32)
