"""Routes serving the chat page, the widget script, the demo page and their assets.

Everything comes from package data (`static/`), nothing from another host, so the chat
works offline. The API itself (`/chat`, `/chat/stream`) lives in `docent.api.app`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

router = APIRouter(include_in_schema=False)

_TYPES = {
    "html": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
}
_NAME = re.compile(r"^[a-z][a-z0-9-]*\.(html|css|js)$")
# What /static/{name} serves: the pages' own stylesheets and script. The pages themselves
# only through their routes, which carry their headers (the chat page's CSP).
STATIC_FILES = frozenset({"chat.css", "chat.js", "demo.css"})
# The page runs only our own script and talks only to its own origin: even if an answer
# ever carried markup, the browser would refuse to run it. /demo stands for a docs site
# with no such policy, so the browser tests there exercise the renderer alone.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
_NO_CACHE = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


@lru_cache(maxsize=16)
def _read(name: str) -> bytes:
    return (files("docent.web") / "static" / name).read_bytes()


def _asset(name: str, headers: dict[str, str] | None = None) -> Response:
    match = _NAME.match(name)
    if match is None:
        raise HTTPException(404)
    try:
        body = _read(name)
    except (FileNotFoundError, IsADirectoryError):
        raise HTTPException(404) from None
    return Response(
        body, media_type=_TYPES[match.group(1)], headers={**_NO_CACHE, **(headers or {})}
    )


@router.get("/")
async def chat_page() -> Response:
    """The chat page."""
    return _asset("index.html", {"Content-Security-Policy": PAGE_CSP})


@router.get("/demo")
async def demo_page() -> Response:
    """A sample docs page carrying the widget's script tag."""
    return _asset("demo.html")


@router.get("/widget.js")
async def widget_script() -> Response:
    """The chat core and the widget in one script, for one tag on any docs page."""
    body = _read("chat.js") + b"\n" + _read("widget.js")
    return Response(body, media_type=_TYPES["js"], headers=_NO_CACHE)


@router.get("/static/{name}")
async def static_asset(name: str) -> Response:
    """The pages' stylesheets and script (`STATIC_FILES`); anything else is 404."""
    if name not in STATIC_FILES:
        raise HTTPException(404)
    return _asset(name)
