"""The site connector against the stand-in intranet on loopback: what a crawl reads, skips and re-checks.

``known`` is carried from crawl to crawl the way the sync keeps it: fetched and unchanged pages are
remembered with their state, gone ones forgotten, failed and skipped ones left as they were.
"""
from __future__ import annotations

import re

import pytest

from ingest.config import IngestConfig
from ingest.pipeline import evidence_for
from ingest.sources import SourceFile
from tests.standins import STANDIN_HOSTS
from tests.standins.site import HANDBOOK_PDF, PAGES, SiteStandIn, page_html, write_intranet, write_page
from text.lemmas import Lemmatizer
from workers.connectors.site.connector import Frontier, SiteCrawler
from workers.connectors.site.models import Failed, Fetched, Gone, PageState, SiteConfig, Skipped, Unchanged

# Every page a crawler may read: linked from the home page on, or listed only in a sitemap (the policies).
READABLE = {"/", "/about.html", "/hr/", "/it/", "/news/", "/hr/leave.html", "/it/vpn.html", "/hr/benefits.html",
            "/it/passwords.html", "/news/2026-11-canteen.html", "/news/?page=2", "/policies/travel.html",
            "/policies/expenses.html", "/files/employee-handbook.pdf"}
NEVER_ASKED = {"/private/salaries.html", "/drafts/reorg.html", "/calendar.html"}  # robots.txt, rel=nofollow
NOT_PAGES = {"/robots.txt", "/sitemap.xml", "/sitemaps/pages.xml", "/sitemaps/policies.xml.gz"}


@pytest.fixture
def site(tmp_path):
    with SiteStandIn(tmp_path) as stand_in:
        write_intranet(tmp_path, stand_in.url, other_host=f"http://localhost:{stand_in.port}")
        yield stand_in


def crawler_for(site: SiteStandIn, **config) -> SiteCrawler:
    config.setdefault("requests_per_second", 0)  # no pace: the stand-in serves nobody else
    config.setdefault("allowed_private_hosts", STANDIN_HOSTS)
    return SiteCrawler(SiteConfig(start=site.url + "/", **config))


def crawl(site: SiteStandIn, known: dict[str, PageState] | None = None, **config) -> list:
    site.served.clear()
    return list(crawler_for(site, **config).crawl(known or {}))


def remember(known: dict[str, PageState], events: list) -> dict[str, PageState]:
    known = dict(known)
    for event in events:
        if isinstance(event, (Fetched, Unchanged)):
            known[event.url] = event.state
        elif isinstance(event, Gone):
            del known[event.url]
    return known


def paths(site: SiteStandIn, events: list, kind: type) -> set[str]:
    return {e.url.removeprefix(site.url) for e in events if isinstance(e, kind)}


def page_requests(site: SiteStandIn) -> list:
    return [s for s in site.served if s.path not in NOT_PAGES]


def test_first_crawl_reads_every_allowed_page_and_nothing_else(site):
    crawler = crawler_for(site)
    events = list(crawler.crawl({}))
    assert crawler.requests_made == len(site.served)
    assert paths(site, events, Fetched) == READABLE
    skipped = {e.url.removeprefix(site.url): e.reason for e in events if isinstance(e, Skipped)}
    assert skipped == {"/private/salaries.html": "disallowed by robots.txt",
                       "/drafts/reorg.html": "disallowed by robots.txt", "/search.html": "marked noindex",
                       f"http://localhost:{site.port}/about.html": f"on another site than {site.url}",
                       "https://www.example.com/": f"on another site than {site.url}",
                       "http://[intranet/": f"malformed link on {site.url}/about.html: Invalid IPv6 URL",
                       "http://[intranet/travel": "listed in a sitemap but not a URL: Invalid IPv6 URL"}
    assert [(e.url.removeprefix(site.url), "image/png" in e.reason) for e in events if isinstance(e, Failed)] == [
        ("/files/org-chart.png", True)]
    assert not {s.path for s in site.served} & NEVER_ASKED
    assert {s.host for s in site.served} == {f"127.0.0.1:{site.port}"}
    assert len(page_requests(site)) == len(READABLE) + 2  # and the noindex search page, the image
    pdf = next(e for e in events if isinstance(e, Fetched) and e.url.endswith(".pdf"))
    assert (pdf.content_type, pdf.data) == ("application/pdf", HANDBOOK_PDF.read_bytes())


