"""``SiteCrawler``: one crawl of one intranet site, as a stream of events (``models``) for the sync to apply.

The crawl, in order:
  1. robots.txt of the start page's site, read with the stdlib's ``urllib.robotparser`` for our product
     token. Missing (4xx): everything is allowed (RFC 9309). Unreachable (5xx, no answer): nothing may be
     crawled, so the crawl ends with one ``Failed`` and no ``Gone``: the index is left as it is.
  2. The sitemaps: ``SiteConfig.sitemap``, the ``Sitemap:`` lines of robots.txt, else ``/sitemap.xml`` if
     the site has one; sitemap index files are followed, gzipped sitemaps read.
  3. Breadth first from the start page, then the sitemaps' URLs: each page of the same scheme and host,
     allowed by robots.txt and within ``max_pages``, is requested once per crawl, with ``If-None-Match`` /
     ``If-Modified-Since`` from what ``known`` remembers. Links are the ``<a href>`` of HTML pages (fragment
     dropped, relative ones resolved against ``<base href>``, query kept); ``rel=nofollow`` links, links of
     pages marked ``nofollow`` (``<meta name="robots">`` or ``X-Robots-Tag``) and links of PDFs are not
     followed. A page answered with a 304 leads on through the links remembered for it.
  4. Remembered URLs the crawl did not reach again are re-checked with a conditional GET: a page that still
     answers stays (``Unchanged`` or ``Fetched``: it was unlinked, not removed), a 404/410 is ``Gone``.
What the crawl has still to visit and has seen is its ``Frontier``: a caller that stops asking for pages
(``go_on``) keeps it, and a later call given it back continues the crawl where it stopped (robots.txt is
read again, the sitemaps are not).
Redirects are not followed blindly: the target joins the crawl as a link of its own, and the redirecting
URL holds no document (``Gone`` if it was indexed), so one page is never indexed under two URLs. A page
that now needs a login (401/403) leaves the index too: what the crawler cannot read, nobody is shown.
Retries, ``Retry-After``, the pace, the address check and the deadline of a response are the shared
session's (``workers.connectors.http``).
"""
from __future__ import annotations

import gzip
import hashlib
import io
import zlib
from collections import deque
from dataclasses import replace
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import NamedTuple
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

import lxml.html
import requests
from lxml import etree

from workers.connectors.http import USER_AGENT, BodyTooLarge, PacedSession, read_body
from workers.connectors.site.models import (Event, Failed, Fetched, Gone, PageState, SiteConfig, Skipped, Unchanged,
                                            origin_of, web_origin)

PRODUCT_TOKEN = USER_AGENT.split("/")[0]  # the name robots.txt groups and robots meta tags address us by
GONE_STATUSES = {404: "not found", 410: "gone", 401: "needs a login", 403: "forbidden"}
REDIRECT_STATUSES = {301, 302, 303, 307, 308}
MAX_SITEMAP_FILES = 100  # sitemaps read per crawl: 100 x 50,000 URLs is far past max_pages; more is a loop
# What was done, closing each recorded failure's sentence (``Failed``: nothing indexed is touched).
PAGE_KEPT = "not indexed this time; what was indexed of it before stays"
SITEMAP_SKIPPED = "its pages are found through links only this time"


def normalize(url: str) -> str:
    """A link as the crawl keeps it: fragment dropped, scheme and host lower case, default port dropped,
    an empty path made ``/``; the query is kept (it may select a different page). ValueError when the
    URL cannot be split (``http://[::1``)."""
    url, _ = urldefrag(url.strip())
    parts = urlsplit(url)
    scheme, host = origin_of(url)
    return urlunsplit((scheme, host, parts.path or "/", parts.query, ""))


def directives(values: Iterable[str]) -> set[str]:
    """Robots directives (``noindex``, ``nofollow``; ``none`` is both) from robots meta contents or
    ``X-Robots-Tag`` headers, keeping those addressed to every crawler or to us (``evident: noindex``)."""
    found = set()
    for value in values:
        for token in value.lower().split(","):
            name, _, directive = token.rpartition(":")
            if name.strip() in ("", PRODUCT_TOKEN.lower()):
                found.add(directive.strip())
    if "none" in found:
        found |= {"noindex", "nofollow"}
    return found


