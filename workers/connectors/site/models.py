"""A web site source: its settings, what is remembered per URL between syncs, and the events a crawl yields.

What the sync does with each event (``workers.sync`` is the caller):
  * ``Fetched``: parse ``data`` into evidence (``SourceFile(name=source_name, data=data, url=url)``), index
    it, remember ``state`` under ``url``;
  * ``Unchanged``: the page is as indexed (a 304, or the same bytes again); remember ``state``;
  * ``Gone``: the URL was indexed and must leave the index (404/410, now ``noindex``, now disallowed by
    robots.txt, now redirected elsewhere); forget it;
  * ``Failed``: nothing could be read this time (5xx after retries, timeout, too large, a type ingest
    cannot parse); record the reason, and keep whatever is indexed and remembered for the URL;
  * ``Skipped``: not ours to read (another host, robots.txt, ``noindex``, a redirect) or over the page
    budget; record it. A remembered URL skipped for the budget stays as it is.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from core.settings import SourcesConfig
from core.urls import redact

DEFAULT_MAX_PAGES = 5000  # a departmental intranet with room to spare; a bigger site raises it knowingly
# What ingest parses: HTML pages and PDFs. Anything else linked (images, archives, office files) is not read.
ALLOWED_TYPES = ("text/html", "application/xhtml+xml", "application/pdf")
# The suffix ingest tells a file's type by (``ingest.sources``), for each content type read.
SUFFIX_OF_TYPE = {"text/html": ".html", "application/xhtml+xml": ".html", "application/pdf": ".pdf"}


def origin_of(url: str) -> tuple[str, str]:
    """(scheme, host[:port]) in lower case with the default port dropped: what "the same site" means.
    ValueError when the URL cannot be split (a port that is not a number, ``http://[::1``)."""
    parts = urlsplit(url)
    scheme, host, port = parts.scheme.lower(), parts.hostname or "", parts.port
    return scheme, host if port in (None, {"http": 80, "https": 443}.get(scheme)) else f"{host}:{port}"


class SettingError(ValueError):
    """A site setting that cannot work: the message says why, ``setting`` names it (for a caller to point at)."""

    def __init__(self, setting: str, reason: str):
        super().__init__(reason)
        self.setting = setting


def web_origin(setting: str, url: str) -> tuple[str, str]:
    """The origin of an http(s) URL given as ``setting``; ``SettingError`` naming the setting when it has none."""
    try:
        scheme, host = origin_of(url)
    except ValueError as exc:
        raise SettingError(setting, f"{setting} {redact(url)!r}: not a URL ({redact(str(exc))})") from exc
    if scheme not in ("http", "https") or not host:
        raise SettingError(setting, f"{setting} {redact(url)!r}: not an http(s) URL with a host")
    return scheme, host


@dataclass
class SiteConfig:
    """One site to crawl. ``SettingError`` names the setting and the reason when a value cannot work."""

    start: str  # the first page; its scheme and host bound the crawl
    sitemap: str = ""  # a sitemap (or sitemap index) besides those robots.txt names
    max_pages: int = DEFAULT_MAX_PAGES  # pages requested per crawl at most; the rest wait for the next one
    requests_per_second: float = SourcesConfig.requests_per_second
    timeout: float = SourcesConfig.request_timeout
    deadline: float = SourcesConfig.request_deadline  # seconds one response may take, its body included
    allowed_private_hosts: tuple[str, ...] = ()  # hosts reached although not public (``core.addresses``)
    max_bytes: int = SourcesConfig.max_attachment_bytes  # a larger page or PDF is recorded, not read
    allowed_types: tuple[str, ...] = ALLOWED_TYPES

    def __post_init__(self):
        scheme, host = web_origin("start", self.start)
        if self.sitemap and web_origin("sitemap", self.sitemap) != (scheme, host):
            raise SettingError("sitemap", f"sitemap {redact(self.sitemap)!r}: not on the start page's site "
                                          f"{scheme}://{host}")
        if self.max_pages < 1:
            raise SettingError("max_pages", f"max_pages {self.max_pages}: at least one page must be allowed")
        if self.requests_per_second < 0 or self.timeout <= 0 or self.deadline <= 0 or self.max_bytes <= 0:
            raise SettingError("requests_per_second", f"requests_per_second {self.requests_per_second}, timeout {self.timeout}, deadline "
                             f"{self.deadline}, max_bytes {self.max_bytes}: the rate must not be negative, the "
                             f"others positive")

    @property
    def origin(self) -> tuple[str, str]:
        return origin_of(self.start)


@dataclass
class PageState:
    """What is remembered of a URL between syncs: its validators for a conditional GET, the digest of its
    bytes (for servers that send no validators), its type, and the links it had, so a page answered with
    a 304 still leads the crawl to the pages behind it."""

    etag: str = ""
    last_modified: str = ""
    sha256: str = ""
    content_type: str = ""
    links: list[str] = field(default_factory=list)


def source_name(url: str, content_type: str) -> str:
    """The name ingest gets the page under (and its document id is made of): the URL, with the suffix
    ingest knows the type by appended when the URL does not end with it (``https://h/`` ->
    ``https://h/index.html``, ``https://h/wiki?id=3`` -> ``https://h/wiki?id=3.html``)."""
    suffix = SUFFIX_OF_TYPE.get(content_type, "")
    if url.lower().endswith((suffix, ".htm") if suffix == ".html" else suffix):
        return url
    return url + ("index" if url.endswith("/") else "") + suffix


@dataclass
class Fetched:
    url: str
    data: bytes
    content_type: str  # the media type alone, lower case: "text/html", "application/pdf"
    state: PageState

    @property
    def source_name(self) -> str:
        return source_name(self.url, self.content_type)


@dataclass
class Unchanged:
    url: str
    state: PageState  # the remembered state, with any validators the server sent anew


@dataclass
class Gone:
    url: str
    status: int | None  # the HTTP status that said so (404, 410, 200 with noindex, 301); None: not requested
    reason: str


@dataclass
class Failed:
    url: str
    reason: str


@dataclass
class Skipped:
    url: str
    reason: str


Event = Fetched | Unchanged | Gone | Failed | Skipped
