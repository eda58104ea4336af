"""Ingestion speed and memory, this tree against an older commit, run A-B-B-A.

    .venv/bin/python bench/ingest_bench.py fresh [--old REV] [--docs DIR]
    .venv/bin/python bench/ingest_bench.py bigfile [--mb 5] [--with-old] [--old REV]

- `fresh`: the FastAPI docs (`../shared/eval/fastapi/docs`) ingested into an empty data
  dir by the old code and by this tree, alternating old, new, new, old; chunks/s and the
  peak RSS of each run's process. Then, in each of those stores, one line of
  `release-notes.md` changed and the folder ingested again, in the same order: seconds of
  `ingest_path`, and of the whole process (start-up and model load included).
- `bigfile`: one markdown file of `--mb` megabytes (the FastAPI docs repeated, headings
  numbered) ingested with stderr piped, not a terminal: seconds, peak RSS, and the progress
  lines it printed.

Each run is a child process (`--child`), so peak RSS is its own; the old code is the
`src/` of `--old` (default: the merge before issue 14) from `git archive`, on this venv.
The machine is shared: compare runs of one invocation, never absolute times across them;
the load average is printed with each run. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FASTAPI = ROOT.parent / "shared" / "eval" / "fastapi" / "docs"
OLD_REV = "13eb3d1"


def child(spec: dict[str, Any]) -> None:
    """One ingestion in this process; prints its figures as JSON on stdout's last line."""
    from docent.config import load_settings
    from docent.ingest import ingest_path

    settings = load_settings(data_dir=spec["data_dir"])
    started = time.perf_counter()
    report = ingest_path(spec["docs"], settings, progress=spec.get("progress", False))
    seconds = time.perf_counter() - started
    print(json.dumps({
        "seconds": round(seconds, 2), "chunks_written": report.chunks_written,
        "total_chunks": report.total_chunks,
        "maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }))


def run(code: Path | None, docs: Path, data_dir: Path, progress: bool = False) -> dict[str, Any]:
    """Ingest `docs` into `data_dir` in a child process, with the old code when `code`."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    load = os.getloadavg()[0]
    spec = json.dumps({"docs": str(docs), "data_dir": str(data_dir), "progress": progress})
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", spec], env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"child failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out.update(process_seconds=round(wall, 2), load=round(load, 2),
               stderr_lines=[ln for ln in proc.stderr.splitlines() if ln.startswith("ingest:")])
    if out["seconds"]:
        out["chunks_per_s"] = round(out["chunks_written"] / out["seconds"], 2)
    return out


def old_code(rev: str, into: Path) -> Path:
    """The `src/` of `rev`, extracted under `into`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def show(label: str, result: dict[str, Any]) -> None:
    lines = result.pop("stderr_lines", [])
    print(f"{label:10} {json.dumps(result)}", flush=True)
    if lines:
        print(f"{'':10} {len(lines)} progress lines; first and last:\n{'':10} {lines[0]}\n"
              f"{'':10} {lines[-1]}", flush=True)


def fresh_and_edit(old: Path, docs: Path, tmp: Path) -> None:
    """Fresh ingests old, new, new, old; then in each store one line of release-notes.md
    changed and the folder ingested again, in the same order."""
    order = [("old", old), ("new", None), ("new", None), ("old", old)]
    for n, (label, code) in enumerate(order):
        shutil.copytree(docs, tmp / f"docs-{n}")
        show(f"{label} fresh", run(code, tmp / f"docs-{n}", tmp / f"data-{n}"))
    for n, (label, code) in enumerate(order):
        notes = tmp / f"docs-{n}" / "release-notes.md"
        lines = notes.read_text(encoding="utf-8").split("\n")
        k = next(i for i in range(len(lines) // 2, len(lines)) if len(lines[i].split()) > 6)
        lines[k] = lines[k] + " (edited)"
        notes.write_text("\n".join(lines), encoding="utf-8")
        show(f"{label} edit", run(code, tmp / f"docs-{n}", tmp / f"data-{n}"))


def bigfile(old: Path, docs: Path, tmp: Path, mb: float, with_old: bool) -> None:
    parts, size, n = [], 0, 0
    files = sorted(docs.rglob("*.md"))
    while size < mb * 1024 * 1024:
        text = files[n % len(files)].read_text(encoding="utf-8")
        # Numbered headings, so repeats are other sections, not identical chunks.
        text = re.sub(r"^(#{1,6} .*)$", rf"\1 ({n})", text, flags=re.MULTILINE)
        parts.append(text)
        size += len(text.encode())
        n += 1
    big = tmp / "big" / "big.md"
    big.parent.mkdir()
    big.write_text("\n\n".join(parts), encoding="utf-8")
    print(f"big.md: {big.stat().st_size / 1e6:.1f} MB from {n} pages", flush=True)
    runs = [("old", old), ("new", None)] if with_old else [("new", None)]
    for label, code in runs:
        show(label, run(code, big.parent, tmp / f"big-{label}", progress=True))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["fresh", "bigfile"])
    parser.add_argument("--old", default=OLD_REV, help="the commit to compare with")
    parser.add_argument("--docs", type=Path, default=FASTAPI)
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--with-old", action="store_true", help="bigfile: run the old code too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docent-ingest-bench-") as name:
        tmp = Path(name)
        (tmp / "old").mkdir()
        old = old_code(args.old, tmp / "old")
        print(f"{args.what}: new = this tree, old = {args.old}; {os.cpu_count()} cores", flush=True)
        if args.what == "fresh":
            fresh_and_edit(old, args.docs, tmp)
        else:
            bigfile(old, args.docs, tmp, args.mb, args.with_old)


if __name__ == "__main__":
    main()
