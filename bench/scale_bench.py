"""100,000 chunks: start-up to ready, and requests answered during a re-ingestion.

    .venv/bin/python bench/scale_bench.py [--copies 49] [--old REV] [--data DIR]

1. Build: `--copies` copies of the FastAPI docs (about 2,000 chunks each) ingested into a
   fresh data dir with a synthetic embedder (MiniLM's name and dimension, vectors from a
   hash of the text, tokens estimated from words): the chunks, unit vectors, Chroma files
   and saved keyword index of a real ingestion, without hours of embedding. `--data DIR` keeps the
   store in DIR and reuses it on the next run.
2. Start-up: `docent serve` of this tree and of `--old` (default: the merge before issue
   14), alternating new, old, new, old: seconds from spawning the process to `/ready`
   answering 200, then one `/chat` answered.
3. Re-ingestion under traffic: a `docent serve` of this tree answers `/chat` in a loop
   (questions rotated, caches and rate limits off) while `docent ingest` (real MiniLM)
   re-ingests the folder after a one-line edit; every response's status, exit reason and
   error code and the slowest one are counted, until 30 s after the ingestion ended.
   `--old-too` runs the same against the old code.

Not part of the test suite: the build takes a quarter of an hour on 2 cores.
"""

from __future__ import annotations

import argparse
import hashlib
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
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FASTAPI = ROOT.parent / "shared" / "eval" / "fastapi" / "docs"
OLD_REV = "13eb3d1"
QUESTIONS = [
    "How do I declare a path parameter?",
    "How do I add CORS middleware?",
    "How do I return a custom status code?",
    "What is a dependency with yield?",
    "How do I upload a file?",
]


class SyntheticEmbedder:
    """MiniLM's name and dimension, with vectors drawn from a hash of the text and tokens
    estimated from words (chunks come out close to real ones, not identical)."""

    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def count_tokens(self, text: str) -> int:
        return len(re.findall(r"\w+|[^\w\s]", text)) * 5 // 4 + 2

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = [self._vector(t) for t in texts]
        return np.stack(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)

    def embed_spans(self, texts, spans):  # type: ignore[no-untyped-def]
        parts = [self.embed([t[a:b] for a, b in s]) for t, s in zip(texts, spans, strict=True)]
        return self.embed(texts), parts

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)


