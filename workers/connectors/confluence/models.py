"""A Confluence source's settings and the records its listings return, read from REST v1 JSON.

Cloud and Data Center differ in three places this module and the client care about: authentication (Cloud:
HTTP Basic with the account e-mail and an API token; Data Center: a personal access token as Bearer), the
id of a user (Cloud: ``accountId``; Data Center: user name or ``userKey``) and the user API's parameter.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from core.settings import SourcesConfig
from core.urls import redact
from ingest.sources.confluence import restriction_members

DEPLOYMENTS = ("cloud", "data-center")
SOURCE_DEFAULTS = SourcesConfig()  # pace, timeout and attachment limit: one place for the numbers
PAGE_SIZE = 50  # results per listing request: a 10,000-page wiki in 200 requests, each answer a few hundred KB
# (a server may cap lower, silently; the client follows ``_links.next``, never its own arithmetic)


@dataclass
class ConfluenceConfig:
    """Where the wiki is, how to sign in, which pages are in scope and how hard to press the server."""

    url: str  # base URL the API hangs under: https://wiki.example.com or https://x.atlassian.net/wiki
    deployment: str = "cloud"  # "cloud" | "data-center"
    token: str = ""  # Cloud: API token; Data Center: personal access token. Never logged.
    user: str = ""  # Cloud: the account e-mail the token belongs to; Data Center: unused
    spaces: list[str] = field(default_factory=list)  # space keys in scope
    cql: str = ""  # extra CQL scope (ANDed with the spaces when both are given)
    attachments: list[str] = field(default_factory=list)  # file extensions to fetch, e.g. ["pdf", "html"]
    max_attachment_bytes: int = SOURCE_DEFAULTS.max_attachment_bytes
    requests_per_second: float = SOURCE_DEFAULTS.requests_per_second
    timeout: float = SOURCE_DEFAULTS.request_timeout
    deadline: float = SOURCE_DEFAULTS.request_deadline  # seconds one response may take, its body included
    allowed_private_hosts: tuple[str, ...] = ()  # hosts reached although not public (``core.addresses``)
    page_size: int = PAGE_SIZE

    def __post_init__(self) -> None:
        self.url = self.url.rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"Confluence url {redact(self.url)!r}: expected an http(s) base URL")
        if self.deployment not in DEPLOYMENTS:
            raise ValueError(f"Confluence deployment {self.deployment!r}: expected one of {', '.join(DEPLOYMENTS)}")
        if not self.token:
            raise ValueError(f"Confluence at {redact(self.url)}: no token given")
        if self.deployment == "cloud" and not self.user:
            raise ValueError(f"Confluence Cloud at {redact(self.url)}: the account e-mail (user) is needed with "
                             f"the token")
        if self.page_size < 1:
            raise ValueError(f"Confluence page_size {self.page_size}: expected at least 1")
        self.attachments = [ext.lower().lstrip(".") for ext in self.attachments]


def absolute_url(base_url: str, link: str) -> str:
    """A ``_links`` path (relative to the base, context path included in the base) as an absolute URL under
    ``base_url``; a link that already carries the context path is put on the base's scheme and host. A whole
    URL is read as its path and query alone: the credentials go with every request, so a link naming another
    host (the server's own idea of its name, or a hostile answer) is asked of the configured wiki, never of it."""
    parts = urlsplit(base_url)
    if link.startswith(("http://", "https://", "//")):
        whole = urlsplit(link)
        link = urlunsplit(("", "", whole.path, whole.query, ""))
    if parts.path and link.startswith(parts.path + "/"):
        return f"{parts.scheme}://{parts.netloc}{link}"
    return base_url + link


def read_restrictions_of(content: dict) -> tuple[list[str], list[str]]:
    """(groups, users) of a content object's own read restrictions, as expanded by
    ``restrictions.read.restrictions.user,restrictions.read.restrictions.group``: the members ``ingest`` reads
    of the page itself, so a level built of them (``ingest.principals``) matches the page's own ACL (users by
    Cloud account id, on Data Center by user name, else user key)."""
    restrictions = ((content.get("restrictions") or {}).get("read") or {}).get("restrictions") or {}
    return restriction_members(restrictions) if isinstance(restrictions, dict) else ([], [])


@dataclass
class PageRef:
    """One page as a listing returns it: no body, enough to decide whether to fetch it and who may read it."""

    id: str
    title: str
    version: int
    when: str  # ISO time of the last modification
    space: str  # space key
    ancestors: list[str]  # ids, root first
    read_groups: list[str]  # the page's own read restrictions, not those inherited
    read_users: list[str]  # account ids (Cloud); user names, else user keys (Data Center)
    status: str

    @classmethod
    def from_json(cls, content: dict) -> "PageRef":
        version = content.get("version") or {}
        groups, users = read_restrictions_of(content)
        return cls(id=str(content["id"]), title=str(content.get("title") or ""),
                   version=int(version.get("number") or 0), when=str(version.get("when") or ""),
                   space=str((content.get("space") or {}).get("key") or ""),
                   ancestors=[str(a["id"]) for a in content.get("ancestors") or [] if isinstance(a, dict)],
                   read_groups=groups, read_users=users, status=str(content.get("status") or "current"))


@dataclass
class ListingPage:
    """One answer of a listing: its pages, and the link to the next answer (None at the end)."""

    items: list[PageRef]
    next_link: str | None  # ``_links.next`` as Confluence gave it: save it to resume a killed listing


@dataclass
class AttachmentRef:
    """An attachment of a page, as ``child/attachment?expand=version`` lists it."""

    id: str
    title: str  # the file name
    media_type: str
    version: int
    size: int  # bytes, as Confluence reports it (0 when it does not)
    download: str  # absolute URL under the configured base
    page_id: str

    @property
    def extension(self) -> str:
        return self.title.rsplit(".", 1)[-1].lower() if "." in self.title else ""

    @classmethod
    def from_json(cls, content: dict, page_id: str, base_url: str) -> "AttachmentRef":
        extensions = content.get("extensions") or {}
        metadata = content.get("metadata") or {}
        return cls(id=str(content["id"]), title=str(content.get("title") or ""),
                   media_type=str(metadata.get("mediaType") or extensions.get("mediaType") or ""),
                   version=int((content.get("version") or {}).get("number") or 0),
                   size=int(extensions.get("fileSize") or 0),
                   download=absolute_url(base_url, str((content.get("_links") or {}).get("download") or "")),
                   page_id=page_id)
