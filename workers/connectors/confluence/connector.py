"""``ConfluenceClient``: the REST v1 calls a sync makes, over the shared paced, retrying session.

requests with urllib3's Retry (``workers.connectors.http``) rather than ``atlassian-python-api``: the sync
needs six GET endpoints, the raw JSON of a page (``ingest`` parses it), one session whose pace and retries
hold across every call, and ``_links.next`` followed verbatim so a listing can resume from a saved link;
the library would add a second retry layer and re-shape answers we want as Confluence gave them.

Listings are CQL searches in creation order; ``_links.next`` carries the position (a ``cursor`` on
Cloud, ``start`` on Data Center) and is joined to the configured URL, never to ``_links.base``: behind a
proxy, the base URL Confluence believes in is not always the one this worker can reach.

Errors: ``SourceError`` names the URL and the reason; ``AuthError`` (401/403) says which credentials to
check; ``PageGone`` is a 404 for content asked for by id; ``TooLarge`` an attachment over the size limit.
No message carries the token: it travels in a header only, and is never formatted into text.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests

from workers.connectors.confluence.models import (AttachmentRef, ConfluenceConfig, ListingPage, PageRef,
                                                  absolute_url)
from workers.connectors.http import BodyTooLarge, GuardError, PacedSession, read_body

RESTRICTIONS_EXPAND = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
LISTING_EXPAND = "version,ancestors,space," + RESTRICTIONS_EXPAND
PAGE_EXPAND = ("body.storage,ancestors,version,space,metadata.labels,history,history.lastUpdated,"
               + RESTRICTIONS_EXPAND)
# Creation order: an edit during a listing moves no page, so Data Center's start/limit pages skip none (by
# lastmodified, each edit would move a page to the end and shift the next one out of sight).
LISTING_ORDER = "order by created asc"
CQL_DATE = "%Y/%m/%d %H:%M"  # the only date form CQL's lastmodified takes: minute precision
# CQL reads a date in the time zone of the token's user (or the server's), which can be as far as UTC-12:
# the UTC cursor written this much earlier never misses a change; a few pages listed twice cost no body.
CQL_ZONE_MARGIN = timedelta(hours=12)
ERROR_DETAIL_CHARS = 300  # enough of a server's error message to say why, not a whole HTML error page


class SourceError(Exception):
    """Confluence could not be read: the message names the URL and the reason."""


class AuthError(SourceError):
    """401/403: the credentials were refused; the message says which ones to check (never the token)."""


class PageGone(SourceError):
    """A page (or attachment) asked for by id is not there any more (404)."""

    def __init__(self, page_id: str, url: str = ""):
        self.page_id = page_id
        super().__init__(f"Confluence content {page_id} is gone (404 at {url})" if url
                         else f"Confluence content {page_id} is gone")


class TooLarge(SourceError):
    """An attachment above the size limit: recorded as a skip, never read to the end."""

    def __init__(self, att: AttachmentRef, limit: int):
        self.att = att
        self.limit = limit
        super().__init__(f"attachment {att.title!r} ({att.id}) of page {att.page_id} is larger than the limit "
                         f"of {limit} bytes")


def cql_date(since: str) -> str:
    """An ISO time as a CQL ``lastmodified`` literal, moved earlier by ``CQL_ZONE_MARGIN`` (naive: UTC)."""
    try:
        moment = datetime.fromisoformat(since)
    except ValueError as exc:
        raise ValueError(f"since {since!r}: not an ISO date and time") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment.astimezone(timezone.utc) - CQL_ZONE_MARGIN).strftime(CQL_DATE)


def cql_string(value: str) -> str:
    """A CQL string literal: double quotes, with backslashes and quotes escaped."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ConfluenceClient:
    """The calls a sync makes against one Confluence, paced and retried by one session."""

    def __init__(self, config: ConfluenceConfig):
        self.config = config
        self.session = PacedSession(config.requests_per_second, config.timeout, config.deadline,
                                    config.allowed_private_hosts)
        self.session.headers["Accept"] = "application/json"
        if config.deployment == "cloud":
            self.session.auth = (config.user, config.token)
        else:
            self.session.headers["Authorization"] = f"Bearer {config.token}"
        self._user_names: dict[str, str | None] = {}  # id -> display name; None: the user API does not know it

    @property
    def requests_made(self) -> int:
        return self.session.requests_made

    # -- listings
    def scope_cql(self, since: str | None = None) -> str:
        """The CQL of a listing: pages in the configured spaces and/or CQL, changed since ``since``."""
        clauses = ["type = page"]
        if self.config.spaces:
            clauses.append("space in (" + ",".join(cql_string(key) for key in self.config.spaces) + ")")
        if self.config.cql:
            clauses.append(f"({self.config.cql})")
        if since:
            clauses.append(f"lastmodified >= {cql_string(cql_date(since))}")
        return " AND ".join(clauses) + " " + LISTING_ORDER

    def list_pages(self, since: str | None = None, resume: str | None = None) -> Iterator[ListingPage]:
        """Pages in scope (changed since ``since``), one listing answer at a time; ``resume`` is a saved
        ``next_link`` to continue from (its query already holds the CQL, so ``since`` is not used then)."""
        link = resume or self._api("/rest/api/content/search", cql=self.scope_cql(since),
                                   limit=self.config.page_size, expand=LISTING_EXPAND)
        while link:
            data = self._json(self._listing_url(link))
            next_link = (data.get("_links") or {}).get("next") or None
            yield ListingPage([PageRef.from_json(item) for item in data.get("results") or []], next_link)
            link = next_link

    def _listing_url(self, link: str) -> str:
        """``link`` as an absolute URL, with the listing's expansions added if a server left them out of its
        next link: a listing without restrictions would make restricted pages look public."""
        url = absolute_url(self.config.url, link)
        if "expand" not in dict(parse_qsl(urlsplit(url).query)):
            url += ("&" if "?" in url else "?") + urlencode({"expand": LISTING_EXPAND})
        return url

    # -- content
    def page_json(self, page_id: str) -> bytes:
        """The page as ``GET /rest/api/content/{id}`` answers it, with everything ``ingest`` parses."""
        url = self._api(f"/rest/api/content/{page_id}", expand=PAGE_EXPAND)
        response = self._get(url)
        if response.status_code == 404:
            raise PageGone(page_id, url)
        self._require_json(response, url)
        return response.content

    def page_ref(self, page_id: str) -> PageRef:
        """One page as a listing gives it (no body): an ancestor outside the listed scope, or a page the
        scope listing did not show, asked for before it leaves the index."""
        url = self._api(f"/rest/api/content/{page_id}", expand=LISTING_EXPAND)
        response = self._get(url)
        if response.status_code == 404:
            raise PageGone(page_id, url)
        return PageRef.from_json(self._decode(response, url))

    def read_restrictions(self, page_id: str) -> tuple[list[str], list[str]]:
        """(groups, users) of one page's own read restrictions: for an ancestor outside the listed scope."""
        page = self.page_ref(page_id)
        return page.read_groups, page.read_users

    # -- attachments
    def attachments(self, page_id: str) -> list[AttachmentRef]:
        """The page's attachments with a configured extension (none configured: no request at all)."""
        if not self.config.attachments:
            return []
        found: list[AttachmentRef] = []
        link = self._api(f"/rest/api/content/{page_id}/child/attachment", limit=self.config.page_size,
                         expand="version")
        while link:
            url = absolute_url(self.config.url, link)
            response = self._get(url)
            if response.status_code == 404:
                raise PageGone(page_id, url)
            data = self._decode(response, url)
            found.extend(AttachmentRef.from_json(item, page_id, self.config.url)
                         for item in data.get("results") or [])
            link = (data.get("_links") or {}).get("next")
        return [att for att in found if att.extension in self.config.attachments]

    def download(self, att: AttachmentRef) -> bytes:
        """The attachment's bytes, streamed: over ``max_attachment_bytes`` (by the listed size, the
        Content-Length or the bytes counted) raises ``TooLarge`` without reading the rest; past the session's
        deadline, ``SourceError``."""
        limit = self.config.max_attachment_bytes
        if att.size > limit:
            raise TooLarge(att, limit)
        response = self._get(att.download, stream=True)
        with response:
            if response.status_code == 404:
                raise PageGone(att.id, att.download)
            try:
                return read_body(response, limit)
            except BodyTooLarge:
                raise TooLarge(att, limit) from None
            except GuardError as exc:
                raise SourceError(str(exc)) from exc

    # -- users
    def users(self, ids) -> dict[str, str]:
        """Display names of the given account ids (Cloud) or user keys (Data Center); unknown ids are left
        out. Each id is asked for once per client."""
        param = "accountId" if self.config.deployment == "cloud" else "key"
        ids = list(dict.fromkeys(ids))
        for user_id in ids:
            if user_id in self._user_names:
                continue
            url = self._api("/rest/api/user", **{param: user_id})
            response = self._get(url)
            self._user_names[user_id] = (None if response.status_code == 404
                                         else str(self._decode(response, url).get("displayName") or "") or None)
        return {user_id: name for user_id in ids if (name := self._user_names.get(user_id))}

    # -- HTTP
    def _api(self, path: str, **params) -> str:
        return self.config.url + path + ("?" + urlencode(params) if params else "")

    def _get(self, url: str, stream: bool = False) -> requests.Response:
        """GET through the session (paced, retried); a 2xx or 404 answer comes back, anything else raises."""
        try:
            response = self.session.get(url, stream=stream)
        except GuardError as exc:  # a refused address or a passed deadline: its sentence names the URL
            raise SourceError(str(exc)) from exc
        except requests.RequestException as exc:
            raise SourceError(f"Confluence at {url} did not answer: {type(exc).__name__}: {exc}") from exc
        if response.status_code in (401, 403):
            response.close()
            raise AuthError(self._auth_advice(url, response.status_code))
        if response.status_code >= 300 and response.status_code != 404:
            detail = self._detail(response)
            response.close()
            raise SourceError(f"Confluence at {url} answered {response.status_code} {response.reason}{detail}")
        return response

    def _auth_advice(self, url: str, status: int) -> str:
        if status == 403:
            return (f"Confluence at {url} answered 403 Forbidden: the credentials were accepted, but their user "
                    "may not do this; check that it may use Confluence and view the spaces in scope")
        if self.config.deployment == "cloud":
            return (f"Confluence Cloud at {url} answered 401 Unauthorized: check the account e-mail "
                    f"({self.config.user}) and its API token")
        return (f"Confluence Data Center at {url} answered 401 Unauthorized: check the personal access token "
                "(sent as a Bearer token)")

    @staticmethod
    def _detail(response: requests.Response) -> str:
        try:
            message = response.json().get("message")
        except ValueError:
            message = response.text
        message = " ".join(str(message or "").split())[:ERROR_DETAIL_CHARS]
        return f": {message}" if message else ""

    def _json(self, url: str) -> dict:
        response = self._get(url)
        if response.status_code == 404:
            raise SourceError(f"Confluence at {url} answered 404 Not Found: is {self.config.url} the base URL?")
        return self._decode(response, url)

    def _decode(self, response: requests.Response, url: str) -> dict:
        self._require_json(response, url)
        try:
            data = response.json()
        except ValueError as exc:
            raise SourceError(f"Confluence at {url} answered JSON that does not parse: {exc}") from exc
        if not isinstance(data, dict):
            raise SourceError(f"Confluence at {url} answered JSON that is not an object")
        return data

    def _require_json(self, response: requests.Response, url: str) -> None:
        """A sign-in page or a proxy's error page answers 200 with HTML: that is no page to index."""
        kind = response.headers.get("Content-Type", "")
        if "json" not in kind:
            raise SourceError(f"Confluence at {url} answered {kind or 'no content type'}, not JSON: "
                              f"is {self.config.url} the base URL, reachable without a sign-in page?")
