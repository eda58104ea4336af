"""Serving benchmark: /chat and /chat/stream against real `docent serve` processes.

    .venv/bin/python bench/serve_bench.py --version old=SRC:DATA --version new=SRC:DATA \
        [--order old,new,new,old] [--seconds 60] [--clients 10,50] [--out FILE]
        [--serve-args "--workers 2"] [--serve-args-for new="--workers 2"]

Each version is a source tree (its `src/`, put first on PYTHONPATH), optional settings
(`DOCENT_WORKER_THREADS=4,...`) and a data dir already
ingested by that version (`docent eval` or `docent ingest` leaves one; the collection is
`--collection`, default eval-fastapi-docs). Versions run one after the other in `--order`
(A-B-B-A by default, so a trend in the machine's load shows as a difference between the
two runs of one version). Per run, with caches and rate limits off:

- floor: in a separate process of that version, embed each question and run one Chroma
  top-5 query (what any answer must cost at least), p50;
- /chat p50/p95 sequentially over the questions, after 5 warm-up questions of another set;
- /chat/stream: time to the first `on_chat_model_stream` frame and to `on_chain_end`, on a
  third set (each timed pass asks questions the server has not seen: it keeps recent
  questions' vectors, and a repeat would skip its embedding);
- load: N clients in a closed loop for `--seconds` each, over all three sets (repeating
  them: the throughput includes those vectors kept), throughput, p50/p95/p99/max, errors,
  and the worst `/health` latency seen by a probe polling it every 0.25 s meanwhile;
- the server's peak resident memory (VmHWM).

Questions: the 40 of ../shared/eval/fastapi/qa_dev.jsonl (`--questions`), the stream pass
bench/questions/fastapi-fresh.jsonl, the warm-up bench/questions/fastapi-holdout.jsonl.
Prints a table and writes JSON (default bench/results/serve.json). Not part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"

FLOOR = """
import json, sys, time
from docent.config import load_settings
from docent.retrieval.embeddings import MiniLMEmbedder
from docent.retrieval.store import open_store
qs = json.load(sys.stdin)
embedder = MiniLMEmbedder()
store = open_store(load_settings(), embedder)
embedder.embed(["warm up"]); store.query(embedder.embed(["warm up"])[0], 5)
out = []
for _ in range(3):
    for q in qs:
        t = time.perf_counter(); store.query(embedder.embed([q])[0], 5)
        out.append((time.perf_counter() - t) * 1000)
print(json.dumps(out))
"""


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of `values`, in their unit."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def env_for(src: str, data: str, collection: str, extra: str = "") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
    env.update(
        PYTHONPATH=src, DOCENT_DATA_DIR=data, DOCENT_COLLECTION=collection,
        DOCENT_RETRIEVAL_CACHE_SIZE="0", DOCENT_LLM_CACHE_SIZE="0",
        DOCENT_RATE_LIMIT_ENABLED="false", DOCENT_LOG_LEVEL="WARNING",
        DOCENT_LLM_PROVIDER="extractive",
    )
    env.update(dict(pair.split("=", 1) for pair in extra.split(",") if pair))
    return env


def floor_ms(env: dict[str, str], questions: list[str]) -> list[float]:
    out = subprocess.run([sys.executable, "-c", FLOOR], input=json.dumps(questions), env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(env: dict[str, str], extra: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    """`docent serve EXTRA...` on a free port, once every worker listens (a load's kept-alive
    connections stay with the workers listening when they open)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "docent.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         *extra], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    workers = int(extra[extra.index("--workers") + 1]) if "--workers" in extra else 1
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if (httpx.get(url + "/ready", timeout=2).status_code == 200
                    and listeners(port) >= workers):
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError("server did not become ready")


def listeners(port: int) -> int:
    """Sockets listening on 127.0.0.1:`port` (Linux: /proc/net/tcp)."""
    local = f"0100007F:{port:04X}"
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1] == local and row.split()[3] == "0A")