def test_a_fetched_page_parses_into_evidence_with_its_url_and_title(site):
    events = {e.url.removeprefix(site.url): e for e in crawl(site) if isinstance(e, Fetched)}
    for path, title in (("/", "Intranet home"), ("/hr/leave.html", "Annual leave policy")):
        page = events[path]
        parsed, evidence = evidence_for(SourceFile(name=page.source_name, data=page.data, url=page.url),
                                        IngestConfig(), Lemmatizer())
        assert (parsed.document.url, parsed.document.title) == (site.url + path, title)
        assert evidence and {e.url for e in evidence} == {site.url + path}
    assert parsed.document.breadcrumb == ["Home", "Human resources"]  # the page's own breadcrumb
    leave = " ".join(e.text for e in evidence)
    assert "30 days of paid annual leave" in leave and "IT services" not in leave  # the site's menu stays out


def test_second_crawl_gets_304s_and_reads_no_page_body(site):
    known = remember({}, crawl(site))
    events = crawl(site, known)
    assert paths(site, events, Unchanged) == READABLE
    assert not [e for e in events if isinstance(e, (Fetched, Gone))]
    answers = {s.path: s.status for s in page_requests(site)}
    assert {p for p, status in answers.items() if status == 304} == READABLE
    assert {p for p, status in answers.items() if status != 304} == {"/search.html", "/files/org-chart.png"}


def test_an_edited_page_is_fetched_again_and_a_new_link_followed(site):
    known = remember({}, crawl(site))
    title, crumbs, content = PAGES["hr/leave.html"]
    write_page(site.root, "hr/leave.html", page_html(
        title, crumbs, content.replace("30 days", "32 days") + '<a href="parental.html">Parental leave</a>',
        False, ""))
    write_page(site.root, "hr/parental.html", page_html("Parental leave", crumbs, "<p>Up to three years.</p>",
                                                        False, ""))
    events = crawl(site, known)
    fetched = {e.url.removeprefix(site.url): e for e in events if isinstance(e, Fetched)}
    assert set(fetched) == {"/hr/leave.html", "/hr/parental.html"}
    assert b"32 days" in fetched["/hr/leave.html"].data
    assert paths(site, events, Unchanged) == READABLE - {"/hr/leave.html"}


def test_removed_moved_and_locked_pages_leave_an_unlinked_page_stays(site):
    known = remember({}, crawl(site))
    (site.root / "hr" / "benefits.html").unlink()  # 404, still linked from the HR page
    site.answer("/news/2026-11-canteen.html", 410)
    site.answer("/it/passwords.html", 403)
    (site.root / "it" / "vpn.html").rename(site.root / "it" / "remote-access.html")
    site.redirect("/it/vpn.html", "/it/remote-access.html")
    title, crumbs, _ = PAGES["about.html"]  # the image link goes: the page behind it is no longer linked
    write_page(site.root, "about.html", page_html(title, crumbs, "<h1>About us</h1><p>Plants.</p>", False, ""))
    events = crawl(site, known)
    gone = {e.url.removeprefix(site.url): e.status for e in events if isinstance(e, Gone)}
    assert gone == {"/hr/benefits.html": 404, "/news/2026-11-canteen.html": 410, "/it/passwords.html": 403,
                    "/it/vpn.html": 301}
    assert paths(site, events, Fetched) == {"/about.html", "/it/remote-access.html"}
    known = remember(known, events)
    assert site.url + "/hr/benefits.html" not in known and site.url + "/it/remote-access.html" in known

    # the travel policy is still served, but no sitemap lists it any more (and no page ever linked it)
    (site.root / "sitemaps" / "pages.xml").write_text((site.root / "sitemaps" / "pages.xml").read_text().replace(
        f"<url><loc>{site.url}/policies/travel.html</loc></url>", ""))
    events = crawl(site, known)
    assert site.url + "/policies/travel.html" in {e.url for e in events if isinstance(e, (Unchanged, Fetched))}
    assert not [e for e in events if isinstance(e, Gone)]


def test_a_429_storm_and_a_passing_500_still_end_with_every_page(site):
    site.storm(every=3, retry_after="0")  # a rate limit asking for no wait: the retries, not the waits, are shown
    site.answer("/hr/leave.html", 500, times=1)
    crawler = crawler_for(site)
    events = list(crawler.crawl({}))
    assert paths(site, events, Fetched) == READABLE
    assert not [e for e in events if isinstance(e, Failed) and "png" not in e.url]
    statuses = [s.status for s in site.served]
    assert statuses.count(429) == len(site.served) // 3 and 500 in statuses
    assert crawler.requests_made == len(site.served) - statuses.count(429) - 1  # retries are the session's own


