"""How text becomes keyword terms (`docent.retrieval.bm25.tokenize`)."""

from __future__ import annotations

from docent.retrieval.bm25 import tokenize


def test_identifiers_yield_their_parts():
    assert tokenize("max_length") == ["max_length", "max", "length"]
    assert tokenize("OAuth2PasswordBearer")[-2:] == ["password", "bearer"]


def test_an_acronyms_plural_is_its_singular_not_two_parts():
    # "LPs" split as camel case gave "l" and "ps", which no passage saying "LP" holds.
    assert tokenize("LPs earn fees") == tokenize("LP earn fees") == ["lp", "earn", "fee"]
    assert tokenize("JWTs APIs NFTs") == ["jwt", "api", "nft"]


def test_what_a_contraction_leaves_of_its_verb_is_no_term():
    # "We're" and "doesn't" gave the terms "re" and "doesn", which weighed in what a
    # question asks about as much as a rare word of the docs.
    assert tokenize("We're sure you'll see it") == ["sure", "see"]
    assert not {"doesn", "isn", "ve"} & set(tokenize("It doesn't, isn't and I've"))


def test_a_word_ending_in_eed_keeps_it():
    # "speed" lost "ed" as a past tense would, and "speeds" kept "speed": the two never met
    assert tokenize("speed speeds") == ["speed", "speed"]
    assert tokenize("exceed exceeded") == ["exceed", "exceed"]
    assert tokenize("configured configure") == ["configur", "configur"]
