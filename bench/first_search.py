"""Retrieval first, measured both ways: the graph searches the question before the first
model call (`DOCENT_FIRST_SEARCH=search`), or the first model call is forced to search
through `tool_choice` (`DOCENT_FIRST_SEARCH=tool`).

For each question and configuration: exit reason, model calls (turns), searches, whether
the answer carries the fact the docs give (a keyword), and the latency of `run_chat`.

    .venv/bin/python bench/first_search.py                  # the extractive model
    .venv/bin/python bench/first_search.py --llama PYTHON --gguf FILE
                                                            # + a real model (Gemma 3 270M)

The real model runs behind llama-cpp-python's OpenAI-compatible server, started here on a
free 127.0.0.1 port. Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docent.chat import ChatTurn, run_chat  # noqa: E402
from docent.config import load_settings  # noqa: E402
from docent.ingest import ingest_path  # noqa: E402
from docent.runtime import build_runtime  # noqa: E402
from tests.live import free_port, wait_until_up  # noqa: E402
from tests.small_corpus import DOCS  # noqa: E402

QUESTIONS = {  # question -> the fact its answer must carry
    "How do I change the tool-call limit?": "DOCENT_MAX_TOOL_CALLS",
    "What is the default turn limit?": "6",
    "When does a session expire?": "30 minutes",
    "How often does the stream send a ping?": "15 seconds",
}


async def measure(name: str, settings: Any) -> list[dict[str, Any]]:
    runtime = build_runtime(settings)
    rows = []
    for question, fact in QUESTIONS.items():
        began = time.perf_counter()
        out = await run_chat(runtime, ChatTurn(message=question))
        rows.append({
            "config": name, "question": question, "exit_reason": out["exit_reason"],
            "turns": out["metadata"]["turns"], "searches": out["metadata"]["tool_calls"],
            "grounded": fact in out["response"], "seconds": time.perf_counter() - began,
            "answer": out["response"][:160],
        })
    return rows


def report(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        print(f"{row['config']:28} {row['exit_reason']:23} turns={row['turns']} "
              f"searches={row['searches']} fact={'yes' if row['grounded'] else 'no ':3} "
              f"{row['seconds']:6.1f} s  {row['question']}\n    {row['answer']!r}")
    by: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault(row["config"], []).append(row)
    print("\nconfig                       completed  fact  model calls  median s")
    for name, group in by.items():
        done = sum(r["exit_reason"] == "COMPLETED" for r in group)
        facts = sum(r["grounded"] for r in group)
        calls = sum(r["turns"] for r in group)
        median = statistics.median(r["seconds"] for r in group)
        print(f"{name:28} {done}/{len(group):<8} {facts}/{len(group):<3} {calls:<12} {median:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama", help="a python with llama-cpp-python[server]")
    parser.add_argument("--gguf", help="the GGUF model file")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="docent-first-search-"))
    (work / "docs").mkdir()
    for name, text in DOCS.items():
        (work / "docs" / name).write_text(text, encoding="utf-8")
    base = dict(_env_file=None, data_dir=work / "data", llm_cache_size=0, top_k=2)
    ingest_path(work / "docs", load_settings(**base), progress=False)

    rows = []
    for mode in ("search", "tool"):
        settings = load_settings(**base, llm_provider="extractive", first_search=mode)
        rows += asyncio.run(measure(f"extractive first={mode}", settings))
    if args.llama and args.gguf:
        port = free_port()
        server = subprocess.Popen(
            [args.llama, "-m", "llama_cpp.server", "--model", args.gguf, "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "4096", "--n_threads", "2",
             "--model_alias", "gemma"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_until_up(f"{url}/models", server, "llama-cpp-python's server")
            real = dict(base, llm_providers="openai", openai_base_url=url, openai_model="gemma",
                        llm_max_output_tokens=48, llm_timeout_seconds=240)
            configs = {
                "gemma first=search as-text": dict(first_search="search", openai_tools=False),
                "gemma first=search tools": dict(first_search="search", openai_tools=True),
                "gemma first=tool (forced)": dict(first_search="tool", openai_tools=True),
            }
            for name, extra in configs.items():
                rows += asyncio.run(measure(name, load_settings(**real, **extra)))
        finally:
            server.terminate()
            server.wait(30)
    report(rows)


if __name__ == "__main__":
    main()
