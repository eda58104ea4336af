"""Which network a question asks about, and statements of the other one (docent.models.networks)."""

from __future__ import annotations

import pytest

from docent.models.networks import names_network, network_asked, of_other_network


@pytest.mark.parametrize(("question", "asked"), [
    ("What's the USDC address on Somnia mainnet?", "main"),
    ("whats the forge cmd to deploy to the somnia testnet", "test"),
    ("Which chain ID does the Shannon test net use?", "test"),
    ("Is there a faucet on the devnet?", "test"),
    ("Main-net RPC URL?", "main"),
    # both kinds, or neither: no network in particular
    ("What differs between mainnet and testnet?", None),
    ("What's the WSOMI address?", None),
    # a word that only holds the name is no network
    ("What does the mainnetwork module export?", None),
])
def test_the_network_a_question_names(question, asked):
    assert network_asked(question) == asked


def test_a_statement_of_the_other_network_only():
    assert of_other_network("main", ["USDC/USD — Contract Address: 0xa2", "",
                                     "Somnia Testnet Price Feeds"])
    assert of_other_network("test", ["`forge create --rpc-url https://api.infra.mainnet.somnia.network`"])
    assert not of_other_network("main", ["Mainnet — Address: 0x5D42"])
    # a statement of both networks, or of none, is not of the other one
    assert not of_other_network("main", ["Add Somnia Mainnet and Somnia Testnet to your wallet."])
    assert not of_other_network("test", ["USDC — Address: 0x5D42", "Smart Contracts"])


def test_the_nearest_level_naming_a_network_decides():
    # "Chain ID: 5031" under "Mainnet:", on a page about both networks: the main network's
    levels = ["**Chain ID** : 5031", "Mainnet:", "", "Network Overview (Mainnet / Testnet)"]
    assert of_other_network("test", levels) and not of_other_network("main", levels)
    # the statement's own words come before its heading's
    assert not of_other_network("main", ["Deploy to mainnet with `--network main`.",
                                         "Somnia Testnet"])
    # a heading of both networks, nearest, holds whatever a page title says
    assert not of_other_network("test", ["Chain ID: 5031", "Networks (Mainnet / Testnet)",
                                         "Somnia Mainnet"])


def test_network_names():
    assert names_network("mainnet") and names_network("testnet") and names_network("devnet")
    assert not names_network("usdc") and not names_network("network")