class PageLinks(NamedTuple):
    links: list[str]  # to follow: normalized, in page order, each once
    robots: set[str]  # the page's robots directives
    malformed: list[tuple[str, str]]  # (href, why it is not a URL): the page author's slips, recorded


def html_links(url: str, data: bytes) -> PageLinks:
    """The followable links of an HTML page and its robots directives; a page not parseable has neither."""
    try:
        tree = lxml.html.document_fromstring(data)
    except (etree.ParserError, ValueError):
        return PageLinks([], set(), [])
    meta = [m.get("content", "") for m in tree.iter("meta")
            if (m.get("name") or "").lower() in ("robots", PRODUCT_TOKEN.lower())]
    found = PageLinks([], directives(meta), [])
    base_href = (tree.xpath("string(//base/@href)") or "").strip()
    try:
        base = urljoin(url, base_href)
    except ValueError as exc:
        found.malformed.append((base_href, str(exc)))
        base = url
    for anchor in tree.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or "nofollow" in (anchor.get("rel") or "").lower().split():
            continue
        try:
            link = urljoin(base, href)
            if urlsplit(link).scheme.lower() in ("http", "https"):
                found.links.append(normalize(link))
        except ValueError as exc:
            found.malformed.append((href, str(exc)))
    return found._replace(links=list(dict.fromkeys(found.links)))