def peak_rss_mb(pid: int) -> float:
    """Peak resident memory of `pid` and its children (uvicorn workers), in MB."""
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


async def sequential(url: str, sets: QuestionSets) -> dict[str, float]:
    """Each pass on questions this server has not seen: the retriever keeps the vectors of
    recent questions, and a repeated question would skip its embedding."""
    async with httpx.AsyncClient(timeout=120) as client:
        for q in sets.warmup[:5]:
            await client.post(url + "/chat", json={"message": q})
        chat = []
        for q in sets.chat:
            t = time.perf_counter()
            r = await client.post(url + "/chat", json={"message": q})
            chat.append((time.perf_counter() - t) * 1000)
            r.raise_for_status()
        first, whole = [], []
        for q in sets.stream:
            t = time.perf_counter()
            got_first = None
            async with client.stream("POST", url + "/chat/stream", json={"message": q}) as r:
                async for line in r.aiter_lines():
                    if got_first is None and line == "event: on_chat_model_stream":
                        got_first = (time.perf_counter() - t) * 1000
                    if line == "event: on_chain_end":
                        break
            whole.append((time.perf_counter() - t) * 1000)
            first.append(got_first if got_first is not None else whole[-1])
    return {"chat_p50": pct(chat, 50), "chat_p95": pct(chat, 95),
            "first_token_p50": pct(first, 50), "first_token_p95": pct(first, 95),
            "stream_end_p50": pct(whole, 50)}


async def timed_chat(client: httpx.AsyncClient, url: str, question: str) -> float | None:
    """Milliseconds for one `/chat` answer, or None when it failed."""
    t = time.perf_counter()
    try:
        r = await client.post(url + "/chat", json={"message": question})
        ok = r.status_code == 200 and bool(r.json().get("exit_reason"))
    except httpx.HTTPError:
        ok = False
    return (time.perf_counter() - t) * 1000 if ok else None


