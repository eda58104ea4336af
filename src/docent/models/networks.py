"""Which network of a blockchain a question asks about, and statements of the other one.

Blockchain docs give most things twice, once for the main network and once for a test
network: an address, an RPC URL, a chain id, a faucet. A question naming one ("the USDC
address on mainnet", "deploy to the testnet") is answered wrongly by the other's value,
however well its words match: a testnet price feed's address for a mainnet contract costs
the user real funds. Networks are told apart by their common names (mainnet; testnet,
devnet), in a statement's own text, the line introducing its list ("Mainnet:") and the
headings above it ("Somnia Testnet Price Feeds"), URLs included
(`api.infra.mainnet.somnia.network`); the nearest of these naming one decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

Network = Literal["main", "test"]

_MAIN = re.compile(r"\bmain[\s-]?nets?\b", re.I)
_TEST = re.compile(r"\b(?:test|dev)[\s-]?nets?\b", re.I)


def network_asked(question: str) -> Network | None:
    """The network a question names, when it names one kind only."""
    main, test = bool(_MAIN.search(question)), bool(_TEST.search(question))
    if main == test:
        return None
    return "main" if main else "test"


def of_other_network(asked: Network, levels: Iterable[str]) -> bool:
    """Whether the nearest of `levels` that names a network names only the other kind than
    `asked`. Levels run from the statement out: its own text, what introduces it, the
    headings above it. The nearest decides, so "Chain ID: 5031" under "Mainnet:" is the
    main network's, though the page is "Network Overview (Mainnet / Testnet)"."""
    for text in levels:
        if "net" not in text.lower():
            continue  # (most levels: every name of a network holds it)
        main, test = bool(_MAIN.search(text)), bool(_TEST.search(text))
        if main or test:
            return (test and not main) if asked == "main" else (main and not test)
    return False


def names_network(word: str) -> bool:
    """Whether `word` is a kind of network's name ("mainnet", "testnet", "devnet")."""
    return bool(_MAIN.fullmatch(word) or _TEST.fullmatch(word))
