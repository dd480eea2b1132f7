"""Registering, describing and removing live sources: what the ``evident sources`` command and the admin
API share.

A registration is checked before it is kept (the URL, the deployment, the scope, the interval, the space
groups; its URLs' hosts by ``refuse_private_urls``) and holds no secret: only the names of the environment
variables or files the worker reads the token and user from. What ``describe`` shows is redacted besides
(``core.urls.redact``): a URL registered with ``user:password@`` or a ``?token=`` is shown without them, and
so is any recorded error quoting one.

A registration that cannot work raises ``RegistrationError``: a ``ValueError`` whose message gives the reason,
and which names the field it is about (``name``, ``kind``, ``every``, ``options.<option>``), so that the admin API
can answer as it does for a body that breaks its schema: each error with its parameter.
"""
from __future__ import annotations

import re
import time
from dataclasses import asdict
from datetime import datetime

from opensearchpy import OpenSearch
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.addresses import AllowedHosts, refused_url
from core.index import delete_documents
from core.jobs import JobStore
from core.settings import Settings
from core.sources import SOURCE_KINDS, SourceEntry, SourceStore
from core.urls import redact
from workers.connectors.confluence.access import parse_space_groups
from workers.connectors.confluence.models import DEPLOYMENTS
from workers.connectors.site.models import SettingError, SiteConfig

INTERVAL = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
MIN_INTERVAL = 60  # seconds: beat looks once a minute, and a wiki deserves a breather between syncs
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # it appears in Redis keys and document names
ERRORS_SHOWN = 5  # of a source's recorded errors, the latest: what went wrong, not a log
# Seconds a removal waits for a sync of the source under way to stop (it sees the removal at its next request,
# seconds later); one stuck longer in a request finds the source gone when it is back and writes nothing more.
REMOVE_WAIT_SECONDS = 30
REMOVE_POLL_SECONDS = 0.2  # between looks at the lock while a removal waits: a quick answer, little load on Redis
CHECKPOINT_SHOWN = ("phase", "started", "counts", "error")  # of a sync's checkpoint, what the admin is shown
SECRET_OPTIONS = ("token", "user")  # read by the worker from <name>_env or <name>_file, never stored


class RegistrationError(ValueError):
    """Why a registration cannot work (the message), and the field it is about (``parameter``)."""

    def __init__(self, parameter: str, reason: str):
        super().__init__(reason)
        self.parameter = parameter


def parse_interval(text: str) -> int:
    """``"10m"`` -> 600; ``"0"`` or ``""`` -> 0 (only when asked). ``RegistrationError`` names the value."""
    if not text or text.strip() == "0":
        return 0
    match = INTERVAL.match(text)
    if not match:
        raise RegistrationError("every", f"interval {text!r}: expected a number with s, m, h or d (e.g. 10m)")
    seconds = int(match[1]) * UNIT_SECONDS[match[2]]
    if seconds < MIN_INTERVAL:
        raise RegistrationError("every", f"interval {text!r}: at least {MIN_INTERVAL} s")
    return seconds


