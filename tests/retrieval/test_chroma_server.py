"""Ingest and search through a Chroma server (`chroma_url`), as several API replicas would."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docent.config import load_settings
from docent.ingest import ingest_path
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import open_store
from tests.retrieval.conftest import FakeEmbedder, write_docs

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def chroma_url(tmp_path):
    cli = Path(sys.executable).with_name("chroma")
    if not cli.exists() and not shutil.which("chroma"):
        pytest.skip("chroma CLI not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [str(cli if cli.exists() else "chroma"), "run", "--host", "127.0.0.1",
         "--port", str(port), "--path", str(tmp_path / "server")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.skip("chroma server did not start within 30 s")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_two_replicas_share_one_server_and_see_reingestion(tmp_path, chroma_url):
    settings = load_settings(data_dir=tmp_path / "data", chroma_url=chroma_url)
    embedder = FakeEmbedder()
    docs = write_docs(tmp_path / "docs", {"a.md": "# Alpha\n\nAlpha talks about caching.\n"})
    ingest_path(docs, settings, embedder=embedder, progress=False)
    replica = HybridRetriever(open_store(settings, embedder), embedder, settings)
    assert replica.search("caching", 3)[0].chunk.source_file == "a.md"
    assert not (tmp_path / "data" / "chroma").exists()  # nothing went to the embedded store
    write_docs(docs, {"b.md": "# Beta\n\nBeta explains XYZZY_TIMEOUT.\n"})
    report = ingest_path(docs, settings, embedder=embedder, progress=False)
    assert report.added == 1 and report.unchanged == 1
    assert replica.search("XYZZY_TIMEOUT", 3)[0].chunk.source_file == "b.md"
