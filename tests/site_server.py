"""A generated docs site served on 127.0.0.1 for crawl tests: sitemaps, robots.txt,
ETag/Last-Modified with 304s, and a record of every request and of the most in flight."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LAST_MODIFIED = "Wed, 01 May 2024 10:00:00 GMT"


def page(title: str, body: str) -> str:
    """A built page with the chrome a docs theme puts around its content."""
    return (
        f"<!doctype html><html><head><title>{title} | Lantern</title></head><body>"
        "<nav class='navbar'><a href='/'>Lantern</a><a href='/blog/'>Blog</a></nav>"
        "<aside class='sidebar'><ul><li><a href='/docs/install'>Install</a></li></ul></aside>"
        f"<main><article><h1>{title}</h1>{body}</article>"
        "<nav class='pagination-nav'><a href='/'>Previous</a></nav></main>"
        "<footer>Copyright 2024 Lantern. Built with a static site generator.</footer>"
        "</body></html>"
    )


@dataclass
class Site:
    """What the server serves (mutable between crawls) and what it saw."""

    pages: dict[str, str | bytes]  # path -> HTML (bytes: sent as they are)
    types: dict[str, str] = field(default_factory=dict)  # path -> content type, if not UTF-8 HTML
    unlisted: list[str] = field(default_factory=list)  # in the sitemap, answered 404
    elsewhere: list[str] = field(default_factory=list)  # in the sitemap, on another site
    robots: str = "User-agent: *\nDisallow: /private/\n"
    robots_status: int = 200
    delay: float = 0.0  # seconds each page takes to answer
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    base: str = ""

    def sitemap(self) -> str:
        urls = "".join(f"<url><loc>{self.base}{path}</loc></url>"
                       for path in [*self.pages, *self.unlisted])
        urls += "".join(f"<url><loc>{url}</loc></url>" for url in self.elsewhere)
        return ('<?xml version="1.0" encoding="UTF-8"?>'
                f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>')

    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]


@contextmanager
def serve_site(pages: dict[str, str | bytes], **kw: object) -> Iterator[Site]:
    """Serve `pages` (plus /robots.txt, /sitemap.xml, an index, /sitemap-docs.xml) on a
    free 127.0.0.1 port."""
    site = Site(pages=dict(pages), **kw)  # type: ignore[arg-type]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            with site.lock:
                site.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                site.in_flight += 1
                site.most_in_flight = max(site.most_in_flight, site.in_flight)
            try:
                self._answer()
            finally:
                with site.lock:
                    site.in_flight -= 1

        def _answer(self) -> None:
            if self.path == "/robots.txt":
                return self._send(site.robots_status, site.robots, "text/plain")
            if self.path == "/sitemap.xml":
                index = ('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/'
                         f'schemas/sitemap/0.9"><sitemap><loc>{site.base}/sitemap-docs.xml</loc>'
                         "</sitemap><sitemap><loc>https://elsewhere.invalid/sitemap.xml</loc>"
                         "</sitemap></sitemapindex>")
                return self._send(200, index, "application/xml")
            if self.path == "/sitemap-docs.xml":
                return self._send(200, site.sitemap(), "application/xml")
            if self.path == "/old-name":
                self.send_response(301)
                self.send_header("location", "/docs/install")
                self.send_header("content-length", "0")
                self.end_headers()
                return None
            body = site.pages.get(self.path)
            if body is None:
                return self._send(404, "not found", "text/plain")
            time.sleep(site.delay)
            data = body if isinstance(body, bytes) else body.encode()
            etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
            if self.headers.get("if-none-match") == etag:
                self.send_response(304)
                self.send_header("etag", etag)
                self.end_headers()
                return None
            return self._send(200, data, site.types.get(self.path, "text/html; charset=utf-8"),
                              {"etag": etag, "last-modified": LAST_MODIFIED})

        def _send(self, status: int, text: str | bytes, kind: str,
                  extra: dict[str, str] | None = None) -> None:
            data = text if isinstance(text, bytes) else text.encode()
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
