"""What every live-source sync shares: the source's secrets, its lock, its counts and errors, its budget per
task, and one document taken through the pipeline into the index.

A sync runs under the source's lock (redis-py's, with an expiry), renewed by a heartbeat thread while the
task runs, so a slow page never lets it lapse and a worker killed mid-sync holds nobody up for longer
than ``sources.lock_seconds``. Counts and the listing position
live in the source's checkpoint (``core.sources``), so a sync cut short by a kill, an outage, the time
limit or its own budget is continued by the next task instead of started again.

Before each page (and each listing request) a task asks ``go_on``: a source being removed ends the sync at
once (``SyncCancelled``, nothing more written), and a task past ``sources.items_per_task`` pages or
``sources.seconds_per_task`` hands the rest to a new one. A sync that lists more than
``sources.max_listed_per_sync`` ids ends in a recorded error (``ListingCapped``).
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from redis.exceptions import LockError

from core.index import delete_documents
from core.sources import SourceEntry, SourceStore
from core.urls import link_problem
from ingest.blocks import ParsedDocument, ParseError
from ingest.pipeline import evidence_for
from ingest.sources import SourceFile
from workers.tasks import EvidenceRefused, PipelineContext, llm_summaries, write_evidence


HEARTBEATS_PER_LOCK = 3  # the lock is renewed three times per expiry: two renewals may fail before it lapses


class ItemError(Exception):
    """One document that could not be indexed (not a document ingest can parse, or refused by OpenSearch):
    recorded with the reason, and the sync goes on with the next."""


class SourceConfigError(ValueError):
    """A source whose registration cannot work (a missing secret, a bad option): names the source and why."""


class SyncCancelled(Exception):
    """The source is being removed (``evident sources remove``): the sync stops without writing more."""


class ListingCapped(Exception):
    """A sync listed more ids than ``sources.max_listed_per_sync``: it ends, and nothing is deleted for it."""


def source_secret(entry: SourceEntry, what: str) -> str:
    """A secret of the source, read when the sync runs from the environment variable or file it names.

    The registration keeps only ``<what>_env`` or ``<what>_file``, never the value.
    """
    options = entry.options
    if options.get(f"{what}_env"):
        variable = options[f"{what}_env"]
        value = os.environ.get(variable, "")
        if not value:
            raise SourceConfigError(f"source {entry.name!r}: environment variable {variable} is not set "
                                    f"for the worker (it holds the {what})")
        return value
    if options.get(f"{what}_file"):
        path = Path(options[f"{what}_file"])
        try:
            return path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise SourceConfigError(f"source {entry.name!r}: cannot read the {what} file {path} ({exc})") from exc
    return ""


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Indexed:
    """A document written: its id, its parsed form (title, breadcrumb) and how many evidence it holds."""

    doc_id: str
    parsed: ParsedDocument
    evidence: int


class SyncRun:
    """One task's share of a source's sync: the lock it holds, and what it does to the index and the store."""

    def __init__(self, ctx: PipelineContext, store: SourceStore, entry: SourceEntry, full: bool = False):
        self.ctx = ctx
        self.store = store
        self.entry = entry
        self.full = full
        self.lock = store.lock(entry.name, ctx.settings.sources.lock_seconds)
        self.began = time.monotonic()
        self.pages_taken = 0  # pages this task indexed: its budget is sources.items_per_task
        self.handing_over = False  # True once go_on said this task's budget is spent
        self.got_further = False  # True once this task counted anything besides requests
        self.cancelled = False

    @property
    def name(self) -> str:
        return self.entry.name

    @contextmanager
    def locked(self) -> Iterator[bool]:
        """Hold the source's lock for the block (True), or yield False at once when another task holds it."""
        if not self.lock.acquire():
            yield False
            return
        stop = threading.Event()
        interval = self.ctx.settings.sources.lock_seconds / HEARTBEATS_PER_LOCK

        def heartbeat() -> None:
            while not stop.wait(interval):
                try:
                    self.lock.reacquire()
                except LockError:  # lost (a stall longer than the lock): the block's own writes still end
                    return

        beating = threading.Thread(target=heartbeat, name=f"lock-{self.name}", daemon=True)
        beating.start()
        try:
            yield True
        finally:
            stop.set()
            beating.join()
            try:
                self.lock.release()
            except LockError:  # it lapsed and may be another task's now: not ours to free
                pass

    def check_cancelled(self) -> None:
        """``SyncCancelled`` when the source is being removed or gone: from then on nothing is written."""
        if self.cancelled or self.store.cancelled(self.name):
            self.cancelled = True
            raise SyncCancelled(f"source {self.name!r} was removed; its sync stopped")

    def go_on(self) -> bool:
        """Asked before each page: whether this task takes one more (False: its page or time budget is spent,
        and a new task continues); ``SyncCancelled`` when the source is being removed."""
        self.check_cancelled()
        sources = self.ctx.settings.sources
        self.handing_over = (self.pages_taken >= sources.items_per_task
                             or time.monotonic() - self.began >= sources.seconds_per_task)
        return not self.handing_over

    def listed(self, ids: int) -> None:
        """Count ``ids`` a listing gave; ``ListingCapped`` when the sync's count would pass the cap."""
        cap = self.ctx.settings.sources.max_listed_per_sync
        if self.store.checkpoint(self.name).get("counts", {}).get("listed", 0) + ids > cap:
            raise ListingCapped(f"source {self.name!r}: its listing went past {cap} ids in one sync ([sources] "
                                "max_listed_per_sync, EVIDENT_SOURCES_MAX_LISTED_PER_SYNC), as a server sending "
                                "next links for ever does; the sync ended there, and nothing was deleted for it")
        self.count("listed", ids)

    def count(self, outcome: str, amount: int = 1) -> None:
        if amount and not self.cancelled:  # a removed source's keys are not written again
            self.store.count(self.name, outcome, amount)
            self.got_further |= outcome != "requests"

    def record(self, item: str, reason: str) -> None:
        """An item that could not be synced (or a warning on one): recorded, the sync goes on."""
        if not self.cancelled:
            self.ctx.jobs.record_error(f"source:{self.name}", item, reason)

    def finish(self, cursor: str, error: str = "") -> None:
        """End the sync: the cursor becomes the source's, and its counts (with the cursor and an error that ended
        it, if any) its last sync."""
        checkpoint = self.store.checkpoint(self.name)
        self.store.finish(self.name, cursor, {"started": checkpoint.get("started") or now_iso(), "finished": now_iso(),
                                              "counts": checkpoint.get("counts", {}), "full": self.full,
                                              **({"cursor": cursor} if cursor else {}),
                                              **({"error": error} if error else {})})

    def index(self, file: SourceFile) -> Indexed:
        """Parse, embed and write one document; ``ItemError`` when that cannot be done. A document whose link
        may not be a result link (``core.urls.link_problem``: a ``javascript:`` base, credentials) is refused
        before anything of it is written, as folder ingest refuses one."""
        settings = self.ctx.settings
        try:
            parsed, evidence = evidence_for(file, settings.ingest, self.ctx.lemmatizer, self.ctx.jobs.keyword_stats())
            problem = link_problem(parsed.document.url, settings.ingest.files_base_url)
            if problem:
                raise ItemError(f"{file.name}: {problem}, so it was not indexed")
        except ParseError as exc:
            raise ItemError(f"{exc}; not indexed") from exc
        warnings = [*parsed.errors, *llm_summaries(settings, evidence)]
        try:
            written = write_evidence(self.ctx, parsed.document.doc_id, evidence, file.name)
        except EvidenceRefused as exc:  # a mapping conflict, a field too large, a missing alias
            raise ItemError(f"{file.name}: {exc}; not indexed") from exc
        if self.store.cancelled(self.name):  # removed while it was parsed: its evidence goes with the source
            self.delete([parsed.document.doc_id])
            self.check_cancelled()
        for warning in warnings + written["warnings"]:
            self.record(file.name, f"warning: {warning}")
        return Indexed(parsed.document.doc_id, parsed, written["written"])

    def delete(self, doc_ids: list[str]) -> int:
        """Documents out of the index and out of the keyword statistics."""
        removed = delete_documents(self.ctx.opensearch, self.ctx.settings, doc_ids)
        self.ctx.jobs.documents_deleted(doc_ids)
        return removed

    def forget(self, item_id: str, record: dict | None) -> None:
        """An item gone from the source: its documents leave the index, then the store forgets it."""
        if record:
            self.delete(list(record.get("doc_ids", [])))
        self.store.drop_item(self.name, item_id)
        self.count("deleted")