def build(docs: Path, data: Path, copies: int) -> Path:
    """The copies under `data/docs`, ingested into `data` (kept when already there)."""
    from docent.config import load_settings
    from docent.ingest import ingest_path
    from docent.ingestion import pipeline
    from docent.models.unit_vectors import scored_units, unit_key
    from docent.retrieval.chunking import embedding_text

    folder = data / "docs"
    if not folder.exists():
        for n in range(copies):
            shutil.copytree(docs, folder / f"copy{n:02d}")
    embedder = SyntheticEmbedder()

    def synthetic_encode(_: object, chunks: list[Any]) -> tuple[np.ndarray, list[Any]]:
        # Unit vectors keyed as ingestion keys them, without aligning words to tokens.
        units = [{unit_key(u.text): embedder.embed([u.text])[0] for u in scored_units(c.text)}
                 for c in chunks]
        return embedder.embed([embedding_text(c) for c in chunks]), units

    pipeline.encode_chunks = synthetic_encode  # type: ignore[assignment]
    started = time.perf_counter()
    report = ingest_path(folder, load_settings(data_dir=data), embedder=embedder,
                         progress=True)
    print(f"build: {report.total_chunks} chunks, {report.chunks_written} written in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    return folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(data: Path, code: Path | None) -> dict[str, str]:
    env = {**os.environ, "DOCENT_DATA_DIR": str(data), "DOCENT_RATE_LIMIT_ENABLED": "false",
           "DOCENT_RETRIEVAL_CACHE_SIZE": "0", "DOCENT_LLM_CACHE_SIZE": "0",
           "DOCENT_LOG_LEVEL": "WARNING"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def serve(data: Path, code: Path | None) -> tuple[subprocess.Popen[bytes], str, float]:
    """A `docent serve` on a free port; (process, base URL, seconds until /ready is 200)."""
    port = free_port()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "docent.cli", "serve", "--port", str(port)],
        env=env_for(data, code), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    while True:
        if proc.poll() is not None:
            raise SystemExit("docent serve exited before it was ready")
        try:
            if httpx.get(base + "/ready", timeout=5).status_code == 200:
                return proc, base, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if time.perf_counter() - started > 600:
            proc.kill()
            raise SystemExit("docent serve not ready after 600 s")
        time.sleep(0.2)


def ask(base: str, question: str) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        r = httpx.post(base + "/chat", json={"message": question}, timeout=60)
        body = r.json()
        out = {"status": r.status_code, "exit_reason": body.get("exit_reason"),
               "error_code": (body.get("metadata") or {}).get("error_code")
               or (body.get("error") or {}).get("code")}
    except httpx.HTTPError as exc:
        out = {"status": 0, "exit_reason": None, "error_code": type(exc).__name__}
    out["seconds"] = round(time.perf_counter() - started, 2)
    return out


def startup(data: Path, old: Path) -> None:
    for label, code in [("new", None), ("old", old), ("new", None), ("old", old)]:
        load = os.getloadavg()[0]
        proc, base, seconds = serve(data, code)
        answer = ask(base, QUESTIONS[0])
        proc.terminate()
        proc.wait(30)
        print(f"start-up {label}: ready in {seconds:.1f} s (load {load:.2f}); first /chat "
              f"{answer}", flush=True)


def reingest_under_traffic(data: Path, folder: Path, code: Path | None, label: str) -> None:
    proc, base, seconds = serve(data, code)
    results: list[tuple[float, dict[str, Any]]] = []
    stop = threading.Event()
    t0 = time.perf_counter()

    def traffic() -> None:
        n = 0
        while not stop.is_set():
            results.append((time.perf_counter() - t0, ask(base, QUESTIONS[n % len(QUESTIONS)])))
            n += 1

    client = threading.Thread(target=traffic)
    client.start()
    time.sleep(10)
    # A page of a few chunks: the synthetic build chunked it from estimated token counts,
    # so the real tokenizer cuts it anew and all of its chunks are embedded.
    page = folder / "copy00" / "tutorial" / "first-steps.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\n\nEdited at {time.time()}.\n",
                    encoding="utf-8")
    began = time.perf_counter() - t0
    ingest = subprocess.run([sys.executable, "-m", "docent.cli", "ingest", str(folder),
                             "--quiet"], env=env_for(data, code), capture_output=True,
                            text=True, check=False)
    ended = time.perf_counter() - t0
    time.sleep(30)
    stop.set()
    client.join()
    proc.terminate()
    proc.wait(30)
    failed = [r for _, r in results if r["status"] != 200 or r["error_code"]]
    during = [r for t, r in results if began <= t <= ended + 30]
    reasons: dict[str, int] = {}
    for _, r in results:
        key = f"{r['status']} {r['exit_reason']} {r['error_code'] or ''}".strip()
        reasons[key] = reasons.get(key, 0) + 1
    print(f"re-ingest {label}: ingest exit {ingest.returncode} from {began:.0f} s to "
          f"{ended:.0f} s ({ended - began:.0f} s); {len(results)} requests, "
          f"{len(during)} during the ingestion or the 30 s after, {len(failed)} failed; "
          f"slowest {max(r['seconds'] for _, r in results):.1f} s; {json.dumps(reasons)}",
          flush=True)
    if ingest.returncode:
        print(ingest.stderr[-2000:])
    print(f"   ingest said: {ingest.stdout.strip()[:300]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=49)
    parser.add_argument("--docs", type=Path, default=FASTAPI, help="the folder copied")
    parser.add_argument("--old", default=OLD_REV)
    parser.add_argument("--data", type=Path, help="keep (and reuse) the store here")
    parser.add_argument("--old-too", action="store_true", help="re-ingest under the old code too")
    parser.add_argument("--skip-startup", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docent-scale-") as name:
        tmp = Path(name)
        data = args.data or tmp / "data"
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", name], input=archive, check=True)
        old = tmp / "src"
        folder = build(args.docs, data, args.copies)
        if not args.skip_startup:
            startup(data, old)
        reingest_under_traffic(data, folder, None, "new")
        if args.old_too:
            reingest_under_traffic(data, folder, old, "old")


if __name__ == "__main__":
    main()
