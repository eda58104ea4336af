"""Browser-test fixtures: real docent servers on 127.0.0.1 and Debian's headless Chromium.

Two servers per session: one with the extractive model over a tiny ingested corpus (the
product as shipped), one around scripted fakes where a failure or a slow answer must be
forced. Tests skip with a message when Chromium or Playwright is missing.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from docent.agent.graph import build_graph
from docent.api.app import create_app
from docent.config import Settings, load_settings
from docent.runtime import Runtime
from tests.fakes import GUIDE, FakeRetriever, PacedChatModel
from tests.live import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
SKIP_MESSAGE = (
    "browser tests need Debian's Chromium and Playwright for Python: install chromium "
    "and playwright: see README (apt-get install -y chromium; pip install playwright)"
)
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
XSS_SENTENCE = "The pwned banner option shows a warning"

DOCS = {
    "configuration.md": """# Configuration

## Changing the tool-call limit

The tool-call limit caps how many searches the agent runs in one answer. Set
`DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3.

```bash
export DOCENT_MAX_TOOL_CALLS=5
```

## Changing the turn limit

The turn limit caps model calls per run. Set `DOCENT_MAX_TURNS` to change the turn
limit; the default is 6.

## Sessions

Sessions keep the last turns of a conversation in memory. A session expires after
thirty minutes without activity.
""",
    "security.md": f"""# Security

## Pwned banner

{XSS_SENTENCE} <script>window.__pwned=1</script> on every page of the site.
The pwned banner option also renders <img src=x onerror="window.__pwned=1"> an icon
and a [pwned banner link](javascript:window.__pwned=1) in the footer.
""",
}


class ForeignSite:
    """A docs site on another origin (its own port), serving `page` at every path."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        site = self
        self.page = "<!doctype html><title>empty</title>"

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
                body = site.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _app(settings: Settings, runtime: Runtime | None = None) -> FastAPI:
    if runtime is None:
        from docent.runtime import build_runtime

        app = create_app(settings, build_runtime)
    else:
        app = create_app(settings, lambda _s: runtime)
    return app


@pytest.fixture(scope="package")
def playwright_browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(SKIP_MESSAGE)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(SKIP_MESSAGE)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(playwright_browser: Any) -> Iterator[Any]:
    """A fresh page (its own context: no shared state) that fails the test on JS errors."""
    context = playwright_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(10_000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture(scope="package")
def foreign_site() -> Iterator[ForeignSite]:
    site = ForeignSite()
    yield site
    site.httpd.shutdown()
    site.httpd.server_close()


@pytest.fixture(scope="package")
def docs_server(tmp_path_factory: pytest.TempPathFactory, playwright_browser: Any,
                foreign_site: ForeignSite) -> Iterator[str]:
    """docent as shipped (extractive model, real store) over the DOCS corpus."""
    from docent.ingest import ingest_path

    root = tmp_path_factory.mktemp("web")
    docs = root / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    settings = load_settings(
        _env_file=None, data_dir=root / "data", llm_provider="extractive",
        rate_limit_enabled=False, docs_base_url="https://docs.example.test/",
        cors_origins=[foreign_site.url],
    )
    ingest_path(docs, settings, progress=False)
    with LiveServer(_app(settings), settings) as server:
        yield server.url
    shutil.rmtree(root, ignore_errors=True)


@dataclass
class FakeServer:
    url: str
    model: PacedChatModel


@pytest.fixture(scope="package")
def fake_server(tmp_path_factory: pytest.TempPathFactory, playwright_browser: Any,
                ) -> Iterator[FakeServer]:
    """docent around a scripted model: each test sets `model.steps` (and `delay`)."""
    settings = load_settings(
        _env_file=None, data_dir=tmp_path_factory.mktemp("fake-data"), llm_retries=0,
        rate_limit_enabled=False, llm_cache_size=0, retrieval_cache_size=0,
        retry_max_wait_seconds=0,
        llm_breaker_cooldown_seconds=0,  # each test scripts its own failures: none carries over
    )
    model = PacedChatModel()
    retriever = FakeRetriever(chunks=list(GUIDE))
    graph = build_graph(model, retriever, settings)
    runtime = Runtime(settings=settings, graph=graph, retriever=retriever, model_id="scripted")
    with LiveServer(_app(settings, runtime), settings) as server:
        yield FakeServer(server.url, model)


@pytest.fixture
def fake(fake_server: FakeServer) -> Iterator[FakeServer]:
    fake_server.model.steps.clear()
    fake_server.model.emitted.clear()
    fake_server.model.delay = 0.0
    yield fake_server
    fake_server.model.delay = 0.0


def stream_requests(page: Any) -> list[dict[str, Any]]:
    """The JSON bodies of every POST /chat/stream the page sends, appended as they go."""
    bodies: list[dict[str, Any]] = []
    page.on("request", lambda r: r.url.endswith("/chat/stream") and bodies.append(
        json.loads(r.post_data or "{}")))
    return bodies
