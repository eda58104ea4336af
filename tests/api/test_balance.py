"""docent.api.balance: a `--workers N` worker holding more than its share of the
connections answers with `Connection: close`; one at or under its share, or alone, does not.
The real processes are driven in tests/api/test_workers.py."""

from __future__ import annotations

import asyncio

import pytest

from docent.api.balance import NOT_LISTENING, Balance, Balanced


@pytest.mark.parametrize(
    ("table", "over"),
    [
        ([8, 2], True),     # share 5
        ([6, 5], False),    # 11 over two workers: a share is 6, rounded up
        ([5, 5], False),
        ([1, 0], False),    # a single connection stays where it is
        ([9, NOT_LISTENING], False),  # the only worker listening keeps them all
        ([4, 1, 1], True),  # share 2
        ([2, 2, 1], False),
    ],
)
def test_over_share(table, over):
    assert Balance(list(table), 0).over_share() is over


def test_counts_follow_listening_and_connections():
    table = [NOT_LISTENING, NOT_LISTENING]
    mine = Balance(table, 1)
    mine.listening()
    assert table == [NOT_LISTENING, 0]
    mine.opened(), mine.opened(), mine.closed()
    assert table == [NOT_LISTENING, 1]
    mine.closed(), mine.closed()
    assert table == [NOT_LISTENING, 0]


async def _respond(scope, receive, send):
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


def _headers(balance: Balance) -> list[tuple[bytes, bytes]]:
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    asyncio.run(Balanced(_respond, balance)({"type": "http"}, receive, send))
    assert sent[1]["body"] == b"ok"
    return sent[0]["headers"]


def test_a_worker_over_its_share_asks_the_client_to_reconnect():
    assert _headers(Balance([8, 2], 0)) == [(b"content-type", b"text/plain"),
                                           (b"connection", b"close")]
    assert _headers(Balance([5, 5], 0)) == [(b"content-type", b"text/plain")]
    assert _headers(Balance([2, 8], 0)) == [(b"content-type", b"text/plain")]


def test_the_worker_counts_as_listening_once_its_app_started():
    table = [NOT_LISTENING, 3]
    messages = iter([{"type": "lifespan.startup"}])
    sent: list[dict] = []

    async def app(scope, receive, send):
        assert table[0] == NOT_LISTENING  # not before the app says it started
        await receive()
        await send({"type": "lifespan.startup.complete"})

    async def receive():
        return next(messages)

    async def send(message):
        sent.append(message)

    asyncio.run(Balanced(app, Balance(table, 0))({"type": "lifespan"}, receive, send))
    assert table == [0, 3]
    assert sent == [{"type": "lifespan.startup.complete"}]
