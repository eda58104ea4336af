"""CONTRACT.md §5, `/docs`: Swagger UI renders offline, from assets docent serves itself."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_swagger_ui_renders_with_no_request_to_another_host(page: Any, fake: Any) -> None:
    foreign: list[str] = []

    def only_local(route: Any) -> None:
        if route.request.url.startswith(fake.url):
            route.continue_()
        else:  # what an offline machine gets: nothing
            foreign.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(f"{fake.url}/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert {"/chat", "/chat/stream", "/health", "/ready"} <= {p.strip() for p in paths}
    assert page.locator(".swagger-ui .info .title").inner_text().startswith("docent")
    assert foreign == []
