"""Streams under load: N clients reading `/chat/stream` answers in a closed loop.

    .venv/bin/python bench/stream_bench.py --version old=SRC:DATA --version new=SRC:DATA \
        [--order old,new,new,old] [--clients 10] [--seconds 20] [--serve-args "--workers 2"]

Versions as for bench/serve_bench.py. Per run: `docent serve` with caches and rate limits
off, 20 warm-up `/chat` questions, then `--clients` clients each asking the next question
as a stream and reading it to its `on_chain_end`, for `--seconds`. Reported: streams a
second, the time to the first `on_chat_model_stream` frame and to `on_chain_end` (p50,
p95), errors. Questions as bench/abandon_bench.py's. Not part of the tests.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
from abandon_bench import in_order, load_questions, serve_version, version_parser
from serve_bench import pct


async def stream_load(url: str, questions: list[str], clients: int,
                      seconds: float) -> dict[str, Any]:
    first: list[float] = []
    whole: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=clients + 2, max_keepalive_connections=clients + 2)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        for q in questions[:20]:
            await client.post(url + "/chat", json={"message": q})
        stop = time.perf_counter() + seconds

        async def worker(i: int) -> None:
            nonlocal errors
            n = i
            while time.perf_counter() < stop:
                t = time.perf_counter()
                got_first = None
                body = {"message": questions[n % len(questions)]}
                try:
                    async with client.stream("POST", url + "/chat/stream", json=body) as r:
                        async for line in r.aiter_lines():
                            if got_first is None and line == "event: on_chat_model_stream":
                                got_first = (time.perf_counter() - t) * 1000
                            if line == "event: on_chain_end":
                                break
                except httpx.HTTPError:
                    errors += 1
                else:
                    whole.append((time.perf_counter() - t) * 1000)
                    first.append(got_first if got_first is not None else whole[-1])
                n += clients

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
    return {"streams_per_s": len(whole) / elapsed, "first_p50": pct(first, 50),
            "first_p95": pct(first, 95), "whole_p50": pct(whole, 50),
            "whole_p95": pct(whole, 95), "errors": errors}


def main() -> None:
    args = version_parser(__doc__, clients=10).parse_args()
    questions = load_questions()
    print(f"{args.clients} clients, {args.seconds} s, serve args {args.serve_args!r}")
    print("| run | streams/s | first token p50, p95 ms | whole stream p50, p95 ms | errors "
          "| load |")
    print("|---|---|---|---|---|---|")
    for name, spec in in_order(args):
        r = serve_version(spec, args, lambda url: asyncio.run(
            stream_load(url, questions, args.clients, args.seconds)))
        print(f"| {name} | {r['streams_per_s']:.1f} | {r['first_p50']:.0f}, "
              f"{r['first_p95']:.0f} | {r['whole_p50']:.0f}, {r['whole_p95']:.0f} "
              f"| {r['errors']} | {r['load_avg']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
