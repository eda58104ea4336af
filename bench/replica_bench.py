"""Replica benchmark: one vs two `docent serve` replicas behind one port, in one run.

    .venv/bin/python bench/replica_bench.py [--order mem,one,two,two,one,mem] [--seconds 30]
        [--clients 8] [--docs docs] [--questions bench/questions/docent-fresh.jsonl]
        [--out bench/results/replicas.json]

The deployment layout of docs/deployment.md on 127.0.0.1: a redis-server and a Chroma
server (`chroma run`), both started here on free ports, `docent ingest` of `--docs` into
the Chroma server, replicas A and B (`docent serve`, extractive model, DOCENT_REDIS_URL and
DOCENT_CHROMA_URL set), and a round-robin TCP proxy (`--proxy`, this file run as a
subprocess) on one port. Each run sends `--clients` closed-loop clients through the proxy
for `--seconds`: "one" proxies to A alone, "two" to A and B (each client's connection goes
to one replica, in turn), "mem" to M, a replica on the same Chroma server without Redis
(all state in memory: what Redis costs). Runs alternate in `--order` (A-B-B-A), so a trend
in the machine's load shows as a difference between the two runs of one layout. The CPU
time each replica used in a run, divided by the answers, gives CPU per answer: cores
needed = answers per second x CPU per answer, a figure the machine's noise moves less
than throughput.

Every request is `POST /chat` without a session id, so each one opens a new session in
Redis, holds its lock, records its turn; caches are on, and each question gets a unique
suffix, so every cache lookup misses and every answer is written to Redis: the state's
whole cost, none of its benefit. Rate limits are off (one client address sends it all).
Reports throughput, p50/p95, errors, CPU per answer, the load average, each replica's
peak memory, and Redis's memory afterwards: in all, and per key of each kind (a session's
turns, a reply, a search result). Not part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from serve_bench import pct, peak_rss_mb, timed_chat  # noqa: E402  (bench/ is on the path)

from tests.chroma_server import ChromaServer  # noqa: E402
from tests.processes import free_port  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402


async def proxy(port: int, backends: list[int]) -> None:
    """Round-robin TCP proxy: each new connection goes to the next backend."""
    turn = itertools.cycle(backends)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", next(turn))
        except OSError:
            client_w.close()
            return
        await asyncio.gather(pipe(client_r, up_w), pipe(up_r, client_w))

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def start_proxy(backends: list[int]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--proxy", str(port),
                             *map(str, backends)])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("proxy did not start")


def start_replica(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "docent.cli", "serve", "--port", str(port)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=2).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"replica did not become ready; see {log}")


async def load(url: str, questions: list[str], clients: int, seconds: float,
               counter: itertools.count[int]) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def client(i: int) -> None:
        nonlocal errors
        # One connection per client, kept alive: the proxy sends it to one replica.
        async with httpx.AsyncClient(timeout=300) as http:
            n = i
            while time.perf_counter() < stop:
                q = f"{questions[n % len(questions)]} (#{next(counter)})"
                n += clients
                took = await timed_chat(http, url, q)
                if took is None:
                    errors += 1
                else:
                    latencies.append(took)

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    return {"requests": len(latencies), "errors": errors,
            "throughput_rps": len(latencies) / elapsed, "p50_ms": pct(latencies, 50),
            "p95_ms": pct(latencies, 95)}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def redis_info(url: str) -> dict[str, Any]:
    """Redis's memory, and the mean size of a sample of each kind of key docent writes."""
    import redis

    client = redis.Redis.from_url(url)
    out: dict[str, Any] = {"used_memory": int(client.info("memory")["used_memory"]),
                           "keys": int(client.dbsize()),
                           "sessions": int(client.zcard("docent:sessions"))}
    kinds = {"session_turns": "docent:session:*", "reply": "docent:cache:reply:*",
             "retrieval": "docent:cache:retrieval:*"}
    for kind, pattern in kinds.items():
        keys = [k for k in itertools.islice(client.scan_iter(pattern, count=500), 400)
                if not k.endswith(b":lock")][:200]
        sizes = [client.memory_usage(k) or 0 for k in keys]
        out[f"{kind}_bytes_mean"] = sum(sizes) / len(sizes) if sizes else 0
    client.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proxy", nargs="+", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--order", default="mem,one,two,two,one,mem")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--docs", type=Path, default=ROOT / "docs")
    ap.add_argument("--questions", type=Path,
                    default=ROOT / "bench" / "questions" / "docent-fresh.jsonl")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "replicas.json")
    args = ap.parse_args()
    if args.proxy:
        asyncio.run(proxy(args.proxy[0], args.proxy[1:]))
        return

    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines()
                 if line.strip()]
    work = Path(tempfile.mkdtemp(prefix="docent-replicas-"))
    redis_server, chroma = RedisServer(work / "redis"), ChromaServer(work / "chroma")
    redis_server.start()
    chroma.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
    env.update(DOCENT_REDIS_URL=redis_server.url, DOCENT_CHROMA_URL=chroma.url,
               DOCENT_COLLECTION="bench", DOCENT_DATA_DIR=str(work / "data"),
               DOCENT_LLM_PROVIDER="extractive", DOCENT_RATE_LIMIT_ENABLED="false",
               DOCENT_LOG_LEVEL="WARNING")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        subprocess.run([sys.executable, "-m", "docent.cli", "ingest", str(args.docs), "--quiet"],
                       env=env, check=True)
        (a, port_a), (b, port_b) = (start_replica(env, work / "a.log"),
                                    start_replica(env, work / "b.log"))
        procs += [a, b]
        layouts = {"one": [port_a], "two": [port_a, port_b]}
        pids = {port_a: a.pid, port_b: b.pid}
        if "mem" in args.order:
            memory_env = {k: v for k, v in env.items() if k != "DOCENT_REDIS_URL"}
            m, port_m = start_replica(memory_env, work / "m.log")
            procs.append(m)
            layouts["mem"], pids[port_m] = [port_m], m.pid
        counter = itertools.count()
        # Warm the replicas up (the first answers load the model's sessions and indexes).
        for port in pids:
            for q in questions[:3]:
                httpx.post(f"http://127.0.0.1:{port}/chat", json={"message": q}, timeout=120)
        runs = []
        for name in args.order.split(","):
            prox, port = start_proxy(layouts[name])
            used = [pids[p] for p in layouts[name]]
            try:
                before, cpu_before = os.getloadavg(), sum(map(cpu_seconds, used))
                result = asyncio.run(load(f"http://127.0.0.1:{port}", questions, args.clients,
                                          args.seconds, counter))
                cpu = sum(map(cpu_seconds, used)) - cpu_before
            finally:
                prox.terminate()
                prox.wait()
            result.update(layout=name, replicas=len(layouts[name]), load_avg_before=before,
                          load_avg_after=os.getloadavg(),
                          cpu_ms_per_answer=cpu * 1000 / max(1, result["requests"]))
            runs.append(result)
            print(f"{name:4} {result['throughput_rps']:6.2f} rps  p50 {result['p50_ms']:7.0f} ms"
                  f"  p95 {result['p95_ms']:7.0f} ms  errors {result['errors']}  CPU "
                  f"{result['cpu_ms_per_answer']:5.0f} ms/answer  load "
                  f"{before[0]:.2f} -> {result['load_avg_after'][0]:.2f}", flush=True)
        state = redis_info(redis_server.url)
        report = {"clients": args.clients, "seconds": args.seconds, "runs": runs,
                  "rss_peak_mb": {str(port): peak_rss_mb(pid) for port, pid in pids.items()},
                  "redis": state}
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=30)
        chroma.stop()
        redis_server.stop()
    for name in dict.fromkeys(args.order.split(",")):
        mine = [r for r in runs if r["layout"] == name]
        p95s = ", ".join(f"{r['p95_ms']:.0f}" for r in mine)
        cpus = ", ".join(f"{r['cpu_ms_per_answer']:.0f}" for r in mine)
        print(f"{name}: mean {sum(r['throughput_rps'] for r in mine) / len(mine):.2f} rps, "
              f"p95 {p95s} ms, CPU {cpus} ms/answer, errors {sum(r['errors'] for r in mine)}")
    print(f"peak RSS per replica (MB): {report['rss_peak_mb']}")
    print(f"redis: {state}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
