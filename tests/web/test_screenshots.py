"""Screenshots of the page and the widget at phone and desktop widths, light and dark.

Not an assertion: pictures for a person to look at. Runs only when DOCENT_SCREENSHOTS
names a folder (keep it outside the repository, e.g. /tmp/docent-shots).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
QUESTION = "How do I change the tool-call limit?"


@pytest.fixture
def shots_dir() -> Path:
    folder = os.environ.get("DOCENT_SCREENSHOTS")
    if not folder:
        pytest.skip("set DOCENT_SCREENSHOTS=/tmp/docent-shots to take screenshots")
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_screenshots(playwright_browser, docs_server, shots_dir, size, scheme):
    width, height = SIZES[size]
    context = playwright_browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme,
        device_scale_factor=1)
    page = context.new_page()
    page.goto(docs_server + "/")
    page.screenshot(path=shots_dir / f"page-empty-{size}-{scheme}.png")
    page.fill("textarea", QUESTION)
    page.keyboard.press("Enter")
    page.locator("article.dc-turn[data-state=done]").wait_for()
    page.fill("textarea", "What is the default turn limit?")
    page.keyboard.press("Enter")
    page.locator("article.dc-turn[data-state=done]").nth(1).wait_for()
    page.locator("article.dc-turn").first.locator("a.cite").first.click()
    page.screenshot(path=shots_dir / f"page-answer-{size}-{scheme}.png")

    page.goto(docs_server + "/demo")
    page.evaluate("""() => {
      const p = [...document.querySelectorAll('main p')][2];
      const r = document.createRange(); r.selectNodeContents(p.querySelector('code'));
      getSelection().removeAllRanges(); getSelection().addRange(r);
    }""")
    page.locator("button.dcw-ask").wait_for()
    page.screenshot(path=shots_dir / f"demo-select-{size}-{scheme}.png")
    page.click("button.dcw-ask")
    page.keyboard.press("Enter")
    page.locator(".dcw-panel article.dc-turn[data-state=done]").wait_for()
    page.screenshot(path=shots_dir / f"demo-widget-{size}-{scheme}.png")
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_failure_and_streaming_states(playwright_browser, fake, shots_dir,
                                                     scheme):
    from langchain_core.exceptions import ModelRateLimitError
    from langchain_core.messages import AIMessage

    from tests.fakes import call

    context = playwright_browser.new_context(viewport={"width": 390, "height": 844},
                                             color_scheme=scheme)
    page = context.new_page()
    fake.model.steps[:] = [ModelRateLimitError("429"), call("tool-call limit"),
                           AIMessage("Set `DOCENT_MAX_TOOL_CALLS` [1]. " + "More words " * 30)]
    page.goto(fake.url + "/")
    page.fill("textarea", QUESTION)
    page.keyboard.press("Enter")
    page.locator("article.dc-turn[data-state=done]").wait_for()
    fake.model.delay = 0.05
    page.get_by_role("button", name="Try again").click()
    page.locator("article.dc-turn .dc-body").filter(has_text="More words More").wait_for()
    page.screenshot(path=shots_dir / f"fake-streaming-phone-{scheme}.png")
    page.click("button.dc-stop")
    page.locator("article.dc-turn[data-state=stopped]").wait_for()
    fake.model.steps[:] = [ModelRateLimitError("429")]
    page.fill("textarea", "And the turn limit?")
    page.keyboard.press("Enter")
    page.locator("article.dc-turn[data-exit=RATE_LIMITED]").wait_for()
    page.screenshot(path=shots_dir / f"fake-stopped-and-failed-phone-{scheme}.png")
    context.close()
