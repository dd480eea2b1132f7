"""A web site source's sync: one crawl (``workers.connectors.site``), its events applied to the index.

The crawl is checkpointed as it goes: its frontier (the URLs still to visit, in order, and every URL it
queued) lives in Redis (``core.sources``) and moves on in one transaction after each URL's events are
applied, and the pages it may still request sit in the checkpoint. A task hands the rest of the crawl to a
new one after ``sources.items_per_task`` pages indexed or ``sources.seconds_per_task``, as a Confluence
sync does; a task killed mid-page leaves that URL first in the queue for the next. Each URL's validators
and links are remembered in the source's items as soon as its page is applied, so a page asked for again
gets a 304. Every URL queued counts against ``sources.max_listed_per_sync``.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict

from ingest.sources import SourceFile
from workers.connectors.site.connector import Frontier, SiteCrawler
from workers.connectors.site.models import Failed, Fetched, Gone, PageState, SiteConfig, Skipped, Unchanged
from workers.sync.run import ItemError, SyncRun, now_iso


def crawler_for(run: SyncRun) -> SiteCrawler:
    options, settings = run.entry.options, run.ctx.settings.sources
    config = SiteConfig(start=options["start"], sitemap=options.get("sitemap", ""),
                        max_pages=int(options.get("max_pages") or SiteConfig.max_pages),
                        requests_per_second=float(options.get("requests_per_second") or settings.requests_per_second),
                        timeout=settings.request_timeout, max_bytes=settings.max_attachment_bytes,
                        deadline=settings.request_deadline, allowed_private_hosts=settings.allowed_private_hosts)
    return SiteCrawler(config)


class StoredFrontier(Frontier):
    """The crawl's frontier, each move written through to the source's store (and each URL queued counted
    against the listing cap) before the crawl goes on."""

    def __init__(self, run: SyncRun, pages_left: int, queue: Iterable[str] = (), seen: Iterable[str] = ()):
        super().__init__(pages_left, queue, seen)
        self.run = run

    def advance(self, visited: str | None, found: Iterable[str], requested: bool = False) -> list[str]:
        self.run.check_cancelled()  # a request that outlived the removal writes no frontier back
        new = super().advance(visited, found, requested)
        self.run.listed(len(new))
        self.run.store.advance_frontier(self.run.name, visited is not None, new, self.pages_left)
        return new


class SiteSync(SyncRun):
    """One task's share of a site's crawl; ``step()`` says whether the crawl is done (see the module docstring)."""

    def __init__(self, *args, crawler: SiteCrawler | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.crawler = crawler or crawler_for(self)

    def step(self) -> bool:
        """Carry the crawl on from its checkpoint; True when it finished, False when a new task must go on."""
        checkpoint = self.store.checkpoint(self.name)
        if "phase" not in checkpoint:  # none, or only the error of an attempt that never began
            checkpoint = {"phase": "crawl", "started": now_iso(), "full": self.full, "counts": {}, "error": "",
                          "pages_left": self.crawler.config.max_pages}
            self.store.save_checkpoint(self.name, **checkpoint)
        self.full = bool(checkpoint.get("full"))
        known_items = self.store.items(self.name)
        # A full sync forgets the validators, not the URLs: every page is read again, and one that is gone
        # is still found gone.
        known = {url: PageState(**record["state"]) if not self.full else PageState(links=record["state"]["links"])
                 for url, record in known_items.items() if record.get("state")}
        pages_left = checkpoint.get("pages_left", self.crawler.config.max_pages)
        frontier = StoredFrontier(self, pages_left, *self.store.frontier(self.name))
        requests_before = self.crawler.requests_made
        try:
            for event in self.crawler.crawl(known, frontier, self.go_on):
                self.apply(event, known_items.get(event.url))
        finally:
            self.count("requests", self.crawler.requests_made - requests_before)
        if self.handing_over:
            return False
        self.finish("")
        return True

    def apply(self, event, record: dict | None) -> None:
        self.check_cancelled()  # nor any page's state
        if isinstance(event, Fetched):
            self.fetched(event, record)
        elif isinstance(event, Unchanged):
            self.store.set_item(self.name, event.url, {**(record or {}), "state": asdict(event.state)})
            self.count("unchanged")
        elif isinstance(event, Gone):
            if record:
                self.forget(event.url, record)
        elif isinstance(event, Failed):
            self.record(event.url, event.reason)
            self.count("failed")
        elif isinstance(event, Skipped):
            self.count("skipped")

    def fetched(self, event: Fetched, record: dict | None) -> None:
        self.pages_taken += 1
        try:
            indexed = self.index(SourceFile(name=event.source_name, data=event.data, url=event.url, source=self.name))
        except ItemError as exc:
            self.record(event.url, str(exc))
            self.count("failed")
            return
        stale = [d for d in (record or {}).get("doc_ids", []) if d != indexed.doc_id]
        if stale:  # the same URL now parsed as another type (an HTML page replaced by a PDF)
            self.delete(stale)
        self.store.set_item(self.name, event.url, {"state": asdict(event.state), "doc_ids": [indexed.doc_id]})
        self.count("updated" if record else "added")
