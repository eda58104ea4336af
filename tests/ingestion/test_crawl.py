"""`docent ingest https://site/sitemap.xml` against a generated site on 127.0.0.1.

robots.txt is respected, only the sitemap's own site is fetched, a few pages at a time;
a re-crawl sends ETag/Last-Modified validators and re-ingests only what changed; pages
gone from the site or its sitemap leave the index; deep links are the pages' own URLs.
"""

from __future__ import annotations

import pytest

from docent.cli import main
from docent.config import get_settings
from docent.crawl import CrawlError, crawl, mirror_dir
from docent.ingest import ingest_path
from docent.retrieval.store import open_store
from tests.retrieval.conftest import FakeEmbedder
from tests.site_server import page, serve_site

PAGES = {
    "/docs/": page("Lantern", "<p>Lantern lights up your logs.</p>"),
    "/docs/install": page("Installing Lantern",
                          "<h2 id='linux'>On Linux</h2><p>Run apt install lantern.</p>"),
    "/docs/config.html": page("Configuring Lantern",
                              "<h2 id='cache'>Cache</h2><p>LANTERN_CACHE_DIR moves the cache.</p>"),
    "/private/roadmap.html": page("Roadmap", "<p>Secret plans.</p>"),
}


def _crawl_and_ingest(site, settings, embedder, **kw):
    mirror = mirror_dir(settings.data_dir, site.base + "/sitemap.xml")
    report = crawl(site.base + "/sitemap.xml", mirror, **kw)
    ingested = ingest_path(mirror, settings, embedder=embedder, progress=False,
                           page_urls=report.urls)
    return report, ingested


def _chunks(settings, embedder):
    return open_store(settings, embedder).all_chunks()


def test_a_site_is_crawled_with_robots_respected_and_deep_links_to_its_pages(
    data_settings, fake_embedder
):
    with serve_site(PAGES) as site:
        report, ingested = _crawl_and_ingest(site, data_settings, fake_embedder)
    assert report.pages == 4 and report.fetched == 3
    assert report.disallowed == [site.base + "/private/roadmap.html"]
    assert "/private/roadmap.html" not in site.paths()
    assert all(not p.startswith("http") for p in site.paths())  # no other site was asked
    assert ingested.added == 3
    chunks = _chunks(data_settings, fake_embedder)
    by_url = {c.page_url: c for c in chunks}
    assert set(by_url) == {
        site.base + "/docs/#lantern", site.base + "/docs/install#linux",
        site.base + "/docs/config.html#cache"}
    install = by_url[site.base + "/docs/install#linux"]
    assert (install.title, install.section_title) == ("Installing Lantern",
                                                       "Installing Lantern > On Linux")
    assert install.source_file == "docs/install/index.html"
    text = "\n".join(c.text for c in chunks)
    for chrome in ("Blog", "Previous", "Copyright", "Install\n"):
        assert chrome not in text


def test_a_recrawl_asks_what_changed_and_reingests_only_that(data_settings, fake_embedder):
    with serve_site(PAGES) as site:
        _crawl_and_ingest(site, data_settings, fake_embedder)
        site.pages["/docs/config.html"] = page(
            "Configuring Lantern", "<h2 id='cache'>Cache</h2><p>LANTERN_CACHE_LIMIT caps it.</p>")
        del site.pages["/docs/"]
        site.requests.clear()
        report, ingested = _crawl_and_ingest(site, data_settings, fake_embedder)
    conditional = {path: headers for path, headers in site.requests if path.startswith("/docs")}
    assert conditional["/docs/install"]["if-none-match"].startswith('"')
    assert conditional["/docs/install"]["if-modified-since"] == "Wed, 01 May 2024 10:00:00 GMT"
    assert (report.fetched, report.not_modified, report.removed) == (1, 1, 1)
    assert (ingested.updated, ingested.unchanged, ingested.removed) == (1, 1, 1)
    text = "\n".join(c.text for c in _chunks(data_settings, fake_embedder))
    assert "LANTERN_CACHE_LIMIT" in text and "lights up your logs" not in text


def test_a_page_in_a_legacy_charset_is_read_in_it(data_settings, fake_embedder):
    # Declared by the HTTP header only, or by the page's own <meta> only: both are read as
    # the browser reads them, and the mirror keeps UTF-8.
    header = "<html><head><title>Caf\u00e9</title></head><body><main><h1>Caf\u00e9</h1>" \
             "<p>The caf\u00e9 opens at 8.</p></main></body></html>"
    meta = "<html><head><meta charset='iso-8859-1'><title>Na\u00efve</title></head><body>" \
           "<main><h1>Na\u00efve</h1><p>Na\u00efve mode retries 4 times.</p></main></body></html>"
    pages = {"/docs/cafe.html": header.encode("latin-1"), "/docs/naive.html": meta.encode("latin-1")}
    types = {"/docs/cafe.html": "text/html; charset=ISO-8859-1", "/docs/naive.html": "text/html"}
    with serve_site(pages, types=types) as site:
        report, ingested = _crawl_and_ingest(site, data_settings, fake_embedder)
    assert report.fetched == 2 and ingested.added == 2 and not ingested.skipped
    text = "\n".join(c.text for c in _chunks(data_settings, fake_embedder))
    assert "The caf\u00e9 opens at 8." in text and "Na\u00efve mode retries 4 times." in text
    cafe = report.mirror / "docs/cafe.html"
    assert "caf\u00e9" in cafe.read_text(encoding="utf-8")


