"""`docent ingest https://site/sitemap.xml`: a docs site crawled into a local mirror.

The sitemap (or sitemap index) names the pages; only pages of the sitemap's own origin that
its robots.txt allows are fetched, a few at a time (`DOCENT_CRAWL_CONCURRENCY`; one at a
time, spaced, when robots.txt sets a crawl delay). Each page is saved under
`<data_dir>/sites/<host>/` at its URL's path, where ordinary incremental ingestion picks it
up; the ETag and Last-Modified of each page are kept, so a re-crawl asks "changed since?"
and a page answered 304 costs nothing, neither transfer nor embedding. A page that is gone
(404, 410, or no longer in the sitemap) is removed from the mirror; one that fails for
another reason keeps its last copy. Redirects are followed within the site only. A page
served in a legacy charset (`Content-Type: text/html; charset=iso-8859-1`) is saved as UTF-8.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import posixpath
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit
from urllib.robotparser import RobotFileParser

from docent.counted import counted
from docent.formats.charset import decode, header_charset

USER_AGENT = "docent (docs crawler)"
STATE_FILE = ".crawl-state.json"
MAX_PAGE_BYTES = 10 * 1024 * 1024
MAX_SITEMAP_BYTES = 50 * 1024 * 1024  # the sitemap protocol's own limit, uncompressed
MAX_PAGES = 50_000
_SITEMAP_DEPTH = 3  # sitemap index -> sitemap -> pages, and one level to spare
_REDIRECTS = 5
_PAGE_TYPES = {"text/html": ".html", "application/xhtml+xml": ".html", "text/markdown": ".md"}


class CrawlError(Exception):
    """The crawl cannot start (no sitemap, robots.txt forbids it); meant for the user."""


@dataclass
class CrawlReport:
    """What one crawl did."""

    sitemap: str
    mirror: Path
    pages: int = 0  # URLs in the sitemap, on the site
    fetched: int = 0  # 200: new or changed
    not_modified: int = 0  # 304
    removed: int = 0  # gone from the site or the sitemap
    not_found: list[str] = field(default_factory=list)  # listed, but 404 or 410
    off_site: list[str] = field(default_factory=list)  # listed, on another site: left out
    disallowed: list[str] = field(default_factory=list)  # by robots.txt
    failed: list[tuple[str, str]] = field(default_factory=list)  # (url, why): last copy kept
    urls: dict[str, str] = field(default_factory=dict)  # mirror path -> page URL
    seconds: float = 0.0

    def summary(self) -> str:
        """One paragraph for the terminal."""
        text = (
            f"Crawled {self.sitemap}: {counted(self.pages, 'page')}, {self.fetched} fetched, "
            f"{self.not_modified} not modified, {self.removed} removed, "
            f"{len(self.disallowed)} disallowed by robots.txt, {len(self.failed)} failed, "
            f"{len(self.not_found)} not found; {self.seconds:.1f} s."
        )
        if self.failed:
            text += " Failed (an earlier copy, if any, is kept): " + "; ".join(
                f"{url} ({why})" for url, why in self.failed[:20]) + "."
        if self.not_found:
            text += " Not found (HTTP 404 or 410; listed in the sitemap): " + "; ".join(
                self.not_found[:20]) + "."
        if self.off_site:
            text += (f" Left out: {counted(len(self.off_site), 'page')} of another site, such "
                     f"as {self.off_site[0]}; docent crawls only the sitemap's own site.")
        return text


def is_url(text: str) -> bool:
    """Whether an ingest argument names a site rather than a folder."""
    return urlsplit(str(text)).scheme in ("http", "https")


def mirror_dir(data_dir: Path, sitemap_url: str) -> Path:
    """Where the pages of the sitemap's site are kept."""
    parts = urlsplit(sitemap_url)
    host = (parts.hostname or "site") + (f"_{parts.port}" if parts.port else "")
    return data_dir / "sites" / host


def crawl(
    sitemap_url: str, mirror: Path, *, concurrency: int = 4, timeout: float = 30.0,
    log: Callable[[str], None] = lambda line: None,
) -> CrawlReport:
    """Bring `mirror` in step with the site's sitemap (see the module docstring)."""
    started = time.perf_counter()
    report = CrawlReport(sitemap=sitemap_url, mirror=mirror)
    asyncio.run(_crawl(sitemap_url, mirror, report, concurrency, timeout, log))
    report.seconds = time.perf_counter() - started
    return report