def sitemap_entries(data: bytes) -> tuple[str, list[str]]:
    """(kind, locations) of a sitemap: ``urlset`` with page URLs or ``sitemapindex`` with sitemap URLs.
    Raises ValueError when the bytes are not a sitemap. Entities and network access are off (no XXE)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"not parseable as XML: {exc}") from exc
    kind = etree.QName(root).localname
    child = {"urlset": "url", "sitemapindex": "sitemap"}.get(kind)
    if child is None:
        raise ValueError(f"not a sitemap (root element <{kind}>)")
    return kind, [(loc.text or "").strip() for loc in root.iterfind(f"{{*}}{child}/{{*}}loc") if loc.text]


class SiteCrawler:
    """Crawls ``config``'s site; ``requests_made`` counts the requests of every crawl it ran."""

    def __init__(self, config: SiteConfig, session: PacedSession | None = None):
        self.config = config
        self.session = session or PacedSession(rate=config.requests_per_second, timeout=config.timeout,
                                               deadline=config.deadline,
                                               allowed_private_hosts=config.allowed_private_hosts)
        self.site = "://".join(config.origin)

    @property
    def requests_made(self) -> int:
        return self.session.requests_made

    def crawl(self, known: dict[str, PageState], frontier: Frontier | None = None,
              go_on: Callable[[], bool] = lambda: True) -> Iterator[Event]:
        """Every event of one crawl, or of its next share: ``known`` is what the previous crawls remembered,
        URL -> state; ``frontier`` the crawl's progress (none, or one that has seen nothing: the crawl
        begins); ``go_on`` is asked before each URL is taken, and False ends the call with the rest of the
        crawl left in ``frontier``."""
        frontier = frontier if frontier is not None else Frontier(self.config.max_pages)
        robots = yield from self._robots()
        if robots is None:
            return
        if not frontier.seen:
            frontier.extend([normalize(self.config.start), *(yield from self._sitemap_urls(robots))])
        while (yield from self._visit_all(frontier, known, robots, go_on)):
            if not frontier.extend([url for url in known if url not in frontier.seen]):
                return

    # ------------------------------------------------------------------ robots.txt and sitemaps

    def _robots(self) -> Generator[Event, None, RobotFileParser | None]:
        url = f"{self.site}/robots.txt"
        parser = RobotFileParser(url)
        try:
            with self.session.get(url, stream=True) as response:
                if response.status_code >= 500:
                    raise requests.HTTPError(f"HTTP {response.status_code} {response.reason}")
                body = self._body(response) if response.status_code == 200 else b""
        except (requests.RequestException, BodyTooLarge) as exc:
            yield Failed(url, f"robots.txt unreadable ({exc}): nothing crawled, the index is left as it is")
            return None
        parser.parse(body.decode("utf-8", errors="replace").splitlines())
        return parser

    def _sitemap_urls(self, robots: RobotFileParser) -> Generator[Event, None, list[str]]:
        """The page URLs of every sitemap, following index files; each sitemap's trouble is one event."""
        declared = [self.config.sitemap] if self.config.sitemap else []
        declared += [u for u in (robots.site_maps() or []) if u not in declared]
        guessed = not declared
        pending = deque(declared or [f"{self.site}/sitemap.xml"])
        read: set[str] = set()
        pages: list[str] = []
        while pending:
            url = pending.popleft()
            if url in read:
                continue
            read.add(url)
            try:
                if web_origin("sitemap", url) != self.config.origin:
                    yield Skipped(url, f"sitemap on another site than {self.site}")
                    continue
            except ValueError as exc:
                yield Skipped(url, str(exc))
                continue
            if len(read) > MAX_SITEMAP_FILES:
                yield Skipped(url, f"more than {MAX_SITEMAP_FILES} sitemaps (MAX_SITEMAP_FILES)")
                continue
            try:
                kind, locations = sitemap_entries(self._sitemap_bytes(url))
            except FileNotFoundError:
                if not guessed:
                    yield Failed(url, f"sitemap not found (404); {SITEMAP_SKIPPED}")
                continue
            except (requests.RequestException, BodyTooLarge, ValueError) as exc:
                yield Failed(url, f"sitemap unreadable ({exc}); {SITEMAP_SKIPPED}")
                continue
            (pending if kind == "sitemapindex" else pages).extend(locations)
        normalized = []
        for url in pages:
            try:
                normalized.append(normalize(url))
            except ValueError as exc:
                yield Skipped(url, f"listed in a sitemap but not a URL: {exc}")
        return normalized

    def _sitemap_bytes(self, url: str) -> bytes:
        with self.session.get(url, stream=True) as response:
            if response.status_code in (404, 410):
                raise FileNotFoundError(url)
            if response.status_code != 200:
                raise requests.HTTPError(f"HTTP {response.status_code} {response.reason}")
            data = self._body(response)
        if data[:2] == b"\x1f\x8b":  # a .xml.gz sitemap: inflated no further than the size limit
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(data)) as inflated:
                    data = inflated.read(self.config.max_bytes + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise ValueError(f"not a readable gzip file: {exc}") from exc
            if len(data) > self.config.max_bytes:
                raise BodyTooLarge(f"inflates past {self.config.max_bytes} bytes")
        return data

    def _body(self, response: requests.Response) -> bytes:
        """The body, refused (``BodyTooLarge``) past ``max_bytes`` whatever Content-Length claims, and within
        the session's deadline (``DeadlineExceeded``, a ``RequestException``)."""
        return read_body(response, self.config.max_bytes)

    # ------------------------------------------------------------------ pages

    def _visit_all(self, frontier: Frontier, known: dict[str, PageState], robots: RobotFileParser,
                   go_on: Callable[[], bool]) -> Generator[Event, None, bool]:
        """The frontier's URLs in order, each taken off it once its events are out: True when it is empty,
        False when ``go_on`` said to stop (the URL it was asked for stays first)."""
        while frontier.queue:
            url = frontier.queue[0]
            if not go_on():
                return False
            state, found, requested = known.get(url), [], False
            if origin_of(url) != self.config.origin:
                yield self._excluded(url, state, None, f"on another site than {self.site}")
            elif not robots.can_fetch(PRODUCT_TOKEN, url):
                yield self._excluded(url, state, None, "disallowed by robots.txt")
            elif frontier.pages_left <= 0:
                yield Skipped(url, f"over the page budget (max_pages {self.config.max_pages})")
            else:
                found, requested = (yield from self._visit(url, state)), True
            frontier.advance(url, found, requested)
        return True

    def _visit(self, url: str, state: PageState | None) -> Generator[Event, None, list[str]]:
        """One page request and its event; returns the links to follow from it."""
        headers = {}
        if state and state.etag:
            headers["If-None-Match"] = state.etag
        if state and state.last_modified:
            headers["If-Modified-Since"] = state.last_modified
        try:
            with self.session.get(url, headers=headers, stream=True, allow_redirects=False) as response:
                status = response.status_code
                if status == 304 and state:
                    validators = {"etag": response.headers.get("ETag", state.etag),
                                  "last_modified": response.headers.get("Last-Modified", state.last_modified)}
                    yield Unchanged(url, replace(state, **validators))
                    return state.links
                if status in REDIRECT_STATUSES and response.headers.get("Location"):
                    target = normalize(urljoin(url, response.headers["Location"]))
                    yield self._excluded(url, state, status, f"redirects to {target}")
                    return [target]
                if status in GONE_STATUSES:
                    yield (Gone(url, status, GONE_STATUSES[status]) if state
                           else Failed(url, f"HTTP {status} ({GONE_STATUSES[status]}): linked, but nothing to "
                                            f"read; not indexed"))
                    return []
                if status != 200:
                    yield Failed(url, f"HTTP {status} {response.reason}; {PAGE_KEPT}")
                    return []
                return (yield from self._page(url, state, response))
        except (requests.RequestException, BodyTooLarge, ValueError) as exc:  # ValueError: a Location not a URL
            yield Failed(url, f"not read ({type(exc).__name__}: {exc}); {PAGE_KEPT}")
            return []

    def _page(self, url: str, state: PageState | None, response: requests.Response
              ) -> Generator[Event, None, list[str]]:
        content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if content_type not in self.config.allowed_types:
            yield Failed(url, f"type {content_type or 'unknown'!r} is not read (only {self.config.allowed_types}); "
                              f"not indexed")
            return []
        data = self._body(response)
        links, robots, malformed = html_links(url, data) if "html" in content_type else PageLinks([], set(), [])
        for href, reason in malformed:
            yield Skipped(href, f"malformed link on {url}: {reason}")
        robots |= directives([response.headers.get("X-Robots-Tag", "")])
        links = [] if "nofollow" in robots else links
        if "noindex" in robots:
            yield self._excluded(url, state, 200, "marked noindex")
            return links
        digest = hashlib.sha256(data).hexdigest()
        new_state = PageState(etag=response.headers.get("ETag", ""), sha256=digest, content_type=content_type,
                              last_modified=response.headers.get("Last-Modified", ""), links=links)
        if state and state.sha256 == digest:
            yield Unchanged(url, new_state)
        else:
            yield Fetched(url, data, content_type, new_state)
        return links

    @staticmethod
    def _excluded(url: str, state: PageState | None, status: int | None, reason: str) -> Gone | Skipped:
        """A URL that holds no document for us: ``Gone`` when it was indexed, else ``Skipped``."""
        return Gone(url, status, reason) if state else Skipped(url, reason)


class Frontier:
    """A crawl's progress: the URLs waiting for a visit (in discovery order, each once per crawl), every URL
    it queued, and the pages it may still request (``max_pages`` at its start). All a later call needs to
    continue the crawl; a caller that keeps it elsewhere extends ``advance``."""

    def __init__(self, pages_left: int, queue: Iterable[str] = (), seen: Iterable[str] = ()):
        self.pages_left = pages_left
        self.queue: deque[str] = deque(queue)
        self.seen: set[str] = set(seen)

    def extend(self, urls: Iterable[str]) -> list[str]:
        """Queue the URLs not seen yet; returns them."""
        return self.advance(None, urls)

    def advance(self, visited: str | None, found: Iterable[str], requested: bool = False) -> list[str]:
        """Take ``visited`` (the first URL) off the queue, one page off ``pages_left`` when it was
        ``requested``, and queue the URLs ``found`` not seen yet; returns those."""
        if visited is not None:
            self.queue.popleft()
        if requested:
            self.pages_left -= 1
        new = [url for url in dict.fromkeys(found) if url not in self.seen]
        self.seen.update(new)
        self.queue.extend(new)
        return new