def test_a_page_that_is_no_page_is_failed_without_claiming_a_copy(data_settings):
    pages = {"/docs/ok.html": page("Ok", "<p>fine</p>"), "/docs/logo.png": b"\x89PNG"}
    with serve_site(pages, types={"/docs/logo.png": "image/png"}) as site:
        report = crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base))
    assert report.failed == [(site.base + "/docs/logo.png", "not a page (image/png)")]
    assert "Failed (an earlier copy, if any, is kept): " in report.summary()


def test_pages_of_another_site_are_said_to_be_left_out(data_settings):
    other = ["https://docs.example.org/a.html", "https://docs.example.org/b.html"]
    with serve_site(PAGES, elsewhere=other) as site:
        report = crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base))
    assert report.fetched == 3 and report.off_site == other
    assert ("Left out: 2 pages of another site, such as https://docs.example.org/a.html; docent "
            "crawls only the sitemap's own site.") in report.summary()
    # Every page elsewhere (http:// given for an https:// site, say): why, and what to give.
    with serve_site({}, elsewhere=other) as site:
        with pytest.raises(CrawlError, match=r"lists 2 pages, none on http://127\.0\.0\.1:\d+, "
                           r"such as https://docs\.example\.org/a\.html: .*the sitemap on the "
                           r"pages' site \(https://docs\.example\.org/\.\.\.\)"):
            crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base))
    assert [p for p in site.paths() if not p.startswith(("/robots", "/sitemap"))] == []


def test_a_listed_page_the_site_does_not_have_is_reported(data_settings):
    with serve_site(PAGES, unlisted=["/docs/renamed.html"]) as site:
        report = crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base))
    assert report.not_found == [site.base + "/docs/renamed.html"] and report.fetched == 3
    assert "1 not found" in report.summary()
    assert f"Not found (HTTP 404 or 410; listed in the sitemap): {site.base}/docs/renamed.html" \
        in report.summary()


def test_pages_are_fetched_a_few_at_a_time(data_settings):
    pages = {f"/docs/p{n}.html": page(f"Page {n}", f"<p>Text {n}.</p>") for n in range(12)}
    with serve_site(pages, delay=0.05) as site:
        mirror = mirror_dir(data_settings.data_dir, site.base)
        report = crawl(site.base + "/sitemap.xml", mirror, concurrency=3)
    assert report.fetched == 12
    assert 1 < site.most_in_flight <= 3


def test_a_crawl_delay_fetches_one_page_at_a_time(data_settings):
    pages = {f"/docs/p{n}.html": page(f"Page {n}", f"<p>Text {n}.</p>") for n in range(3)}
    with serve_site(pages, robots="User-agent: *\nCrawl-delay: 1\n", delay=0.02) as site:
        crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base),
              concurrency=4)
    assert site.most_in_flight == 1


def test_a_sitemap_robots_txt_forbids_is_not_crawled(data_settings):
    with serve_site(PAGES, robots="User-agent: *\nDisallow: /\n") as site:
        with pytest.raises(CrawlError, match="robots.txt"):
            crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base))
    assert [p for p in site.paths() if p != "/robots.txt"] == []


def test_urls_that_would_leave_the_mirror_are_not_written(data_settings):
    pages = {"/docs/%2e%2e/%2e%2e/escape.html": page("Escape", "<p>x</p>"),
             "/docs/ok.html": page("Ok", "<p>fine</p>")}
    with serve_site(pages) as site:
        mirror = mirror_dir(data_settings.data_dir, site.base)
        report = crawl(site.base + "/sitemap.xml", mirror)
    written = sorted(p.relative_to(mirror).as_posix() for p in mirror.rglob("*.html"))
    assert written == ["docs/ok.html", "escape.html"] or written == ["docs/ok.html"]
    assert not (data_settings.data_dir / "escape.html").exists()
    assert report.fetched >= 1


def test_a_robots_txt_the_server_fails_to_give_stops_the_crawl(data_settings):
    # RFC 9309: rules that cannot be read mean "disallow all", not "allow all".
    with serve_site(PAGES, robots_status=503) as site:
        with pytest.raises(CrawlError, match=r"robots\.txt of http://127\.0\.0\.1:\d+ answered "
                                             r"HTTP 503: .*try again later"):
            crawl(site.base + "/sitemap.xml", mirror_dir(data_settings.data_dir, site.base))
    assert site.paths() == ["/robots.txt"]


def test_a_missing_sitemap_is_a_clear_error(data_settings):
    with serve_site(PAGES) as site:
        with pytest.raises(CrawlError, match="HTTP 404"):
            crawl(site.base + "/nope.xml", mirror_dir(data_settings.data_dir, site.base))


def test_a_site_that_cannot_be_reached_says_what_the_connection_did(data_settings):
    from tests.live import free_port

    url = f"http://127.0.0.1:{free_port()}/sitemap.xml"  # nothing listens there
    with pytest.raises(CrawlError, match=r"could not fetch the sitemap .*: ConnectError: \S"):
        crawl(url, mirror_dir(data_settings.data_dir, url))


def test_docent_ingest_takes_a_sitemap_url(monkeypatch, tmp_path, capsys):
    from docent import ingest

    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(ingest, "ingest_embedder", lambda settings: FakeEmbedder())
    get_settings.cache_clear()
    try:
        with serve_site(PAGES) as site:
            assert main(["ingest", site.base + "/sitemap.xml", "--quiet"]) == 0
            assert main(["ingest", site.base + "/missing.xml", "--quiet"]) == 1
    finally:
        get_settings.cache_clear()
    out, err = capsys.readouterr()
    assert "Crawled http://127.0.0.1" in out and "3 fetched" in out and "3 added" in out
    assert "docent ingest: could not fetch the sitemap" in err and "Traceback" not in err