async def _crawl(
    sitemap_url: str, mirror: Path, report: CrawlReport, concurrency: int, timeout: float,
    log: Callable[[str], None],
) -> None:
    import httpx

    origin = _origin(sitemap_url)
    state_path = mirror / STATE_FILE
    state: dict[str, dict[str, str]] = _read_state(state_path)
    async with httpx.AsyncClient(
        timeout=timeout, headers={"User-Agent": USER_AGENT}, follow_redirects=False,
    ) as client:
        robots = await _robots(client, origin)
        if not robots.can_fetch(USER_AGENT, sitemap_url):
            raise CrawlError(f"robots.txt of {origin} does not allow fetching {sitemap_url}")
        delay = robots.crawl_delay(USER_AGENT)
        pages = await _sitemap_pages(client, sitemap_url, origin, report)
        if not pages and report.off_site:
            raise CrawlError(
                f"the sitemap {sitemap_url} lists {counted(len(report.off_site), 'page')}, "
                f"none on {origin}, such as {report.off_site[0]}: docent crawls only the "
                "sitemap's own site, so give the address of the sitemap on the pages' site "
                f"({_origin(report.off_site[0])}/...)")
        allowed = []
        for url in pages:
            if robots.can_fetch(USER_AGENT, url):
                allowed.append(url)
            else:
                report.disallowed.append(url)
        log(f"crawl: {len(allowed)} pages to check on {origin}")
        limit = asyncio.Semaphore(1 if delay else max(concurrency, 1))
        new_state: dict[str, dict[str, str]] = {}

        async def one(url: str) -> None:
            async with limit:
                await _fetch_page(client, url, origin, mirror, state.get(url), new_state, report)
                if delay:
                    await asyncio.sleep(float(delay))

        await asyncio.gather(*(one(url) for url in allowed))
    # Pages no longer listed (or now disallowed) leave the mirror with their state.
    for url, entry in state.items():
        if url not in new_state:
            if _remove(mirror, entry.get("path", "")):
                report.removed += 1
    mirror.mkdir(parents=True, exist_ok=True)
    state_path.write_text(json.dumps(new_state, indent=1, sort_keys=True), encoding="utf-8")
    report.urls = {entry["path"]: url for url, entry in new_state.items()}


async def _fetch_page(
    client: Any, url: str, origin: str, mirror: Path, previous: dict[str, str] | None,
    new_state: dict[str, dict[str, str]], report: CrawlReport,
) -> None:
    headers = {}
    if previous and (mirror / previous.get("path", "")).is_file():
        if previous.get("etag"):
            headers["If-None-Match"] = previous["etag"]
        if previous.get("last_modified"):
            headers["If-Modified-Since"] = previous["last_modified"]
    try:
        response, body = await _get(client, url, origin, headers, MAX_PAGE_BYTES)
    except _Skip as exc:
        report.failed.append((url, str(exc)))
        if previous:  # content unknown: keep the last copy
            new_state[url] = previous
        return
    if response.status_code == 304 and previous:
        report.not_modified += 1
        new_state[url] = previous
        return
    if response.status_code in (404, 410):
        report.not_found.append(url)
        return  # gone: its last copy is removed with the pages no longer listed
    if response.status_code != 200:
        report.failed.append((url, f"HTTP {response.status_code}"))
        if previous:
            new_state[url] = previous
        return
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    suffix = _PAGE_TYPES.get(kind)
    path = _mirror_path(url, suffix) if suffix else None
    if path is None:
        report.failed.append((url, f"not a page ({kind or 'no content type'})"))
        return
    target = mirror / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if previous and previous.get("path") not in (None, path):
        _remove(mirror, previous["path"])
    target.write_bytes(_as_utf8(body, response.headers.get("content-type", "")))
    report.fetched += 1
    new_state[url] = {"path": path, "etag": response.headers.get("etag", ""),
                      "last_modified": response.headers.get("last-modified", "")}


def _as_utf8(body: bytes, content_type: str) -> bytes:
    """The page in UTF-8, as the mirror keeps it: the charset the HTTP header declares is
    lost once the page is a file (a page's own `<meta charset>` is read at ingestion)."""
    try:
        return decode(body, header_charset(content_type)).encode("utf-8")
    except UnicodeDecodeError:  # neither UTF-8 nor declared: ingestion says so
        return body


class _Skip(Exception):
    """A URL that could not be fetched; the message says why."""


