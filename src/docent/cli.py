"""The `docent` command: ingest, ask, serve."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from docent.config import ConfigError, Settings, describe, get_settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="docent", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_ingest = sub.add_parser("ingest", help="index a folder of markdown docs")
    p_ingest.add_argument("path", nargs="?", type=Path, help="default: DOCENT_DOCS_PATH")
    p_ingest.add_argument("--reset", action="store_true", help="rebuild the index from scratch")
    p_ingest.add_argument("--quiet", action="store_true", help="no progress bar")

    p_ask = sub.add_parser("ask", help="ask one question and stream the answer")
    p_ask.add_argument("question")

    p_serve = sub.add_parser("serve", help="run the HTTP API")
    p_serve.add_argument("--host", default=None, help="default: DOCENT_HOST (127.0.0.1)")
    p_serve.add_argument("--port", type=int, default=None, help="default: DOCENT_PORT (8000)")

    sub.add_parser("config", help="print the effective settings, secrets masked")

    args = parser.parse_args(argv)
    try:
        settings = get_settings()
        logging.basicConfig(level=settings.log_level, format="%(levelname)s %(name)s: %(message)s")
        if args.command == "ingest":
            return _ingest(settings, args.path, args.reset, not args.quiet)
        if args.command == "ask":
            return asyncio.run(_ask(settings, args.question))
        if args.command == "serve":
            return _serve(settings, args.host, args.port)
        return _config(settings)
    except ConfigError as exc:
        print(f"docent: {exc}", file=sys.stderr)  # noqa: T201
        return 2


def _ingest(settings: Settings, path: Path | None, reset: bool, progress: bool) -> int:
    from docent.ingest import IngestError, ingest_path

    try:
        report = ingest_path(path or settings.docs_path, settings, reset=reset, progress=progress)
    except IngestError as exc:
        print(f"docent ingest: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    print(report.summary())  # noqa: T201
    return 0


async def _ask(settings: Settings, question: str) -> int:
    from docent.chat import ChatTurn, stream_chat
    from docent.runtime import build_runtime

    runtime = build_runtime(settings)
    out = sys.stdout
    streamed = ""
    async for event, data in stream_chat(runtime, ChatTurn(message=question)):
        if event == "on_chat_model_stream":
            out.write(data["content"])
            out.flush()
            streamed += data["content"]
        elif event == "on_chain_end":
            # The final text is authoritative (citations checked, guards applied): show it
            # when it differs from what streamed.
            if data["response"].strip() != streamed.strip():
                out.write(("\n\n---\n" if streamed else "") + data["response"])
            out.write("\n\nSources:\n" if data["sources"] else "\n\nSources: none\n")
            for s in data["sources"]:
                where = s["section_title"] or s["title"]
                link = f" <{s['page_url']}>" if s["page_url"] else ""
                out.write(f"  [{s['n']}] {s['source_file']} — {where}{link}\n")
            out.write(f"Exit reason: {data['exit_reason']}\n")
    return 0


def _serve(settings: Settings, host: str | None, port: int | None) -> int:
    import uvicorn

    from docent.api.app import create_app
    from docent.runtime import build_runtime

    app = create_app(lambda: build_runtime(settings))
    uvicorn.run(app, host=host or settings.host, port=port or settings.port,
                log_level=settings.log_level.lower())
    return 0


def _config(settings: Settings) -> int:
    width = max(len(k) for k in describe(settings))
    for key, value in describe(settings).items():
        print(f"{key:<{width}}  {value}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
