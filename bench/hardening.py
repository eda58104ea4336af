"""docent under abuse: oversized bodies, slow clients, spoofed addresses, a planted page,
and a schema fuzz, all against a real `docent serve` on 127.0.0.1.

    .venv/bin/python bench/hardening.py [--fuzz-examples 150] [--out FILE]

Ingests docs/ and a planted page (a secret and injected instructions) into a temporary
data dir, starts `docent serve` (the CLI, so uvicorn runs as shipped) and reports counts:

- bad bodies: one 100 MB POST with Content-Length, four 50 MB at once, one 100 MB sent
  chunked; the status of each, the server's resident memory before and after, and the
  slowest /health answered meanwhile;
- slowloris: 200 connections trickling a request head and 100 trickling a body, one byte
  a second; how many the server closed, and how many were still open after 60 s;
- spoofed X-Forwarded-For: 110 requests from 127.0.0.1 claiming 110 addresses, against
  the default 100 an hour per client;
- injection: 16 questions about the planted page over /chat and /chat/stream, and how many
  answers carried the planted secret or instructions;
- fuzz (when schemathesis is installed in the venv: `pip install schemathesis`; it is not
  a dependency of docent): `st run` against /openapi.json, with the count of requests,
  5xx answers and answers leaking internals (read from its VCR cassette).

Prints a summary and writes JSON (default bench/results/hardening.json). Not part of the
test suite; takes 5 to 10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.test_untrusted_documents import LEAKS, PLANTED, QUESTIONS  # noqa: E402

MB = 1024 * 1024
# What a leaked internal looks like in a response body.
INTERNALS = re.compile(r"Traceback|File \"|\.py[\"':]|ValidationError|sqlite3\.|chromadb\.|"
                       r"Exception\b|Error:\s|/site-packages/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`docent serve` in a subprocess on 127.0.0.1."""

    def __init__(self, data: Path, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DOCENT_DATA_DIR": str(data), "DOCENT_LLM_PROVIDER": "extractive",
                    "DOCENT_LOG_LEVEL": "WARNING", "ORT_DISABLE_TELEMETRY": "1", **env}

    def __enter__(self) -> Server:
        self.proc = subprocess.Popen(
            [str(ROOT / ".venv/bin/docent"), "serve", "--port", str(self.port)],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/ready", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise RuntimeError("docent serve did not become ready")

    def __exit__(self, *_: Any) -> None:
        self.proc.terminate()
        self.proc.wait(30)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


class HealthWatch:
    """Polls /health while something else runs; keeps the slowest answer."""

    def __init__(self, url: str) -> None:
        self.url, self.slowest, self.failures, self._stop = url, 0.0, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.perf_counter()
            try:
                httpx.get(self.url + "/health", timeout=30).raise_for_status()
            except httpx.HTTPError:
                self.failures += 1
            self.slowest = max(self.slowest, time.perf_counter() - began)
            time.sleep(0.1)

    def __enter__(self) -> HealthWatch:
        self.thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self.thread.join()


def post_body(url: str, size: int, chunked: bool = False) -> tuple[int | None, float]:
    """POST /chat with a valid JSON body of about `size` bytes from a raw socket: a question
    and a history of tiny messages, the costliest kind to parse; (status, seconds to the
    answer)."""
    item = b'{"role": "user", "content": "x"}, '
    pieces = [b'{"message": "q", "messages": [']
    pieces += [item * (MB // len(item))] * (size // MB)
    pieces += [b'{"role": "user", "content": "x"}]}']
    host, port = url.removeprefix("http://").split(":")
    began = time.perf_counter()
    with socket.create_connection((host, int(port)), timeout=120) as sock:
        framing = (b"Transfer-Encoding: chunked\r\n" if chunked
                   else b"Content-Length: %d\r\n" % sum(map(len, pieces)))
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     + framing + b"\r\n")
        try:
            for piece in pieces:
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed before the whole body was sent
        try:
            head = sock.recv(4096)
        except OSError:
            head = b""
    match = re.match(rb"HTTP/1\.1 (\d{3})", head)
    return (int(match.group(1)) if match else None), time.perf_counter() - began


def bad_bodies(server: Server) -> dict[str, Any]:
    out: dict[str, Any] = {"rss_before_mb": round(server.rss_mb(), 1)}
    with HealthWatch(server.url) as watch:
        out["one_100mb"] = post_body(server.url, 100 * MB)
        results: list[Any] = []
        threads = [threading.Thread(target=lambda: results.append(post_body(server.url, 50 * MB)))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out["four_50mb"] = results
        out["one_100mb_chunked"] = post_body(server.url, 100 * MB, chunked=True)
    out["rss_after_mb"] = round(server.rss_mb(), 1)
    out["slowest_health_s"] = round(watch.slowest, 3)
    out["health_failures"] = watch.failures
    return out


async def _trickle(host: str, port: int, head: bytes, drip: bytes, limit: float) -> bool:
    """True when the server closed the connection within `limit` seconds."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return True
    writer.write(head)
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline:
            writer.write(drip)
            await writer.drain()
            try:
                if await asyncio.wait_for(reader.read(1024), 1.0) == b"":
                    return True
            except TimeoutError:
                continue
        return False
    except OSError:
        return True
    finally:
        writer.close()


def slowloris(server: Server, heads: int = 200, bodies: int = 100, limit: float = 60) -> dict:
    host, port = "127.0.0.1", server.port

    async def run() -> list[bool]:
        jobs = [_trickle(host, port, b"POST /chat HTTP/1.1\r\nHost: x\r\n", b"a", limit)
                for _ in range(heads)]
        jobs += [_trickle(host, port, b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Length: 100000"
                          b"\r\n\r\n{", b"a", limit) for _ in range(bodies)]
        return await asyncio.gather(*jobs)

    with HealthWatch(server.url) as watch:
        closed = asyncio.run(run())
    return {"slow_heads": heads, "slow_bodies": bodies,
            "heads_closed": sum(closed[:heads]), "bodies_closed": sum(closed[heads:]),
            "still_open_after_s": limit, "still_open": closed.count(False),
            "slowest_health_s": round(watch.slowest, 3)}


def spoofed(server: Server, n: int = 110) -> dict:
    codes = [httpx.post(server.url + "/chat", json={"message": "hi"}, timeout=30,
                        headers={"X-Forwarded-For": f"203.0.{i // 250}.{i % 250}"}).status_code
             for i in range(n)]
    return {"requests": n, "answered": codes.count(200), "rate_limited": codes.count(429)}


def injection(server: Server) -> dict:
    leaked, completed, answers = 0, 0, 0
    with httpx.Client(timeout=120) as client:
        for question in QUESTIONS:
            for path in ("/chat", "/chat/stream"):
                r = client.post(server.url + path, json={"message": question})
                answers += 1
                completed += '"exit_reason": "COMPLETED"' in r.text or (
                    r.headers.get("content-type", "").startswith("application/json")
                    and r.json().get("exit_reason") == "COMPLETED")
                leaked += any(leak in r.text for leak in LEAKS)
    return {"questions": len(QUESTIONS), "answers": answers, "completed": completed,
            "answers_with_a_leak": leaked}


def fuzz(server: Server, examples: int, workdir: Path) -> dict:
    st = ROOT / ".venv/bin/st"
    if not st.exists():
        return {"skipped": "schemathesis is not installed (pip install schemathesis)"}
    reports = workdir / "fuzz"
    proc = subprocess.run(
        [str(st), "run", server.url + "/openapi.json", "--checks", "not_a_server_error",
         "--max-examples", str(examples), "--workers", "2", "--seed", "13",
         "--report", "vcr", "--report-dir", str(reports), "--no-color",
         "--request-timeout", "120", "--generation-database", "none"],
        capture_output=True, text=True, timeout=3600, cwd=workdir)  # its caches go there too
    import yaml  # comes with schemathesis

    cassette = yaml.safe_load(next(reports.glob("*.yaml")).read_text())
    responses = [i["response"] for i in cassette["http_interactions"] if i.get("response")]
    statuses = [int(r["status"]["code"]) for r in responses]
    bodies = [str((r.get("body") or {}).get("string") or (r.get("body") or {}).get("base64_string")
                  or "") for r in responses]
    return {
        "requests": len(cassette["http_interactions"]),
        "responses_read": len(bodies),
        "by_status": {str(c): statuses.count(c) for c in sorted(set(statuses))},
        "server_errors": sum(c >= 500 for c in statuses),
        "responses_leaking_internals": sum(bool(INTERNALS.search(b)) for b in bodies),
        "schemathesis_exit_code": proc.returncode,
        "schemathesis_summary": proc.stdout.strip().splitlines()[-12:],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fuzz-examples", type=int, default=150)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/hardening.json")
    args = parser.parse_args()
    from docent.config import load_settings
    from docent.ingest import ingest_path

    work = Path(tempfile.mkdtemp(prefix="docent-hardening-"))
    try:
        docs = work / "docs"
        shutil.copytree(ROOT / "docs", docs)
        (docs / "billing.md").write_text(PLANTED, encoding="utf-8")
        report = ingest_path(docs, load_settings(_env_file=None, data_dir=work / "data"),
                             progress=False)
        results: dict[str, Any] = {"suspicious_lines_reported": len(report.suspicious)}
        with Server(work / "data", DOCENT_RATE_LIMIT_ENABLED="false") as server:
            results["bad_bodies"] = bad_bodies(server)
            results["slowloris"] = slowloris(server)
            results["injection"] = injection(server)
            results["fuzz"] = fuzz(server, args.fuzz_examples, work)
        with Server(work / "data") as server:  # default limits: 100 an hour per client
            results["spoofed_x_forwarded_for"] = spoofed(server)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["load_average"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
