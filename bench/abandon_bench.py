"""Overload with impatient clients: how many `/chat` answers still reach a client.

    .venv/bin/python bench/abandon_bench.py --version old=SRC:DATA --version new=SRC:DATA \
        [--order old,new,new,old] [--clients 50] [--timeout 0.5] [--seconds 20]
        [--serve-args "--workers 2"]

Versions are given as to bench/serve_bench.py (a source tree, optional settings, a data dir
that version ingested; collection `--collection`, default eval-fastapi-docs). Per run:
`docent serve` with caches and rate limits off, 20 warm-up questions, then `--clients`
clients in a closed loop for `--seconds`, each giving up on an answer after `--timeout`
seconds (httpx's timeout: for each of connecting, sending and reading) and asking the
next question on a new connection. Reported: answers that reached a client per second
(goodput), timeouts, errors, the p50 of the answers that arrived, and the server's
`docent_runs_total` (runs that ended) and `docent_chat_abandoned_total` (runs cancelled
because the client left) as `/metrics` gives them afterwards; with `--workers N` one
scrape sums all workers. Questions: ../shared/eval/fastapi/qa_dev.jsonl and
bench/questions/fastapi-fresh.jsonl. Not part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import time
from collections.abc import Callable
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from serve_bench import EVAL, ROOT, env_for, pct, read_questions, start_server


async def impatient_load(url: str, questions: list[str], clients: int, timeout: float,
                         seconds: float) -> dict[str, float]:
    answered: list[float] = []
    timeouts = errors = 0
    limits = httpx.Limits(max_connections=clients + 2, max_keepalive_connections=clients + 2)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:
        for q in questions[:20]:
            await client.post(url + "/chat", json={"message": q}, timeout=60)
        stop = time.perf_counter() + seconds

        async def worker(i: int) -> None:
            nonlocal timeouts, errors
            n = i
            while time.perf_counter() < stop:
                t = time.perf_counter()
                try:
                    question = questions[n % len(questions)]
                    r = await client.post(url + "/chat", json={"message": question})
                    if r.status_code == 200:
                        answered.append((time.perf_counter() - t) * 1000)
                    else:
                        errors += 1
                except httpx.TimeoutException:
                    timeouts += 1
                except httpx.HTTPError:
                    errors += 1
                n += clients

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
    return {"goodput_rps": len(answered) / elapsed, "timeouts": timeouts, "errors": errors,
            "answered_p50": pct(answered, 50)}


def counters(url: str) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=30).text
    total = {"docent_runs_total": 0.0, "docent_chat_abandoned_total": 0.0}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name in total:
                total[s.name] += s.value
    return {"runs": total["docent_runs_total"], "abandoned": total["docent_chat_abandoned_total"]}


def serve_version(spec: str, args: argparse.Namespace,
                  measure: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """`measure(url)` against `docent serve` of the version `spec` (SRC:DATA[,K=V...]),
    with the load average at its end."""
    src, _, rest = spec.partition(":")
    data, _, extra = rest.partition(",")
    env = env_for(src, data, args.collection, extra)
    proc, url = start_server(env, shlex.split(args.serve_args))
    try:
        return {**measure(url), "load_avg": os.getloadavg()[0]}
    finally:
        proc.kill()
        proc.wait()


def load_questions() -> list[str]:
    return (read_questions(EVAL / "fastapi" / "qa_dev.jsonl")
            + read_questions(ROOT / "bench" / "questions" / "fastapi-fresh.jsonl"))


def run_version(spec: str, args: argparse.Namespace, questions: list[str]) -> dict[str, Any]:
    def measure(url: str) -> dict[str, Any]:
        load = asyncio.run(impatient_load(url, questions, args.clients, args.timeout,
                                          args.seconds))
        time.sleep(1)  # the last cancelled runs are counted
        return {**load, **counters(url)}

    return serve_version(spec, args, measure)


def version_parser(doc: str, clients: int) -> argparse.ArgumentParser:
    """The options every load bench here takes: versions, their order, the load."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--version", action="append", required=True, help="NAME=SRC:DATA[,K=V...]")
    p.add_argument("--order", default="", help="NAME,NAME,... (default A-B-B-A)")
    p.add_argument("--clients", type=int, default=clients)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--collection", default="eval-fastapi-docs")
    p.add_argument("--serve-args", default="")
    return p


def in_order(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(name, spec) of each run, in `--order`, else A-B-B-A."""
    versions = dict(v.split("=", 1) for v in args.version)
    order = args.order.split(",") if args.order else [*versions, *reversed(versions)]
    return [(name, versions[name]) for name in order]


def main() -> None:
    p = version_parser(__doc__, clients=50)
    p.add_argument("--timeout", type=float, default=0.5)
    args = p.parse_args()
    questions = load_questions()
    print(f"{args.clients} clients, {args.timeout} s client timeout, {args.seconds} s, "
          f"serve args {args.serve_args!r}")
    print("| run | answers/s reaching a client | timeouts | errors | p50 of those, ms "
          "| runs ended | runs cancelled | load |")
    print("|---|---|---|---|---|---|---|---|")
    for name, spec in in_order(args):
        r = run_version(spec, args, questions)
        print(f"| {name} | {r['goodput_rps']:.1f} | {r['timeouts']} | {r['errors']} "
              f"| {r['answered_p50']:.0f} | {r['runs']:.0f} | {r['abandoned']:.0f} "
              f"| {r['load_avg']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