async def _get(
    client: Any, url: str, origin: str, headers: dict[str, str], max_bytes: int
) -> tuple[Any, bytes]:
    """GET with same-site redirects and a size cap; `_Skip` on failure."""
    import httpx

    for _ in range(_REDIRECTS + 1):
        try:
            async with client.stream("GET", url, headers=headers) as response:
                if response.has_redirect_location:
                    target = urljoin(url, response.headers.get("location", ""))
                    if _origin(target) != origin:
                        raise _Skip(f"redirected off the site to {target}")
                    url = target
                    continue
                body = bytearray()
                async for part in response.aiter_bytes():
                    body += part
                    if len(body) > max_bytes:
                        raise _Skip(f"larger than {max_bytes // (1024 * 1024)} MB")
                return response, bytes(body)
        except httpx.HTTPError as exc:
            # "ConnectError: [Errno 111] Connection refused": the kind, and what the OS said
            detail = " ".join(str(exc).split())[:200]
            why = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
            raise _Skip(why) from None
    raise _Skip("too many redirects")


async def _robots(client: Any, origin: str) -> RobotFileParser:
    """The site's robots.txt rules: none is "allow all", a 401/403 "disallow all"; a server
    error stops the crawl (CrawlError)."""
    robots = RobotFileParser(origin + "/robots.txt")
    try:
        response, body = await _get(client, origin + "/robots.txt", origin, {}, 512 * 1024)
    except _Skip:
        robots.parse([])
        return robots
    if response.status_code >= 500:  # RFC 9309: unreachable rules mean "disallow all"
        raise CrawlError(f"robots.txt of {origin} answered HTTP {response.status_code}: docent "
                         "does not crawl a site whose rules it cannot read; try again later")
    if response.status_code in (401, 403):
        robots.parse(["User-agent: *", "Disallow: /"])
    elif response.status_code == 200:
        robots.parse(body.decode("utf-8", "replace").splitlines())
    else:
        robots.parse([])
    return robots


async def _sitemap_pages(
    client: Any, url: str, origin: str, report: CrawlReport, depth: int = 0
) -> list[str]:
    """Page URLs of a sitemap or sitemap index on `origin`, in order, without repeats."""
    try:
        response, body = await _get(client, url, origin, {}, MAX_SITEMAP_BYTES)
    except _Skip as exc:
        raise CrawlError(f"could not fetch the sitemap {url}: {exc}") from None
    if response.status_code != 200:
        raise CrawlError(f"could not fetch the sitemap {url}: HTTP {response.status_code}")
    if body[:2] == b"\x1f\x8b":  # sitemap.xml.gz
        body = gzip.GzipFile(fileobj=io.BytesIO(body)).read(MAX_SITEMAP_BYTES + 1)
        if len(body) > MAX_SITEMAP_BYTES:
            raise CrawlError(f"the sitemap {url} is larger than the protocol allows")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise CrawlError(f"the sitemap {url} is not valid XML ({exc})") from None
    tag = root.tag.rsplit("}", 1)[-1]
    locs = [
        (el.text or "").strip() for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "loc"
    ]
    pages: list[str] = []
    if tag == "sitemapindex":
        if depth >= _SITEMAP_DEPTH:
            return []
        for loc in locs:
            if _origin(loc) == origin:
                pages += await _sitemap_pages(client, loc, origin, report, depth + 1)
    else:
        pages = [loc.split("#")[0] for loc in locs if loc and _origin(loc) == origin]
        report.off_site += [loc for loc in locs if loc and _origin(loc) != origin]
    unique = list(dict.fromkeys(pages))[:MAX_PAGES]
    if depth == 0:
        report.pages = len(unique)
    return unique


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _mirror_path(url: str, suffix: str) -> str | None:
    """The mirror's relative path for a page: its URL path, `index.html` for a folder,
    the page type's suffix added when missing. None for a path that would leave the
    mirror or hide in a dot-folder."""
    path = posixpath.normpath("/" + unquote(urlsplit(url).path)).lstrip("/")
    if urlsplit(url).path.endswith("/") or not path:
        path = posixpath.join(path, "index" + suffix)
    elif not path.lower().endswith((suffix, ".htm") if suffix == ".html" else (suffix,)):
        path = posixpath.join(path, "index" + suffix)
    parts = path.split("/")
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        return None
    return path


def _remove(mirror: Path, path: str) -> bool:
    target = (mirror / path) if path else None
    if target is None or not target.is_file():
        return False
    target.unlink()
    return True


def _read_state(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

