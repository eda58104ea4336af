"""The web routes (issue 4): the page, the widget script, the demo and static assets are
served by docent itself from package data, with nothing loaded from another host."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from docent.web import router
from docent.web.routes import PAGE_CSP


@pytest.fixture
def client() -> TestClient:
    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def test_page_is_html_with_a_strict_content_security_policy(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == PAGE_CSP
    assert "script-src 'self'" in PAGE_CSP and "unsafe-inline" not in PAGE_CSP
    assert 'src="static/chat.js"' in r.text and "data-docent-chat" in r.text


def test_widget_script_is_the_chat_core_and_the_widget(client):
    r = client.get("/widget.js")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert "window.DocentChat = " in r.text and "attachShadow" in r.text
    assert r.text.index("window.DocentChat = ") < r.text.index("attachShadow")


def test_demo_page_carries_the_widget_tag(client):
    r = client.get("/demo")
    assert r.status_code == 200 and '<script src="widget.js"' in r.text


@pytest.mark.parametrize("name", ["chat.css", "chat.js", "demo.css"])
def test_static_assets_are_served(client, name):
    r = client.get(f"/static/{name}")
    assert r.status_code == 200 and r.content


# The pages come only from their routes (the chat page with its CSP), never from /static.
@pytest.mark.parametrize("name", ["nope.js", "..%2Froutes.py", "chat.py", "CHAT.JS",
                                  "index.html", "demo.html", "widget.js"])
def test_unknown_assets_are_404(client, name):
    assert client.get(f"/static/{name}").status_code == 404


@pytest.mark.parametrize("path", ["/", "/demo", "/widget.js", "/static/chat.css",
                                  "/static/chat.js", "/static/demo.css"])
def test_nothing_is_loaded_from_another_host(client, path):
    # No absolute URL in src/href/url()/@import/fetch; comments and the demo's <pre>
    # (the example tag, shown as text) are not code.
    text = _code(client.get(path).text)
    loads = re.findall(r"""(?:src|href)\s*=\s*["'](?:https?:)?//|url\(\s*["']?(?:https?:)?//"""
                       r"""|@import|fetch\(\s*["']https?:""", text)
    assert loads == []


def test_no_storage_or_cookies_in_the_chat_code(client):
    js = _code(client.get("/widget.js").text)
    assert not re.search(r"localStorage|sessionStorage|document\.cookie|EventSource", js)


def _code(text: str) -> str:
    return re.sub(r"/\*.*?\*/|<pre>.*?</pre>", "", text, flags=re.DOTALL)