def test_a_page_that_fails_is_kept_and_an_unreadable_robots_txt_stops_the_crawl(site):
    known = remember({}, crawl(site))
    site.answer("/it/vpn.html", 501)
    events = crawl(site, known)
    failed = {e.url.removeprefix(site.url): e.reason for e in events if isinstance(e, Failed)}
    assert failed["/it/vpn.html"].startswith("HTTP 501")
    assert not [e for e in events if isinstance(e, Gone)]
    site.answer("/robots.txt", 501)
    events = crawl(site, known)
    assert [type(e) for e in events] == [Failed] and "robots.txt unreadable" in events[0].reason
    assert [s.path for s in site.served] == ["/robots.txt"]


def test_robots_txt_and_the_page_budget_hold(site):
    events = crawl(site, max_pages=3)
    assert len(page_requests(site)) == 3
    assert paths(site, events, Fetched) == {"/", "/hr/leave.html", "/it/vpn.html"}  # the start, then the sitemap's
    over = {e.url.removeprefix(site.url) for e in events if isinstance(e, Skipped) and "page budget" in e.reason}
    assert over == {"/policies/travel.html", "/policies/expenses.html", "/news/2026-11-canteen.html", "/about.html",
                    "/hr/", "/it/", "/news/", "/files/employee-handbook.pdf", "/search.html"}  # all else found
    known = remember({}, crawl(site))

    robots = (site.root / "robots.txt").read_text()
    (site.root / "robots.txt").write_text(robots.replace("Disallow: /drafts/", "Disallow: /drafts/\nDisallow: /news/"))
    events = crawl(site, known, max_pages=5)
    assert {e.url.removeprefix(site.url) for e in events if isinstance(e, Gone) and e.status is None} == {
        "/news/", "/news/?page=2", "/news/2026-11-canteen.html"}
    assert not [s for s in site.served if s.path.startswith("/news/")]
    assert len(page_requests(site)) == 5
    assert not [e for e in events if isinstance(e, Gone) and e.status is not None]  # over budget: kept


def test_a_crawl_stopped_between_urls_is_continued_from_its_frontier(site):
    """A caller whose budget is spent stops asking for URLs and keeps the frontier; each later call given it back
    goes on where the last stopped: together they read what one crawl reads, each page once, the sitemaps once."""
    whole = crawl(site)
    crawler, frontier, shares = crawler_for(site), Frontier(SiteConfig.max_pages), []
    site.served.clear()
    while not shares or frontier.queue:
        allowed = iter(range(3))  # URLs each call may take
        shares.append(list(crawler.crawl({}, frontier, lambda: next(allowed, None) is not None)))
    assert len(shares) > 3
    assert set().union(*(paths(site, share, Fetched) for share in shares)) == paths(site, whole, Fetched) == READABLE
    asked = [s.path for s in page_requests(site)]
    assert len(asked) == len(set(asked)) == len(READABLE) + 2  # and the noindex search page, the image
    served = [s.path for s in site.served]
    assert served.count("/robots.txt") == len(shares) and served.count("/sitemap.xml") == 1


def test_a_server_without_validators_costs_bodies_but_changes_nothing(site):
    known = remember({}, crawl(site))
    site.validators = False
    events = crawl(site, known)
    assert paths(site, events, Unchanged) == READABLE and not paths(site, events, Fetched)
    assert all(s.status == 200 for s in page_requests(site))


@pytest.mark.parametrize("field, value, reason", [
    ("start", "intranet.example.org", "not an http(s) URL with a host"),
    ("sitemap", "https://cdn.example.org/sitemap.xml", "not on the start page's site"),
    ("max_pages", 0, "at least one page"),
])
def test_a_setting_that_cannot_work_is_refused_by_name(field, value, reason):
    settings = {"start": "https://intranet.example.org/", field: value}
    with pytest.raises(ValueError, match=f"{field}.*{re.escape(reason)}"):
        SiteConfig(**settings)


def test_a_site_on_an_address_not_allowed_is_not_crawled_and_says_why(site):
    events = crawl(site, allowed_private_hosts=())  # the default: loopback is no intranet host
    assert [type(e) for e in events] == [Failed] and not site.served
    assert events[0].reason == (f"robots.txt unreadable ({site.url}/robots.txt resolves to 127.0.0.1, a loopback "
                                f"address: not fetched (allow it with EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS)): "
                                f"nothing crawled, the index is left as it is")
