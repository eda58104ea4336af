"""How text becomes keyword terms (`docent.retrieval.bm25.tokenize`)."""

from __future__ import annotations

from docent.retrieval.bm25 import KeywordIndex, tokenize
from docent.retrieval.types import Chunk


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


def test_a_hex_number_is_one_term():
    # Split like a camelCase name, one address made 31 terms ("0", "x", "5", "e", "44"...).
    address = "0x5e44F178E8cF9B2F5409B6f18ce936aB817C5a11"
    assert tokenize(f"MultiCall {address}") == ["multicall", "multi", "call", address.lower()]
    assert tokenize("md5 d41d8cd98f00b204e9800998ecf8427e") == [
        "md5", "md", "5", "d41d8cd98f00b204e9800998ecf8427e"]


def test_a_table_of_addresses_is_found_by_the_name_of_one_row():
    # Five addresses had read as a chunk of 140 terms, and BM25's length normalisation put
    # shorter chunks sharing only common words above it.
    rows = "\n\n".join(
        f"{name}\n\n[0x{i}5e44F178E8cF9B2F5409B6f18ce936aB817C5a1](https://explorer.example.org/"
        f"address/0x{i}5e44F178E8cF9B2F5409B6f18ce936aB817C5a1)"
        for i, name in enumerate(["MultiCallV3", "WTOKEN", "USDC", "WETH", "USDT"]))
    table = Chunk("t", "contracts.md", "Contracts", "Contracts", "", "", rows)
    others = [Chunk(f"o{i}", f"o{i}.md", "Mainnet", "Mainnet", "", "",
                    f"The token address on mainnet is shown in your wallet, page {i}.")
              for i in range(6)]
    hits = KeywordIndex([*others, table]).search("What is the WTOKEN token address on mainnet?", 3)
    assert hits[0][0] is table