async def load(url: str, questions: list[str], clients: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    health: list[float] = []
    stop = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients + 2, max_keepalive_connections=clients + 2)

    async with httpx.AsyncClient(timeout=300, limits=limits) as client:
        async def worker(i: int) -> None:
            nonlocal errors
            n = i
            while time.perf_counter() < stop:
                took = await timed_chat(client, url, questions[n % len(questions)])
                n += clients
                if took is None:
                    errors += 1
                else:
                    latencies.append(took)

        async def probe() -> None:
            async with httpx.AsyncClient(timeout=60) as own:
                while time.perf_counter() < stop:
                    t = time.perf_counter()
                    await own.get(url + "/health")
                    health.append((time.perf_counter() - t) * 1000)
                    await asyncio.sleep(0.25)

        started = time.perf_counter()
        await asyncio.gather(probe(), *(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
    return {"clients": clients, "requests": len(latencies), "errors": errors,
            "throughput_rps": len(latencies) / elapsed, "p50": pct(latencies, 50),
            "p95": pct(latencies, 95), "p99": pct(latencies, 99),
            "max": max(latencies, default=float("nan")),
            "health_max": max(health, default=float("nan")), "health_p95": pct(health, 95)}


@dataclass
class QuestionSets:
    """Questions for the warm-up, the timed /chat pass, the stream pass, and the load."""

    warmup: list[str]
    chat: list[str]
    stream: list[str]

    @property
    def everything(self) -> list[str]:
        return self.chat + self.stream + self.warmup


def read_questions(path: Path) -> list[str]:
    return [json.loads(line)["question"] for line in path.read_text().splitlines()
            if line.strip()]


def run_version(name: str, spec: str, args: argparse.Namespace,
                questions: QuestionSets) -> dict[str, Any]:
    src, data, extra = (spec.split(":", 2) + [""])[:3]
    env = env_for(src, data, args.collection, extra)
    result: dict[str, Any] = {"version": name, "load_avg_before": os.getloadavg()}
    floor = floor_ms(env, questions.chat)
    result["floor_p50"] = pct(floor, 50)
    serve_args = args.serve_args_for.get(name, args.serve_args)
    proc, url = start_server(env, serve_args.split() if serve_args else [])
    try:
        result.update(asyncio.run(sequential(url, questions)))
        result["load"] = [asyncio.run(load(url, questions.everything, c, args.seconds))
                          for c in args.clients]
        result["rss_peak_mb"] = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    result["load_avg_after"] = os.getloadavg()
    return result


def report(runs: list[dict[str, Any]]) -> str:
    lines = [f"{'run':10} {'floor':>6} {'chat50':>7} {'x floor':>7} {'chat95':>7} "
             f"{'1st tok':>7} {'tok-fl':>6} {'rss MB':>7}  load: clients rps p50 p95 p99 max err "
             "p95/p50(1) health_max"]
    for r in runs:
        head = (f"{r['version']:10} {r['floor_p50']:6.1f} {r['chat_p50']:7.1f} "
                f"{r['chat_p50'] / r['floor_p50']:7.2f} {r['chat_p95']:7.1f} "
                f"{r['first_token_p50']:7.1f} {r['first_token_p50'] - r['floor_p50']:6.1f} "
                f"{r['rss_peak_mb']:7.0f}")
        loads = "; ".join(
            f"{x['clients']}c {x['throughput_rps']:.1f} {x['p50']:.0f} {x['p95']:.0f} "
            f"{x['p99']:.0f} {x['max']:.0f} "
            f"{x['errors']} {x['p95'] / r['chat_p50']:.1f} {x['health_max']:.0f}"
            for x in r["load"]
        )
        lines.append(f"{head}  {loads}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", action="append", required=True,
                    help="NAME=SRC:DATA[:KEY=VALUE,...] (settings for that version's server)")
    ap.add_argument("--order", help="comma-separated version names (default A,B,B,A)")
    ap.add_argument("--collection", default="eval-fastapi-docs")
    ap.add_argument("--questions", type=Path, default=EVAL / "fastapi" / "qa_dev.jsonl",
                    help="the timed /chat pass (and the floor)")
    ap.add_argument("--stream-questions", type=Path,
                    default=ROOT / "bench" / "questions" / "fastapi-fresh.jsonl",
                    help="the /chat/stream pass")
    ap.add_argument("--warmup-questions", type=Path,
                    default=ROOT / "bench" / "questions" / "fastapi-holdout.jsonl")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--clients", default="10,50")
    ap.add_argument("--serve-args", default="", help="extra `docent serve` arguments")
    ap.add_argument("--serve-args-for", action="append", default=[], metavar="NAME=ARGS",
                    help="`docent serve` arguments of one version (e.g. two=--workers 2)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "serve.json")
    args = ap.parse_args()
    args.clients = [int(c) for c in args.clients.split(",") if c]
    args.serve_args_for = dict(v.split("=", 1) for v in args.serve_args_for)
    versions = dict(v.split("=", 1) for v in args.version)
    names = list(versions)
    order = args.order.split(",") if args.order else (
        [names[0], names[1], names[1], names[0]] if len(names) == 2 else names)
    questions = QuestionSets(read_questions(args.warmup_questions),
                             read_questions(args.questions), read_questions(args.stream_questions))
    runs = []
    for name in order:
        runs.append(run_version(name, versions[name], args, questions))
        print(report(runs[-1:]), flush=True)
    print("\n" + report(runs))
    for name in names:
        mine = [r for r in runs if r["version"] == name]
        print(f"{name}: chat p50 / floor = "
              + ", ".join(f"{r['chat_p50'] / r['floor_p50']:.2f}" for r in mine)
              + f"; mean throughput at {args.clients}: "
              + ", ".join(f"{statistics.mean(r['load'][i]['throughput_rps'] for r in mine):.1f}"
                          for i in range(len(args.clients))))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"runs": runs, "order": order, "versions": versions},
                                   indent=1))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
