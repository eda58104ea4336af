"""The widget on the /demo docs page (issue 4): one script tag, a shadow-DOM panel isolated
from the host page's CSS, and "Ask about this" sending the selection as selected_text."""

from __future__ import annotations

import pytest

from tests.web.conftest import SKIP_MESSAGE, stream_requests

expect = pytest.importorskip("playwright.sync_api", reason=SKIP_MESSAGE).expect

pytestmark = pytest.mark.browser

SELECT = """(text) => {
  const p = [...document.querySelectorAll('main p')].find((el) => el.textContent.includes(text));
  const node = p.firstChild;
  const start = node.textContent.indexOf(text);
  const range = document.createRange();
  range.setStart(node, start);
  range.setEnd(node, start + text.length);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
}"""


def test_widget_opens_an_isolated_panel_that_answers(page, docs_server):
    page.goto(docs_server + "/demo")
    launcher = page.locator("#docent-widget button.dcw-launcher")
    expect(launcher).to_be_visible()
    assert page.evaluate("!!document.getElementById('docent-widget').shadowRoot")
    # The host page styles every <button> in magenta italics; ours stay untouched.
    assert launcher.evaluate("b => getComputedStyle(b).fontStyle") == "normal"
    assert page.locator("button.site-button").evaluate(
        "b => getComputedStyle(b).fontStyle") == "italic"

    launcher.click()
    panel = page.locator(".dcw-panel")
    expect(panel).to_be_visible()
    assert launcher.get_attribute("aria-expanded") == "true"
    assert page.evaluate(  # focus moved into the panel's question box
        "document.getElementById('docent-widget').shadowRoot.activeElement.tagName"
    ) == "TEXTAREA"
    page.keyboard.type("How do I change the tool-call limit?")
    page.keyboard.press("Enter")
    turn = panel.locator("article.dc-turn[data-state=done]")
    turn.wait_for()
    assert turn.get_attribute("data-exit") == "COMPLETED"
    assert turn.locator(".dc-body h2").count() == 1
    turn.locator("a.cite").first.click()  # works inside the shadow root too
    assert page.evaluate(
        "document.getElementById('docent-widget').shadowRoot.activeElement.tagName") == "LI"

    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    assert launcher.get_attribute("aria-expanded") == "false"


def test_ask_about_this_sends_the_selection(page, docs_server):
    bodies = stream_requests(page)
    page.goto(docs_server + "/demo")
    ask_this = page.locator("button.dcw-ask")
    expect(ask_this).to_be_hidden()
    selection = "Sessions expire after thirty minutes without activity."
    page.evaluate(SELECT, selection)
    expect(ask_this).to_be_visible()

    ask_this.click()
    panel = page.locator(".dcw-panel")
    expect(panel).to_be_visible()
    expect(panel.locator(".dc-chip")).to_contain_text("Sessions expire")
    assert panel.locator("textarea").input_value() == "Explain this"
    page.keyboard.press("Enter")  # the prefilled question is selected: Enter sends it
    panel.locator("article.dc-turn[data-state=done]").wait_for()
    assert bodies[-1]["selected_text"] == selection
    assert bodies[-1]["message"] == "Explain this"
    assert panel.locator(".dc-quote").inner_text() == selection
    expect(panel.locator(".dc-chip")).to_be_hidden()  # the selection went with that question


def test_widget_fills_a_phone_screen(page, docs_server):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(docs_server + "/demo")
    page.click("button.dcw-launcher")
    box = page.locator(".dcw-panel").bounding_box()
    assert box == {"x": 0, "y": 0, "width": 390, "height": 844}
    page.click("button.dc-close")
    expect(page.locator(".dcw-panel")).to_be_hidden()
    expect(page.locator("button.dcw-launcher")).to_be_visible()


def test_widget_works_from_a_docs_site_on_another_origin(page, docs_server, foreign_site):
    foreign_site.page = (
        "<!doctype html><title>Docs</title><p>Sessions expire after thirty minutes.</p>"
        f'<script src="{docs_server}/widget.js" data-api="{docs_server}"></script>')
    page.goto(foreign_site.url + "/guide/")
    page.click("button.dcw-launcher")
    page.keyboard.type("When does a session expire?")
    page.keyboard.press("Enter")
    turn = page.locator(".dcw-panel article.dc-turn[data-state=done]")
    turn.wait_for()
    assert turn.get_attribute("data-exit") == "COMPLETED"  # CORS let the answer through


def test_closing_the_widget_clears_the_conversation(page, docs_server):
    """CONTRACT.md §7: no history is kept anywhere, not even in the page after a close."""
    bodies = stream_requests(page)
    page.goto(docs_server + "/demo")
    launcher = page.locator("button.dcw-launcher")
    launcher.click()
    page.keyboard.type("How do I change the tool-call limit?")
    page.keyboard.press("Enter")
    panel = page.locator(".dcw-panel")
    panel.locator("article.dc-turn[data-state=done]").wait_for()
    page.keyboard.type("And the turn limit?")
    page.keyboard.press("Enter")
    expect(panel.locator("article.dc-turn[data-state=done]")).to_have_count(2)
    assert bodies[-1].get("session_id")  # the follow-up continued the conversation

    page.click("button.dc-close")
    expect(panel).to_be_hidden()
    launcher.click()
    expect(panel.locator("article.dc-turn")).to_have_count(0)
    page.keyboard.type("How do I change the tool-call limit?")
    page.keyboard.press("Enter")
    panel.locator("article.dc-turn[data-state=done]").wait_for()
    assert "session_id" not in bodies[-1]  # a new conversation, not the old session
