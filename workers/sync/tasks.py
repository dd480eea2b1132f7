"""The Celery tasks of live sources: one source's sync, and the beat task that starts the syncs that are due.

``evident.sync_source`` takes the source's lock without waiting: when another task holds it, the sync is
already under way and this one answers ``busy``. A sync that ran out of its page budget queues its own
continuation after letting the lock go, so other sources' tasks get their turn in between. A source that
cannot be reached or is misconfigured fails this task with the reason recorded (a sentence, redacted: it
is also the task's result, which Celery logs); its checkpoint stays, and the next sync continues from it.
"""
from __future__ import annotations

import time
from datetime import datetime

from celery import shared_task
from requests import RequestException

from core.sources import SourceStore
from core.urls import redact
from workers.connectors.confluence.connector import SourceError
from workers.sync.confluence import ConfluenceSync
from workers.sync.run import SourceConfigError
from workers.sync.site import SiteSync
from workers.tasks import EvidentTask

SYNCS = {"confluence": ConfluenceSync, "site": SiteSync}
_stores: dict[str, SourceStore] = {}


def store_for(task: EvidentTask) -> SourceStore:
    url = task.context.settings.redis.url
    if url not in _stores:
        _stores[url] = SourceStore.from_url(url)
    return _stores[url]


@shared_task(bind=True, base=EvidentTask, name="evident.sync_source")
def sync_source(self: EvidentTask, *, name: str, full: bool = False) -> dict:
    ctx, store = self.context, store_for(self)
    entry = store.get(name)
    if entry is None:
        return {"source": name, "outcome": "failed", "reason": "no such source"}
    try:
        run = SYNCS[entry.kind](ctx, store, entry, full=full)
    except (SourceConfigError, ValueError) as exc:
        reason = redact(f"{exc}; the sync did not start (register the source again with what is missing)")
        ctx.jobs.record_error(f"source:{name}", name, reason)
        store.save_checkpoint(name, error=reason)
        return {"source": name, "outcome": "failed", "reason": reason}
    with run.locked() as holding:
        if not holding:
            return {"source": name, "outcome": "busy"}
        try:
            if full:
                store.reset(name)
            finished = run.step()
        except (SourceError, RequestException) as exc:
            reason = redact(f"the sync stopped ({type(exc).__name__}: {exc}); what it indexed stays, and the "
                            f"next sync continues from where this one stopped")
            ctx.jobs.record_error(f"source:{name}", name, reason)
            store.save_checkpoint(name, error=reason)
            return {"source": name, "outcome": "failed", "reason": reason}
    if not finished:
        sync_source.apply_async(kwargs={"name": name})
        return {"source": name, "outcome": "continued"}
    return {"source": name, "outcome": "done", **(store.state(name)["last"] or {})}


def due(store: SourceStore, name: str, every_seconds: int, now: float) -> bool:
    """A source's sync is due when its interval has passed since the last one started, or one was cut short."""
    if store.checkpoint(name):
        return True
    last = store.state(name)["last"]
    if not last:
        return True
    return now - datetime.fromisoformat(last["started"]).timestamp() >= every_seconds


@shared_task(bind=True, base=EvidentTask, name="evident.schedule_sources")
def schedule_sources(self: EvidentTask) -> list[str]:
    """Run by Celery beat every ``sources.schedule_seconds``: queue the sync of every source that is due."""
    store, now = store_for(self), time.time()
    started = []
    for entry in store.all():
        if entry.every_seconds and due(store, entry.name, entry.every_seconds, now) \
                and not store.lock(entry.name, 1).locked():
            sync_source.apply_async(kwargs={"name": entry.name})
            started.append(entry.name)
    return started
