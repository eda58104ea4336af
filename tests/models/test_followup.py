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
    "Which error codes mean it is worth sending the same request again?",
    "Is it a good idea to run ingestion while the server is answering?",
    "How can I list the questions users ask that my docs miss?",
    "Why do I get the chat page for paths that don't exist?",
    "How do I plug in a model that streams tool calls?",
    'Why does the refusal say "the docs do not cover it"?',
    "What's the best way to load settings from environment variables?",
    # a clause before the asking one names it ("Before I ..., where ...?")
    "Before I put the chat widget on our site, where can I try it out?",
    "If I run two replicas behind a proxy, do they share their rate limits?",
    # a long question naming its thing itself ("a large model ... unload it")
    "Where do I put code that loads a large model when the server starts and unloads it"
    " when it stops?",
    # "instead" or "afterwards" of its own first clause; "such as" points at nothing
    "What command runs my app locally with auto-reload, and what should I use in production"
    " instead?",
    "I impersonate the admin on my fork. How do I turn the impersonation off afterwards?",
    "Which tools such as Docker can I use?",
    # "that" before a noun the question named already points at its own words
    "How can I leave out of the response every field whose value equals the default, even"
    " when that value was set explicitly?",
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
    "Is it worth retrying?",  # retrying what: the conversation's thing
    "Is it worth it?",
    "Is it a good idea?",
    # a phrase, not a clause, comes first
    "Inside the endpoint function, how do I read the plain value out of it?",
    "Besides deploying with Docker, can I run it as a service?",  # Docker is not "it"
    # "such a ...", or a question going on from the answer before
    "How do I reject the connection from inside such a dependency?",
    "So what happens to the part that doesn't go to validators?",
    "What do I need to set up for write calls then?",
    "What do the docs URLs respond with afterwards?",
    "Can I use Redis instead?",
    # "that" opening a clause after a conjunction
    "Once that limit is reached, which turn gets dropped?",
    "If that fails, what do I do?",
    # a long question whose named thing cannot be what "them" stands for
    "Our team is large and people keep typing them wrong, so how do I keep them the same?",
])
def test_a_follow_up_leans_on_the_question_before(question):
    assert condense_query(question, EARLIER) != question


def test_the_pronoun_replaced_is_the_one_pointing_back():
    # "does it cost to" points at nothing: the "it" after it is the one to replace
    assert condense_query("How much does it cost to keep a value in it?", EARLIER) == (
        "How much does it cost to keep a value in the answer cache?")