class ConfluenceOptions(BaseModel):
    """What a Confluence registration may hold (never a secret, only where the worker reads it)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    url: str
    deployment: str = "cloud"
    token_env: str = ""
    token_file: str = ""
    user_env: str = ""
    user_file: str = ""
    spaces: list[str] = []
    cql: str = ""
    attachments: list[str] = []
    space_groups: str = ""
    requests_per_second: float | None = Field(None, ge=0)


class SiteOptions(BaseModel):
    """What a web site registration may hold."""

    model_config = ConfigDict(extra="forbid", strict=True)
    start: str
    sitemap: str = ""
    max_pages: int | None = Field(None, ge=1)
    requests_per_second: float | None = Field(None, ge=0)


OPTIONS = {"confluence": ConfluenceOptions, "site": SiteOptions}


def typed_options(kind: str, options: dict) -> dict:
    """The options checked for their names and types; ``RegistrationError`` names the first one that is wrong."""
    try:
        return OPTIONS[kind].model_validate(options).model_dump(exclude_defaults=True)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise RegistrationError(f"options.{where}" if where else "options",
                                f"option {where or 'options'}: {error['msg']}") from None


def _check_confluence(options: dict) -> None:
    url = options.get("url", "")
    if not url.startswith(("http://", "https://")):
        raise RegistrationError("options.url", f"url {redact(url)!r}: expected the wiki's http(s) base URL")
    if options.get("deployment", "cloud") not in DEPLOYMENTS:
        raise RegistrationError("options.deployment", f"deployment {options.get('deployment')!r}: expected one of "
                                                      f"{', '.join(DEPLOYMENTS)}")
    if not (options.get("token_env") or options.get("token_file")):
        raise RegistrationError("options.token_env", "a token is needed: name its environment variable "
                                                     "(--token-env) or file (--token-file)")
    if options.get("deployment", "cloud") == "cloud" and not (options.get("user_env") or options.get("user_file")):
        raise RegistrationError("options.user_env", "Confluence Cloud signs in with the account e-mail and the "
                                                    "token: give --user-env")
    if not (options.get("spaces") or options.get("cql")):
        raise RegistrationError("options.spaces", "a scope is needed: --spaces KEY,KEY or --cql QUERY")
    try:
        parse_space_groups(options.get("space_groups", ""))
    except ValueError as exc:
        raise RegistrationError("options.space_groups", str(exc)) from None


def _check_site(options: dict) -> None:
    """The site's start, sitemap and page limit as the crawler takes them (``SiteConfig``, whose ``SettingError``
    names the setting)."""
    try:
        SiteConfig(start=options.get("start", ""), sitemap=options.get("sitemap", ""),
                   max_pages=int(options.get("max_pages") or SiteConfig.max_pages))
    except SettingError as exc:
        raise RegistrationError(f"options.{exc.setting}", str(exc)) from None


def refuse_private_urls(options: dict, allowed_private_hosts: tuple[str, ...]) -> None:
    """``RegistrationError`` with the refusal when a registration's URL (``url``, ``start``, ``sitemap``) has a host that
    resolves to an address that is not public and ``allowed_private_hosts`` (``sources.allowed_private_hosts``)
    does not name: the worker would refuse to fetch it (``core.addresses``), so the admin hears it now. What
    ``evident sources add`` and the admin API call before ``register``."""
    allowed = AllowedHosts.parse(allowed_private_hosts)
    for option in ("url", "start", "sitemap"):
        url = options.get(option)
        if not (isinstance(url, str) and url):
            continue
        try:
            refused = refused_url(url, allowed)
        except ValueError as exc:  # not a URL at all: a port out of range, a bracket left open
            raise RegistrationError(f"options.{option}", f"{option} {exc}") from None
        if refused:
            raise RegistrationError(f"options.{option}", refused)


def register(store: SourceStore, name: str, kind: str, options: dict, every: str = "") -> SourceEntry:
    """Check and keep a source; an existing one of the same name is replaced (its state is kept)."""
    if not NAME.match(name or ""):
        raise RegistrationError("name", f"source name {name!r}: letters, digits, '.', '_' or '-', at most 64")
    if kind not in SOURCE_KINDS:
        raise RegistrationError("kind", f"source kind {kind!r}: expected one of {', '.join(SOURCE_KINDS)}")
    for secret in SECRET_OPTIONS:
        if options.get(secret):
            raise RegistrationError(f"options.{secret}", f"{secret}: never kept as a value; name its environment "
                                                          "variable or file instead")
    options = typed_options(kind, {k: v for k, v in options.items() if v not in (None, "", [])})
    if kind == "confluence":
        _check_confluence(options)
    else:
        _check_site(options)
    entry = SourceEntry(name=name, kind=kind, every_seconds=parse_interval(every), options=options)
    store.add(entry)
    return entry


def describe(store: SourceStore, jobs: JobStore, entry: SourceEntry) -> dict:
    """A source as the admin sees it: its registration, its last sync, the one under way, the next, and the
    last errors its syncs recorded.

    Whether a sync is under way is the lock's to say (a worker killed mid-sync lets it lapse within
    ``sources.lock_seconds``): a checkpoint with the lock held is ``under_way``, one without is ``cut_short``
    (a stopped or killed sync that the next one continues).
    """
    state = store.state(entry.name)
    checkpoint = store.checkpoint(entry.name)
    running = store.lock(entry.name, 1).locked()
    shown = {k: redact(v) if isinstance(v, str) else v for k, v in checkpoint.items()
             if k in CHECKPOINT_SHOWN and v} if checkpoint else None
    last = state["last"]
    next_run = None
    if entry.every_seconds:
        started = last["started"] if last else None
        next_run = "now" if not started or checkpoint else \
            time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                          time.gmtime(_timestamp(started) + entry.every_seconds))
    errors = [e for e in jobs.recent_errors() if e.get("job") == f"source:{entry.name}"][:ERRORS_SHOWN]
    return {**asdict(entry), "options": {k: redact(v) if isinstance(v, str) else v for k, v in entry.options.items()},
            "items": store.item_count(entry.name), "cursor": state["cursor"],
            "syncs": state["syncs"], "last_sync": last, "next_sync": next_run,
            "running": running,
            # Errors recorded before record_error redacted are redacted here, on their way out.
            "errors": [e | {"file": redact(e.get("file", "")), "reason": redact(e.get("reason", ""))} for e in errors],
            "under_way": shown if running else None, "cut_short": None if running else shown}


def _timestamp(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def remove(store: SourceStore, client: OpenSearch, settings: Settings, name: str) -> int:
    """Forget a source; its documents leave the index first. Returns the evidence removed.

    A sync of it under way is cancelled first: it sees the mark at its next request and stops without
    writing more (``workers.sync.run``), and the removal waits for it to let go of the lock (at most
    ``REMOVE_WAIT_SECONDS``), so what it wrote last leaves the index with the rest.
    """
    store.cancel(name)
    lock, deadline = store.lock(name, 1), time.monotonic() + REMOVE_WAIT_SECONDS
    while lock.locked() and time.monotonic() < deadline:
        time.sleep(REMOVE_POLL_SECONDS)
    doc_ids = [d for record in store.items(name).values() for d in record.get("doc_ids", [])]
    removed = delete_documents(client, settings, doc_ids)
    JobStore.from_settings(settings).documents_deleted(doc_ids)
    store.remove(name)
    return removed
