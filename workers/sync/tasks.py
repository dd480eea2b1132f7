"""The Celery tasks of live sources: one source's sync, and the beat task that starts the syncs that are due.

``evident.sync_source`` takes the source's lock without waiting: when another task holds it, the sync is
already under way and this one answers ``busy``. Every task ends in a recorded state, its lock let go:
  * done: the sync finished, its summary is the source's last sync;
  * continued: its budget per task was spent, and it queued its own continuation after letting the lock go,
    so other sources' tasks get their turn in between;
  * stopped: the soft time limit (``[worker] soft_time_limit``) stopped it; the reason is recorded, the
    checkpoint stays, and a continuation is queued when the task got anywhere (a task stuck on one request
    for its whole time is not queued again and again: the next sync tries once more);
  * failed: the source could not be reached or is misconfigured; the reason is recorded (a sentence,
    redacted: it is also the task's result, which Celery logs), the checkpoint stays and the next sync
    continues from it; a listing past ``sources.max_listed_per_sync`` ends the sync in a recorded error;
  * cancelled: the source is being removed; nothing more is written and nothing is queued.
A task that fails anyway (a service down past its retries, something unforeseen) is recorded on its source by
``SyncTask.on_failure``, one killed at the hard time limit by the worker's main process; one whose worker died
leaves the lock to lapse within ``sources.lock_seconds`` and its checkpoint to the next sync.
"""
from __future__ import annotations

import time
from datetime import datetime

from celery import shared_task
from celery.exceptions import TimeLimitExceeded
from requests import RequestException

from core.sources import SourceStore
from core.urls import redact
from workers.connectors.confluence.connector import SourceError
from workers.sync.confluence import ConfluenceSync
from workers.sync.run import ListingCapped, SourceConfigError, SyncCancelled, SyncRun
from workers.sync.site import SiteSync
from workers.tasks import REASON_CHARS, EvidentTask, SoftLimitReached, stopping_at_soft_limit

SYNCS = {"confluence": ConfluenceSync, "site": SiteSync}
_stores: dict[str, SourceStore] = {}


def store_for(task: EvidentTask) -> SourceStore:
    url = task.app.evident_settings.redis.url  # not the task's context: the main process loads no models
    if url not in _stores:
        _stores[url] = SourceStore.from_url(url)
    return _stores[url]


class SyncTask(EvidentTask):
    """A sync's task: one that failed anyway (a service down past its retries, something unforeseen, or killed
    at the hard time limit by the worker's main process) is recorded on its source, checkpoint kept."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        super().on_failure(exc, task_id, args, kwargs, einfo)
        name, store = kwargs.get("name", ""), store_for(self)
        if store.get(name) is None:
            return
        if isinstance(exc, TimeLimitExceeded):
            limit = self.app.evident_settings.worker.time_limit
            why = (f"was stopped after {limit} s ([worker] time_limit, EVIDENT_WORKER_TIME_LIMIT: it did not stop at "
                   "the soft limit, so its worker process was killed)")
        else:
            why = f"stopped ({type(exc).__name__}: {str(exc)[:REASON_CHARS]})"
        stopped(self, store, name, f"the sync {why}; what it indexed stays, and the next sync continues from where "
                                   "it stopped")


def failed(task: EvidentTask, name: str, reason: str) -> dict:
    """Record why a sync failed on the source's errors (redacted); the task's answer."""
    reason = redact(reason)
    task.jobs.record_error(f"source:{name}", name, reason)
    return {"source": name, "outcome": "failed", "reason": reason}


def stopped(task: EvidentTask, store: SourceStore, name: str, reason: str) -> dict:
    """A sync that stopped with its checkpoint kept: the reason recorded, and shown with the checkpoint."""
    answer = failed(task, name, reason)
    store.save_checkpoint(name, error=answer["reason"])
    return answer


def soft_limit_of(task: EvidentTask) -> int:
    """The task's soft time limit in seconds: its own (``apply_async(soft_time_limit=…)``) or the worker's."""
    _hard, soft = task.request.timelimit or (None, None)
    return int(soft or task.app.evident_settings.worker.soft_time_limit)


@shared_task(bind=True, base=SyncTask, name="evident.sync_source")
def sync_source(self: SyncTask, *, name: str, full: bool = False) -> dict:
    ctx, store = self.context, store_for(self)
    entry = store.get(name)
    if entry is None:
        return {"source": name, "outcome": "failed", "reason": "no such source"}
    try:
        run = SYNCS[entry.kind](ctx, store, entry, full=full)
    except (SourceConfigError, ValueError) as exc:
        return stopped(self, store, name, f"{exc}; the sync did not start (register the source again with what "
                                          f"is missing)")
    try:
        with stopping_at_soft_limit(), run.locked() as holding:
            if not holding:
                return {"source": name, "outcome": "busy"}
            answer = step(self, store, run, full)
    except SoftLimitReached:
        limit = soft_limit_of(self)
        if not run.got_further:
            return stopped(self, store, name, f"the sync was stopped by the time limit after {limit} s ([worker] "
                           "soft_time_limit, EVIDENT_WORKER_SOFT_TIME_LIMIT) without getting any further (one "
                           "request or page took all of it); what it indexed stays, and the next sync tries "
                           "again from where it stopped")
        answer = stopped(self, store, name, f"the sync was stopped by the time limit after {limit} s ([worker] "
                         "soft_time_limit, EVIDENT_WORKER_SOFT_TIME_LIMIT); what it indexed stays, and it is "
                         "continued by a new task from where it stopped")
        answer["outcome"] = "stopped"
    if answer["outcome"] in ("continued", "stopped"):
        sync_source.apply_async(kwargs={"name": name})
    return answer


def step(task: SyncTask, store: SourceStore, run: SyncRun, full: bool) -> dict:
    """One task's share of the sync, under the source's lock: its answer (see the module docstring)."""
    name = run.name
    try:
        run.check_cancelled()
        if full:
            store.reset(name)
        elif store.checkpoint(name).get("error"):  # the stop it records is over: this task goes on
            store.save_checkpoint(name, error="")
        if not run.step():
            return {"source": name, "outcome": "continued"}
    except SyncCancelled as exc:
        return {"source": name, "outcome": "cancelled", "reason": str(exc)}
    except ListingCapped as exc:  # the sync ends: its listing is no scope to delete by or to index
        answer = failed(task, name, str(exc))
        run.finish(store.state(name)["cursor"], error=answer["reason"])
        return answer
    except (SourceError, RequestException) as exc:
        return stopped(task, store, name, f"the sync stopped ({type(exc).__name__}: {exc}); what it indexed "
                                          f"stays, and the next sync continues from where this one stopped")
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
