"""The chat page at / in headless Chromium (issue 4): streaming, rendering, sources, exit
reasons, cached answers, sessions, stop, keyboard; CONTRACT.md §5 and §6 from a browser."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from langchain_core.exceptions import ModelRateLimitError
from langchain_core.messages import AIMessage

from tests.fakes import call
from tests.web.conftest import SKIP_MESSAGE, XSS_SENTENCE, FakeServer, stream_requests

expect = pytest.importorskip("playwright.sync_api", reason=SKIP_MESSAGE).expect

pytestmark = pytest.mark.browser

QUESTION = "How do I change the tool-call limit?"
# Records every text the status line and the answer body show, in order, so a test can
# tell what a user saw between two assertions (e.g. no streamed text before a cached answer).
WATCH = """
window.__seen = [];
new MutationObserver((records) => {
  for (const r of records) {
    const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    const part = t && t.closest && t.closest('.dc-status, .dc-body');
    if (!part) continue;
    const kind = part.className.split(' ')[0];
    if (kind === 'dc-body') window.__seen.push([kind, part.textContent]);
    // a status may change twice before this runs: record each text it was given
    else for (const n of r.addedNodes) window.__seen.push([kind, n.textContent]);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def ask(page: Any, question: str = QUESTION) -> Any:
    page.fill("textarea", question)
    page.keyboard.press("Enter")
    turn = page.locator("article.dc-turn").last
    turn.locator(".dc-body[aria-busy=false]").wait_for()
    return turn


def test_answer_streams_in_then_renders_markdown_with_working_citations(page, docs_server):
    page.add_init_script(WATCH)
    page.goto(docs_server + "/")
    turn = ask(page)

    assert turn.get_attribute("data-exit") == "COMPLETED"
    assert int(turn.get_attribute("data-tokens")) > 3  # tokens arrived one by one
    seen = page.evaluate("window.__seen")
    assert ["dc-status", "Searching the docs…"] in seen
    assert any(kind == "dc-body" and "tool-call limit" in text for kind, text in seen)
    body = turn.locator(".dc-body")
    assert "dc-md" in body.get_attribute("class")  # replaced by the rendered answer
    assert body.locator("h2").count() == 1
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    copy = body.locator(".dc-code .dc-copy").first  # code blocks get a copy button
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == body.locator("pre").first.inner_text().rstrip("\n")

    cite = body.locator("a.cite").first
    n = cite.get_attribute("data-n")
    source = turn.locator(f".dc-sources li[data-n='{n}']")
    assert cite.get_attribute("href") == "#" + source.get_attribute("id")
    cite.click()
    assert page.evaluate("document.activeElement.dataset.n") == n
    assert source.locator("details").get_attribute("open") is not None  # preview opened
    link = source.locator("a").first
    assert link.get_attribute("href").startswith("https://docs.example.test/")
    assert source.locator(".dc-section").inner_text()
    assert page.locator(".dc-status:visible").count() == 0  # no spinner left behind


def test_cached_repeat_goes_straight_to_the_answer(page, docs_server):
    page.goto(docs_server + "/")
    first = ask(page, "What is the default turn limit?")
    page.click("text=New conversation")  # same question, empty history: the cache answers
    page.evaluate(WATCH)
    second = ask(page, "What is the default turn limit?")

    assert second.get_attribute("data-cached") == "true"
    assert second.get_attribute("data-tokens") == "0"
    assert second.locator(".dc-body").inner_html() == first.locator(".dc-body").inner_html()
    shown = [text for kind, text in page.evaluate("window.__seen") if kind == "dc-body" and text]
    # The body went from empty to the final answer: no streamed text flashed first.
    assert all(text == second.locator(".dc-body").text_content() for text in shown)
    assert second.locator(".dc-status").is_hidden()


def test_retryable_failure_offers_a_working_try_again(page, fake: FakeServer):
    fake.model.steps[:] = [
        ModelRateLimitError("429 quota"),
        call("tool-call limit"),
        AIMessage("Set `DOCENT_MAX_TOOL_CALLS` to change the tool-call limit [1]."),
    ]
    page.goto(fake.url + "/")
    turn = ask(page)
    assert turn.get_attribute("data-exit") == "RATE_LIMITED"
    assert "too many requests" in turn.locator(".dc-body").inner_text()

    turn.get_by_role("button", name="Try again").click()
    page.locator("article.dc-turn[data-exit=COMPLETED]").wait_for()
    assert page.locator("article.dc-turn").count() == 1  # retried in place
    assert turn.locator("a.cite").count() == 1
    assert turn.get_by_role("button", name="Try again").count() == 0


def test_stop_cancels_a_running_answer_and_the_server_run(page, fake: FakeServer):
    words = 80
    fake.model.steps[:] = [call("tool-call limit"), AIMessage("word " * words + "[1].")]
    fake.model.delay = 0.05
    page.goto(fake.url + "/")
    page.fill("textarea", QUESTION)
    page.keyboard.press("Enter")
    body = page.locator("article.dc-turn .dc-body")
    expect(body).to_contain_text(re.compile(r"(word\s+){3}"))  # tokens are arriving
    assert page.locator("button.dc-stop").is_visible()
    assert body.get_attribute("aria-busy") == "true"

    page.click("button.dc-stop")
    page.locator("article.dc-turn[data-state=stopped]").wait_for()
    assert page.locator("article.dc-turn .dc-note").inner_text() == "Stopped."
    assert body.inner_text().startswith("word")  # the partial answer stays, greyed
    assert page.locator("button.dc-send").is_visible()
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    # The server stops generating once it sees the connection closed, a token or so after
    # the page stopped (a loaded machine emitted one more): wait for the count to settle.
    emitted = len(fake.model.emitted)
    for _ in range(10):
        time.sleep(0.2)
        if len(fake.model.emitted) == emitted:
            break
        emitted = len(fake.model.emitted)
    time.sleep(0.4)
    assert len(fake.model.emitted) == emitted < words  # the server stopped generating


def test_follow_ups_use_the_session_and_new_conversation_forgets_it(page, docs_server):
    bodies = stream_requests(page)
    page.goto(docs_server + "/")
    first = ask(page)
    ask(page, "And what is its default?")
    assert "session_id" not in bodies[0]
    session = bodies[1]["session_id"]
    assert session
    assert page.locator("article.dc-turn").count() == 2
    assert first.get_attribute("data-exit") == "COMPLETED"

    page.get_by_role("button", name="New conversation").click()
    assert page.locator("article.dc-turn").count() == 0
    assert page.locator(".dc-intro").is_visible()
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    ask(page, "What does a session keep?")
    assert "session_id" not in bodies[2]
    assert page.evaluate("document.cookie") == ""
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0


def test_keyboard_blank_input_is_never_sent_and_shift_enter_adds_a_line(page, docs_server):
    bodies = stream_requests(page)
    page.goto(docs_server + "/")
    send = page.locator("button.dc-send")
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"  # ready to type
    assert send.is_disabled()
    page.keyboard.type("   ")
    assert send.is_disabled()
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("tool-call limit?")
    assert send.is_enabled()
    assert "\n" in page.input_value("textarea")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className").find("dc-send") >= 0
    assert page.locator("article.dc-turn").count() == 0 and bodies == []


def test_rate_limited_request_shows_when_to_retry(page, docs_server):
    page.route("**/chat/stream", lambda route: route.fulfill(
        status=429, headers={"Retry-After": "2", "content-type": "application/json"},
        body=json.dumps({"error": "Too many requests.", "error_code": "RATE_LIMITED"})))
    page.goto(docs_server + "/")
    turn = ask(page)
    assert "retry in 2 s" in turn.inner_text()
    retry = turn.get_by_role("button", name="Try again")
    assert retry.is_disabled()
    page.unroute("**/chat/stream")
    expect(retry).to_be_enabled(timeout=4000)
    retry.click()
    page.locator("article.dc-turn[data-exit=COMPLETED]").wait_for()


def test_max_context_offers_a_new_conversation(page, docs_server):
    terminal = {"response": "This conversation has grown too long.", "response_html":
                "<p>This conversation has grown too long.</p>",
                "exit_reason": "MAX_CONTEXT_REACHED", "retryable": False, "sources": [],
                "session_id": "5d0c1f9e-2f6c-4c1e-9d53-0b6c8f7a1e21", "query_id": "req-1",
                "metadata": {"cached": False}}
    sse = f"id: 1\r\nevent: on_chain_end\r\ndata: {json.dumps(terminal)}\r\n\r\n"
    page.route("**/chat/stream", lambda route: route.fulfill(
        status=200, headers={"content-type": "text/event-stream"}, body=sse))
    page.goto(docs_server + "/")
    turn = ask(page, "One more question")
    assert turn.get_by_role("button", name="Try again").count() == 0
    turn.get_by_role("button", name="Start a new conversation").click()
    assert page.locator("article.dc-turn").count() == 0
    assert page.input_value("textarea") == "One more question"


def test_plain_text_fallback_without_response_html(page, docs_server):
    terminal = {"response": "## Not <b>bold</b> [1]", "exit_reason": "COMPLETED",
                "retryable": False, "sources": [], "query_id": "req-2", "metadata": {}}
    sse = f"event: on_chain_end\ndata: {json.dumps(terminal)}\n\n"
    page.route("**/chat/stream", lambda route: route.fulfill(
        status=200, headers={"content-type": "text/event-stream"}, body=sse))
    page.goto(docs_server + "/")
    turn = ask(page)
    assert turn.locator(".dc-body").inner_text() == "## Not <b>bold</b> [1]"
    assert turn.locator(".dc-body b").count() == 0


@pytest.mark.parametrize("path", ["/", "/demo"])
def test_a_document_with_script_cannot_run_it(page, docs_server, path):
    page.goto(docs_server + path)
    if path == "/demo":  # no CSP on the demo host page: the renderer alone must hold
        page.click("button.dcw-launcher")
    turn = ask(page, "What does the pwned banner option show?")
    body = turn.locator(".dc-body")
    assert XSS_SENTENCE in body.inner_text()  # the poisoned passage did reach the page
    assert "<script>" in (body.inner_text() + turn.locator(".dc-preview").first.text_content())
    assert body.locator("script, img, iframe, [onerror]").count() == 0
    assert turn.locator("a[href^='javascript' i]").count() == 0
    time.sleep(0.2)
    assert page.evaluate("typeof window.__pwned") == "undefined"
