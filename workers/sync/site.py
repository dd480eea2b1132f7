"""A web site source's sync: one crawl (``workers.connectors.site``), its events applied to the index.

Each URL's validators and links are remembered in the source's items as soon as its page is applied, so
a crawl cut short is followed by one that asks with ``If-None-Match`` / ``If-Modified-Since`` and gets
304s for what was already done: a crawl is not checkpointed mid-way, it is made cheap to repeat.
"""
from __future__ import annotations

from dataclasses import asdict

from ingest.sources import SourceFile
from workers.connectors.site.connector import SiteCrawler
from workers.connectors.site.models import Failed, Fetched, Gone, PageState, SiteConfig, Skipped, Unchanged
from workers.sync.run import ItemError, SyncRun, now_iso


def crawler_for(run: SyncRun) -> SiteCrawler:
    options, settings = run.entry.options, run.ctx.settings.sources
    config = SiteConfig(start=options["start"], sitemap=options.get("sitemap", ""),
                        max_pages=int(options.get("max_pages") or SiteConfig.max_pages),
                        requests_per_second=float(options.get("requests_per_second") or settings.requests_per_second),
                        timeout=settings.request_timeout, max_bytes=settings.max_attachment_bytes)
    return SiteCrawler(config)


class SiteSync(SyncRun):
    """One crawl of a site; ``step()`` always finishes it (see the module docstring)."""

    def __init__(self, *args, crawler: SiteCrawler | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.crawler = crawler or crawler_for(self)

    def step(self) -> bool:
        started = self.store.checkpoint(self.name).get("started") or now_iso()
        self.store.save_checkpoint(self.name, phase="crawl", started=started, counts={}, error="")
        known_items = self.store.items(self.name)
        # A full sync forgets the validators, not the URLs: every page is read again, and one that is gone
        # is still found gone.
        known = {url: PageState(**record["state"]) if not self.full else PageState(links=record["state"]["links"])
                 for url, record in known_items.items() if record.get("state")}
        try:
            for event in self.crawler.crawl(known):
                self.apply(event, known_items.get(event.url))
        finally:
            self.count("requests", self.crawler.requests_made)
        counts = self.store.checkpoint(self.name).get("counts", {})
        self.store.finish(self.name, "", {"started": started, "finished": now_iso(), "counts": counts,
                                          "full": self.full})
        return True

    def apply(self, event, record: dict | None) -> None:
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
