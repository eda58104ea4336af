"""`docent ask` output: the streamed answer, the final one only when its words differ."""

from __future__ import annotations

import asyncio
import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from docent.cli import main, print_stream
from tests.serve_process import docent_env, ingested_env, run_docent


def _printed(streamed: list[str], final: str) -> str:
    async def events():
        for token in streamed:
            yield "on_chat_model_stream", {"content": token}
        yield "on_chain_end", {
            "response": final,
            "sources": [{"n": 1, "source_file": "guide.md", "section_title": "Limits",
                         "title": "Guide", "page_url": None}],
            "exit_reason": "COMPLETED",
        }

    out = io.StringIO()
    asyncio.run(print_stream(events(), out))
    return out.getvalue()


def test_answer_printed_once_when_only_spacing_was_tidied():
    text = _printed(["Set `DOCENT_MAX_TOOL_CALLS` :", " the default is 4 [1]."],
                    "Set `DOCENT_MAX_TOOL_CALLS`: the default is 4 [1].")
    assert text.count("default is 4") == 1
    assert "---" not in text
    assert "[1] guide.md — Limits" in text and text.endswith("Exit reason: COMPLETED\n")


def test_final_answer_follows_when_its_words_changed():
    text = _printed(["The limit is set in chunk_0123456789abcdef [1] [7]."],
                    "The limit is set in [1].")
    streamed, _, final = text.partition("\n\n---\n")
    assert "chunk_0123456789abcdef" in streamed
    assert final.startswith("The limit is set in [1].")


def test_answer_that_never_streamed_is_printed():
    text = _printed([], "I don't have enough information.")
    assert text.startswith("I don't have enough information.") and "---" not in text


