"""Keeping `docent serve --workers N`'s kept-alive connections spread evenly over the workers.

Each worker listens on a socket of its own (docent.api.workers), and the kernel gives each
new connection to one of them by a hash of its addresses: ten connections fall 8 and 2 as
often as 5 and 5, and a kept-alive connection stays where it fell. Ten clients asking
without pause then wait on the worker holding eight while the other one idles.

So the workers share one table, a count per worker of the connections it holds (-1 while it
is not listening). A worker holding more than its share (the total over the listening
workers, rounded up) answers with `Connection: close`; the client opens a new connection,
which the kernel hashes afresh, and the workers converge to even shares. A worker at or
under its share keeps its connections open: one worker alone, or counts already even, close
nothing.

    parent: table = [-1] * N ── worker i: listening → table[i] = 0
                                 connection opened / lost → table[i] += 1 / -= 1
                                 response starts: table[i] > share → Connection: close
            worker i died → table[i] = -1, until its replacement listens
"""

from __future__ import annotations

from collections.abc import MutableSequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NOT_LISTENING = -1
_CLOSE = (b"connection", b"close")


class Balance:
    """One worker's view of the shared table (a `multiprocessing` RawArray of ints, or any
    list in tests). Only worker `index` writes its own slot, from its event loop."""

    def __init__(self, table: MutableSequence[int], index: int) -> None:
        self.table = table
        self.index = index

    def listening(self) -> None:
        self.table[self.index] = 0

    def opened(self) -> None:
        self.table[self.index] = max(self.table[self.index], 0) + 1

    def closed(self) -> None:
        self.table[self.index] = max(self.table[self.index] - 1, 0)

    def over_share(self) -> bool:
        """Whether this worker holds more connections than its share of all of them."""
        counts = [n for n in self.table[:] if n != NOT_LISTENING]
        mine = self.table[self.index]
        if mine <= 1 or len(counts) < 2:
            return False
        return mine > -(-sum(counts) // len(counts))


class Balanced:
    """ASGI wrapper: marks the app's listening in `balance` once its start-up completed,
    and answers with `Connection: close` while this worker holds more than its share."""

    def __init__(self, app: ASGIApp, balance: Balance) -> None:
        self.app = app
        self.balance = balance

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        balance = self.balance
        if scope["type"] == "lifespan":
            async def started(message: Message) -> None:
                if message["type"] == "lifespan.startup.complete":
                    balance.listening()  # uvicorn listens right after
                await send(message)

            await self.app(scope, receive, started)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_balanced(message: Message) -> None:
            if message["type"] == "http.response.start" and balance.over_share():
                headers = list(message.get("headers", []))
                if _CLOSE not in headers:
                    message = {**message, "headers": [*headers, _CLOSE]}
            await send(message)

        await self.app(scope, receive, send_balanced)
