"""Why the in-memory rate limit keeps its own window: CPU per request with many clients live.

    .venv/bin/python bench/ratelimit_memory.py [--keys 1000,10000,50000] [--requests 400]

For each key count, in a fresh process: fill the per-client window with that many client
addresses, then time (CPU, this process's threads included) `--requests` checks-and-counts
arriving 5 ms apart, for `limits`' moving window on its asyncio in-memory storage and for
docent's `SlidingWindow` (`src/docent/api/ratelimit.py`). `limits`' memory storage starts a
sweep of every key on each hit (one thread hop per key); the hand-written window drops idle
keys from its front. Not part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(kind: str, keys: int, requests: int) -> float:
    """Milliseconds of CPU per request, with `keys` clients in the window."""
    from limits import RateLimitItemPerHour
    from limits.aio.storage import MemoryStorage
    from limits.aio.strategies import MovingWindowRateLimiter

    from docent.api.ratelimit import SlidingWindow

    item = RateLimitItemPerHour(100)
    limiter = MovingWindowRateLimiter(MemoryStorage())
    window = SlidingWindow(100, 3600.0)

    async def hit(key: str) -> None:
        if kind == "limits":
            await limiter.test(item, key)
            await limiter.hit(item, key)
        else:
            window.retry_after(key)
            window.record(key)

    for i in range(keys):
        await hit(f"client-{i}")
    await asyncio.sleep(2)  # let the fill's sweeps finish
    started = cpu()
    for i in range(requests):
        await hit(f"client-{i}")
        await asyncio.sleep(0.005)
    await asyncio.sleep(1)  # and the sweeps these requests started
    return (cpu() - started) * 1000 / requests


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", default="1000,10000,50000")
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # KIND KEYS, in a child
    args = ap.parse_args()
    if args.one:
        print(asyncio.run(measure(args.one[0], int(args.one[1]), args.requests)))
        return
    print(f"{'keys':>7} {'limits (ms CPU/request)':>24} {'SlidingWindow':>14}")
    for keys in args.keys.split(","):
        cells = []
        for kind in ("limits", "window"):
            out = subprocess.run([sys.executable, __file__, "--one", kind, keys, "--requests",
                                  str(args.requests)], capture_output=True, text=True,
                                 check=True, cwd=ROOT)
            cells.append(float(out.stdout.strip()))
        print(f"{keys:>7} {cells[0]:24.2f} {cells[1]:14.2f}")


if __name__ == "__main__":
    main()