def test_output_cut_short_by_the_reader_is_no_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "DOCENT_DATA_DIR": str(tmp_path)}
    out = subprocess.run(f'"{sys.executable}" -m docent.cli config | head -1', shell=True,
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr


@pytest.mark.slow
def test_serve_with_workers_runs_that_many_processes_on_one_port(tmp_path):
    """`docent serve --workers 2`: two server processes, each with its own runtime, one port."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "limits.md").write_text("# Limits\n\nSet `DOCENT_MAX_TOOL_CALLS` to change the "
                                    "tool-call limit; the default is 3.\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")},
           "DOCENT_DATA_DIR": str(tmp_path / "data"), "DOCENT_LOG_LEVEL": "WARNING"}
    subprocess.run([sys.executable, "-m", "docent.cli", "ingest", str(docs), "--quiet"],
                   env=env, check=True, capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "docent.cli", "serve", "--port", str(port), "--workers", "2"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                if httpx.get(url + "/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            pytest.fail("docent serve --workers 2 never became ready")
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        assert len(children) >= 2  # uvicorn's workers (and its own helper process, if any)
        answer = httpx.post(url + "/chat", json={"message": "How do I change the tool-call limit?"},
                            timeout=60).json()
        assert answer["exit_reason"] == "COMPLETED" and "DOCENT_MAX_TOOL_CALLS" in answer["response"]
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_serve_refuses_zero_workers(capsys):
    assert main(["serve", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_serve_refuses_workers_where_sockets_cannot_share_a_port(monkeypatch, capsys):
    """Off Linux, SO_REUSEPORT does not spread connections (docent/api/workers.py)."""
    monkeypatch.setattr("docent.api.workers.spreads_connections", lambda: False)
    assert main(["serve", "--workers", "2"]) == 2
    assert "--workers needs Linux" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "message"), [
    *((["serve", "--port", port], "--port: must be a port number from 1 to 65535")
      for port in ("99999", "0", "http")),
    # `docent eval --k` as a request's top_k
    *((["eval", "--docs", "docs", "--qa", "qa.jsonl", "--k", k],
       "--k: must be a whole number from 1 to 20") for k in ("0", "21", "five")),
    # `docent gaps --threshold`, a cosine similarity
    *((["gaps", "--threshold", threshold], "--threshold: must be a number from 0 to 1")
      for threshold in ("5", "-0.1", "high")),
])
def test_a_number_option_out_of_its_range_is_a_usage_error(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_serve_on_a_busy_port_stops_before_loading_anything(monkeypatch, capsys):
    """docs/deployment.md: a second server on a port in use stops at once, one process or
    several; it used to load the index and model first, then fail with uvicorn's error."""
    def loads(*_args, **_kwargs):
        raise AssertionError("the app was built before the port was checked")

    monkeypatch.setattr("docent.api.app.create_app", loads)
    # (docent serve's logging setup would keep this test's captured stderr past its end)
    monkeypatch.setattr("docent.logs.configure_logging", lambda level: None)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 1
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_a_file_named_alone_and_skipped_fails_the_ingestion(tmp_path):
    env = docent_env(DOCENT_DATA_DIR=str(tmp_path / "data"))
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4\n\xe2\xe3\xcf\xd3\n")
    (tmp_path / "notes.txt").write_text("# Notes\n\nPlain text is read as markdown.\n")
    pdf = run_docent(env, "ingest", str(tmp_path / "report.pdf"), "--quiet", check=False)
    assert pdf.returncode == 1 and "Skipped: report.pdf (not UTF-8 text" in pdf.stdout
    assert "Traceback" not in pdf.stderr
    assert run_docent(env, "ingest", str(tmp_path / "notes.txt"), "--quiet").returncode == 0


def test_ask_on_an_empty_index_says_to_ingest_first(tmp_path):
    env = docent_env(DOCENT_DATA_DIR=str(tmp_path / "data"))
    out = run_docent(env, "ask", "How do I change the port?", check=False)
    assert out.returncode == 1
    assert "nothing is indexed yet" in out.stderr and "docent ingest" in out.stderr
    assert out.stdout == "" and "Traceback" not in out.stderr


def test_ask_reads_a_dash_from_stdin_and_refuses_what_chat_would(tmp_path):
    env = ingested_env(tmp_path)
    out = run_docent(env, "ask", "-", stdin="What is the `tool-call` limit?\n")
    assert "the default is 3" in out.stdout and "Exit reason: COMPLETED" in out.stdout
    long = run_docent(env, "ask", "word " * 2001, check=False)  # /chat: QUERY_TOO_LONG
    assert long.returncode == 2 and long.stdout == ""
    assert long.stderr == ("docent ask: the question is 10005 characters long; the longest is "
                           "10000 (DOCENT_MAX_MESSAGE_CHARS)\n")
    for empty in ("", " \u200b\n"):  # /chat: HTTP 400 EMPTY_QUERY
        blank = run_docent(env, "ask", "-", stdin=empty, check=False)
        assert blank.returncode == 2 and blank.stdout == ""
        assert blank.stderr == ("docent ask: the question is empty; give it as an argument, or "
                                "`-` to read it from standard input\n")


@pytest.mark.parametrize("command", [["ask", "How do I change the port?"], ["ingest", "docs"],
                                     ["serve", "--port", "8799"],
                                     ["eval", "--docs", "docs", "--qa", "qa.jsonl"]])
@pytest.mark.parametrize(("where", "reason"), [("data", "a file is there"),
                                               ("data/sub", "Not a directory")])
def test_a_data_dir_that_cannot_be_a_folder_is_named_before_anything_loads(
    tmp_path, command, where, reason
):
    (tmp_path / "data").write_text("not a folder")  # a file where the data dir should be
    env = docent_env(DOCENT_DATA_DIR=str(tmp_path / where))
    out = run_docent(env, *command, check=False, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"docent {command[0]}: DOCENT_DATA_DIR {tmp_path / where} cannot be "
                          f"used as the data folder: {reason}\n")


@pytest.mark.parametrize(("address", "message"), [
    ("docs.example.com/sitemap.xml", "docs path not found: docs.example.com/sitemap.xml; to "
     "crawl a site, give its sitemap's address with https://, such as "
     "https://docs.example.com/sitemap.xml"),
    ("ftp://example.com/sitemap.xml", "cannot crawl ftp://example.com/sitemap.xml: docent "
     "crawls a sitemap over http:// or https://"),
])
def test_ingest_says_how_to_give_a_site_it_cannot_crawl(address, message, tmp_path,
                                                         monkeypatch, capsys):
    from docent.config import get_settings

    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        assert main(["ingest", address]) == 1
    finally:
        get_settings.cache_clear()
    assert capsys.readouterr().err == f"docent ingest: {message}\n"


@pytest.mark.parametrize("where", ["folder", "file/report.json"])
def test_eval_refuses_a_report_path_it_could_not_write_before_running(where, tmp_path,
                                                                     monkeypatch, capsys):
    from docent.config import get_settings

    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("a file")
    qa = tmp_path / "qa.jsonl"
    qa.write_text('{"id": "q-1", "question": "What is a widget?"}\n')
    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    try:
        assert main(["eval", "--docs", str(tmp_path / "docs"), "--qa", str(qa),
                     "--out", str(tmp_path / where)]) == 1
    finally:
        get_settings.cache_clear()
    why = (f"it is a folder; name a file in it, such as {tmp_path / 'folder' / 'report.json'}"
           if where == "folder" else f"{tmp_path / 'file'} is a file, not a folder")
    assert capsys.readouterr().err == (
        f"docent eval: cannot write the report to {tmp_path / where}: {why}\n")
