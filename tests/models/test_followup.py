"""A follow-up read in its conversation (`docent.models.followup`)."""

from __future__ import annotations

import pytest

from docent.models.followup import condense_query

EARLIER = ["What is the answer cache?"]


@pytest.mark.parametrize("question", [
    # what the pointer stands for is named in the question itself
    "What is the retriever cache and how do I clear it?",
    "My docs live in a private Git repo. How do I ingest them?",
    "I need an API key for Gemini - where do I put it?",
    "How do I close a Session once I'm done with it?",
    "Which version of Chroma does docent need, and where do I set its path?",
    "Which files does ingestion skip, and can I change them?",
    # no pointer at all, as English uses these words in a question of its own
    "Is there a setting that limits tool calls per run?",
    "How much does it cost to run docent with Gemini?",
    "Is it possible to run docent without Docker?",
    "How do I start docent with two workers on one machine?",
    "During tests, how do I swap the model for a fake one?",
])
def test_a_question_of_its_own_is_asked_as_it_is(question):
    assert condense_query(question, EARLIER) == question


@pytest.mark.parametrize("question", [
    "What's the error code in that response?",
    "Which one is faster?",
    "How much memory does that use per worker process?",
    "Which HTTP header does it send?",
    "Can I turn it off for one route?",
    "Can I deploy my app with it?",
    "When would I use `SessionStore` instead of it?",
    "Is there an equivalent for streams?",
    "How big can they get?",
    "Sorry, I meant: how do I turn it off?",  # "I" names nothing
    "What happens then, and how do I stop it?",  # nor "What happens"
])
def test_a_follow_up_leans_on_the_question_before(question):
    assert condense_query(question, EARLIER) != question


def test_the_pronoun_replaced_is_the_one_pointing_back():
    # "does it cost to" points at nothing: the "it" after it is the one to replace
    assert condense_query("How much does it cost to keep a value in it?", EARLIER) == (
        "How much does it cost to keep a value in the answer cache?")
