"""The `docent` command: ingest, ask, serve."""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import os
import re
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from docent.config import ConfigError, Settings, describe, get_settings, make_data_dir
from docent.counted import counted


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="docent", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_ingest = sub.add_parser(
        "ingest", help="index a folder of docs (.md, .mdx, .rst, .html) or a site's sitemap")
    p_ingest.add_argument("path", nargs="?", help="a folder, a file or https://site/sitemap.xml "
                          "(default: DOCENT_DOCS_PATH)")
    p_ingest.add_argument("--reset", action="store_true", help="rebuild the index from scratch")
    p_ingest.add_argument("--quiet", action="store_true", help="no progress bar")

    p_ask = sub.add_parser("ask", help="ask one question and stream the answer")
    p_ask.add_argument("question", help="the question; - reads it from standard input")

    p_serve = sub.add_parser("serve", help="run the HTTP API")
    p_serve.add_argument("--host", default=None, help="default: DOCENT_HOST (127.0.0.1)")
    p_serve.add_argument("--port", type=_port, default=None, help="default: DOCENT_PORT (8000)")
    p_serve.add_argument("--workers", type=int, default=1,
                         help="server processes sharing the port (default 1; see docs)")

    sub.add_parser("config", help="print the effective settings, secrets masked")

    p_eval = sub.add_parser("eval", help="score retrieval and answers on a question set")
    p_eval.add_argument("--docs", type=Path, required=True, help="folder of markdown docs")
    p_eval.add_argument("--qa", type=Path, required=True, help="questions, one JSON a line")
    p_eval.add_argument("--followups", type=Path,
                        help="conversations of two or more turns, the last scored (JSONL)")
    p_eval.add_argument("--k", type=_top_k, default=5,
                        help="passages per search, 1 to 20 as a request's top_k (default 5)")
    p_eval.add_argument("--out", type=Path, help="write the JSON report here")
    p_eval.add_argument("--collection", help="default: eval-<parent>-<folder> of --docs")

    p_gaps = sub.add_parser("gaps", help="group the questions the docs could not answer")
    p_gaps.add_argument("--log", type=Path, help="default: DOCENT_GAP_LOG")
    p_gaps.add_argument("--threshold", type=_similarity, default=0.7,
                        help="cosine similarity, 0 to 1, that puts two questions in one group "
                             "(default 0.7)")

    args = parser.parse_args(argv)
    try:
        settings = get_settings()
        logging.basicConfig(level=settings.log_level, format="%(levelname)s %(name)s: %(message)s")
        if args.command in ("ingest", "ask", "serve", "eval"):  # the commands keeping data
            make_data_dir(settings)
        if args.command == "ingest":
            return _ingest(settings, args.path, args.reset, not args.quiet)
        if args.command == "ask":
            return asyncio.run(_ask(settings, args.question))
        if args.command == "serve":
            return _serve(settings, args.host, args.port, args.workers)
        if args.command == "eval":
            return _eval(settings, args)
        if args.command == "gaps":
            return _gaps(settings, args.log, args.threshold)
        return _config(settings)
    except ConfigError as exc:
        print(f"docent {args.command}: {exc}", file=sys.stderr)  # noqa: T201
        return 2
    except BrokenPipeError:  # `docent config | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _ingest(settings: Settings, path: str | None, reset: bool, progress: bool) -> int:
    import time

    from docent.crawl import CrawlError, crawl, is_url, mirror_dir
    from docent.ingest import IngestError, IngestReport, ingest_path
    from docent.ingest_status import IngestStatus, publish
    from docent.retrieval.store import EmbeddingMismatchError
    from docent.state.client import shared_state

    def log(line: str) -> None:
        if progress:
            print(line, file=sys.stderr, flush=True)  # noqa: T201

    # The servers' /metrics show this run's progress (docent.ingest_status).
    shared, started = shared_state(settings), time.time()
    publish(settings, IngestStatus(started=started), shared)
    report: IngestReport | None = None
    if path is not None and (problem := _not_a_site(path)):
        print(f"docent ingest: {problem}", file=sys.stderr)  # noqa: T201
        return 1
    try:
        if path is not None and is_url(path):
            mirror = mirror_dir(settings.data_dir, path)
            crawled = crawl(path, mirror, concurrency=settings.crawl_concurrency, log=log)
            print(crawled.summary())  # noqa: T201
            report = ingest_path(mirror, settings, reset=reset, progress=progress,
                                 page_urls=crawled.urls)
        else:
            report = ingest_path(Path(path) if path else settings.docs_path, settings,
                                 reset=reset, progress=progress)
    except (IngestError, EmbeddingMismatchError, CrawlError) as exc:
        print(f"docent ingest: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    finally:
        publish(settings, IngestStatus.ended(started, report), shared)
    print(report.summary())  # noqa: T201
    # One file named alone and skipped ("report.pdf"): nothing was ingested, say so to a
    # script too. A folder with some files skipped still succeeded.
    return 1 if path is not None and Path(path).is_file() and report.skipped else 0


async def _ask(settings: Settings, question: str) -> int:
    from docent.blank import is_blank
    from docent.chat import ChatTurn, stream_chat
    from docent.runtime import build_runtime

    if question == "-":  # `docent ask - < question.txt`: quotes and backticks need no escaping
        question = sys.stdin.read()
    if is_blank(question):  # as /chat refuses it (HTTP 400 EMPTY_QUERY)
        print("docent ask: the question is empty; give it as an argument, or `-` to read it "  # noqa: T201
              "from standard input", file=sys.stderr)
        return 2
    if len(question) > settings.max_message_chars:  # as /chat refuses it (QUERY_TOO_LONG)
        print(f"docent ask: the question is {len(question)} characters long; the longest "  # noqa: T201
              f"is {settings.max_message_chars} (DOCENT_MAX_MESSAGE_CHARS)", file=sys.stderr)
        return 2
    runtime = build_runtime(settings)
    try:
        if runtime.nothing_indexed():
            print("docent ask: nothing is indexed yet, so every answer would be the refusal; "  # noqa: T201
                  "run `docent ingest <folder>` first, with the same DOCENT_DATA_DIR",
                  file=sys.stderr)
            return 1
        await print_stream(stream_chat(runtime, ChatTurn(message=question)), sys.stdout)
    finally:
        runtime.close()
        if runtime.shared is not None:
            await runtime.shared.aclose()
    return 0


async def print_stream(events: AsyncIterator[tuple[str, dict]], out: TextIO) -> None:
    """The answer as it streams, then its sources and exit reason."""
    streamed = ""
    async for event, data in events:
        if event == "on_chat_model_stream":
            out.write(data["content"])
            out.flush()
            streamed += data["content"]
        elif event == "on_chain_end":
            # The final text is authoritative (citations checked, guards applied): show it
            # when its words differ from what streamed. Spacing the clean-up tidied
            # ("value :" -> "value:") is not worth a second copy of the answer.
            if _words(data["response"]) != _words(streamed):
                out.write(("\n\n---\n" if streamed else "") + data["response"])
            out.write("\n\nSources:\n" if data["sources"] else "\n\nSources: none\n")
            for s in data["sources"]:
                where = s["section_title"] or s["title"]
                link = f" <{s['page_url']}>" if s["page_url"] else ""
                out.write(f"  [{s['n']}] {s['source_file']} — {where}{link}\n")
            out.write(f"Exit reason: {data['exit_reason']}\n")


def _words(text: str) -> str:
    return "".join(text.split())


def _in_range(kind: Callable[[str], float], low: int, high: int,
              what: str) -> Callable[[str], float]:
    """An argparse type: `kind` of the value, `low` to `high`, else a usage error."""

    def parse(value: str) -> float:
        try:
            number = kind(value)
        except ValueError:
            number = math.nan
        if not low <= number <= high:  # (NaN too)
            raise argparse.ArgumentTypeError(f"must be {what} from {low} to {high}, got {value!r}")
        return number

    return parse


# `--port` as DOCENT_PORT takes it; `docent eval --k` as a request's `top_k`; `docent gaps
# --threshold`, a cosine similarity from 0 (anything goes together) to 1 (only the same).
_port = _in_range(int, 1, 65535, "a port number")
_top_k = _in_range(int, 1, 20, "a whole number")
_similarity = _in_range(float, 0, 1, "a number")


def _not_a_site(path: str) -> str | None:
    """Why an ingest argument that looks like a web address cannot be crawled: another
    scheme than http(s) ("ftp://..."), or none where no such folder exists
    ("docs.example.com/sitemap.xml"); None otherwise."""
    from docent.crawl import is_url

    scheme, sep, _ = path.partition("://")
    if sep and scheme.isalpha():
        return None if is_url(path) else (
            f"cannot crawl {path}: docent crawls a sitemap over http:// or https://")
    if _SITE_LIKE.match(path) and not Path(path).exists():
        return (f"docs path not found: {path}; to crawl a site, give its sitemap's address "
                f"with https://, such as https://{path}")
    return None


# "docs.example.com/sitemap.xml": a host name and a path, no scheme
_SITE_LIKE = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?/", re.I)


def _serve(settings: Settings, host: str | None, port: int | None, workers: int = 1) -> int:
    from docent.api.app import create_app
    from docent.api.server import AnnouncingServer, server_config
    from docent.api.workers import (
        bound_socket,
        reserve_port,
        serve_workers,
        spreads_connections,
    )
    from docent.logs import configure_logging
    from docent.runtime import build_runtime

    if workers < 1:
        print("docent serve: --workers must be 1 or more", file=sys.stderr)  # noqa: T201
        return 2
    if workers > 1 and not spreads_connections():
        print("docent serve: --workers needs Linux, where the workers' sockets share the "  # noqa: T201
              "port's connections; run one docent serve per port instead", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    host, port = host or settings.host, settings.port if port is None else port
    try:  # the port first: a busy one fails at once, before the index and model load
        sock = bound_socket(host, port) if workers == 1 else reserve_port(host, port)
    except OSError as exc:
        print(f"docent serve: cannot listen on {host}:{port}: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    if workers > 1:
        with sock, _multiprocess_metrics():
            return serve_workers(workers, host, sock.getsockname()[1])
    with sock:
        app = create_app(settings, build_runtime)
        server = AnnouncingServer(server_config(app, settings, host, port))
        try:
            server.run(sockets=[sock])  # uvicorn listens once the app has started
        except KeyboardInterrupt:
            # Ctrl+C: uvicorn finished what it was answering, then raised the signal again
            # for the default handler, whose KeyboardInterrupt would print a traceback.
            return 130  # 128 + SIGINT, as a shell reports a command Ctrl+C stopped
    return 0 if server.started else 1


@contextmanager
def _multiprocess_metrics() -> Iterator[None]:
    """prometheus-client's multiprocess mode for the workers: each writes its counters to
    files in one fresh directory, and a scrape of any worker sums them all. The variable is
    prometheus-client's own, read by each worker at import; an operator's own is kept."""
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        yield
        return
    path = tempfile.mkdtemp(prefix="docent-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    try:
        yield
    finally:
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]
        shutil.rmtree(path, ignore_errors=True)


def _eval(settings: Settings, args: argparse.Namespace) -> int:
    from docent.evaluation.harness import EvalConfig, run_eval
    from docent.evaluation.report import question_header, question_line, totals_table, write_json
    from docent.ingest import IngestError

    out, err = sys.stdout, sys.stderr
    for path in (args.qa, args.followups):
        if path is not None and not path.is_file():
            err.write(f"docent eval: question file not found: {path}\n")
            return 1
    if args.out is not None and (problem := _unwritable(args.out)):
        # before the run: a report that cannot be written at its end would be lost
        err.write(f"docent eval: cannot write the report to {args.out}: {problem}\n")
        return 1
    config = EvalConfig(docs=args.docs, qa=args.qa, followups=args.followups, k=args.k,
                        collection=args.collection)

    header = [question_header()]  # printed with the first question, not before an error

    def show(kind: str, record: dict) -> None:
        if header:
            out.write(header.pop() + "\n")
        out.write(question_line(kind, record) + "\n")
        out.flush()

    try:
        report = run_eval(settings, config, on_record=show)
    except (IngestError, ValueError) as exc:
        err.write(f"docent eval: {exc}\n")
        return 1
    cfg = report["config"]
    title = f"\n{args.docs} ({cfg['collection']}, {cfg['model']}, k={args.k})"
    out.write(totals_table(report["summary"], title) + "\n")
    ing = report["ingest"]
    out.write(f"ingestion: {counted(ing['files_seen'], 'file')} ({ing['added']} added, "
              f"{ing['updated']} updated, {ing['unchanged']} unchanged, {ing['skipped']} "
              f"skipped), {counted(ing['chunks'], 'chunk')}, {ing['seconds']:.1f} s\n")
    for warning in report["warnings"]:
        err.write(f"warning: {warning}\n")
    if args.out:
        try:
            write_json(report, args.out)
        except OSError as exc:
            err.write(f"docent eval: cannot write the report to {args.out}: {exc.strerror}\n")
            return 1
        out.write(f"report written to {args.out}\n")
    return 0


def _unwritable(path: Path) -> str | None:
    """Why a report file cannot be written at `path`, creating its folder; None when it can."""
    if path.is_dir():
        return f"it is a folder; name a file in it, such as {path / 'report.json'}"
    above = next((p for p in path.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        return f"{above} is a file, not a folder"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _gaps(settings: Settings, log: Path | None, threshold: float) -> int:
    from docent.gaps import group_gaps, read_gaps
    from docent.retrieval.embeddings import MiniLMEmbedder

    log = log or settings.gap_log
    if log is None:
        print("docent gaps: no gap log; set DOCENT_GAP_LOG (off by default: it keeps "  # noqa: T201
              "user questions) or pass --log", file=sys.stderr)
        return 1
    if not log.exists():
        print(f"docent gaps: {log} does not exist yet: no refused questions", file=sys.stderr)  # noqa: T201
        return 1
    try:
        questions, unread = read_gaps(log)
    except (OSError, ValueError) as exc:
        print(f"docent gaps: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    if unread:
        shown = ", ".join(map(str, unread[:5])) + (", ..." if len(unread) > 5 else "")
        print(f"docent gaps: skipped {counted(len(unread), 'line')} of {log} that "  # noqa: T201
              f"{'holds' if len(unread) == 1 else 'hold'} no question (line {shown})",
              file=sys.stderr)
    groups = group_gaps(questions, MiniLMEmbedder(), threshold)
    print(f"{counted(len(questions), 'refused question')} in {counted(len(groups), 'group')}")  # noqa: T201
    for g in groups:
        print(f"{g.count:5}  {g.example}")  # noqa: T201
        for other in g.questions[1:4]:
            print(f"       · {other}")  # noqa: T201
    return 0


def _config(settings: Settings) -> int:
    width = max(len(k) for k in describe(settings))
    for key, value in describe(settings).items():
        print(f"{key:<{width}}  {value}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
