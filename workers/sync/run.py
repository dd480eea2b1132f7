"""What every live-source sync shares: the source's secrets, its lock, its counts and errors, and one
document taken through the pipeline into the index.

A sync runs under the source's lock (redis-py's, with an expiry), renewed by a heartbeat thread while the
task runs, so a slow page never lets it lapse and a worker killed mid-sync holds nobody up for longer
than ``sources.lock_seconds``. Counts and the listing position
live in the source's checkpoint (``core.sources``), so a sync cut short by a kill, an outage or its own
page budget is continued by the next task instead of started again.
"""
from __future__ import annotations

import os
import threading
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

    def count(self, outcome: str, amount: int = 1) -> None:
        if amount:
            self.store.count(self.name, outcome, amount)

    def record(self, item: str, reason: str) -> None:
        """An item that could not be synced (or a warning on one): recorded, the sync goes on."""
        self.ctx.jobs.record_error(f"source:{self.name}", item, reason)

    def index(self, file: SourceFile) -> Indexed:
        """Parse, embed and write one document; ``ItemError`` when that cannot be done. A document whose link
        may not be a result link (``core.urls.link_problem``: a ``javascript:`` base, credentials) is refused
        before anything of it is written, as folder ingest refuses one."""
        settings = self.ctx.settings
        try:
            with self.ctx.jobs.keyword_stats() as stats:  # a refused document counts nothing into the statistics
                parsed, evidence = evidence_for(file, settings.ingest, self.ctx.lemmatizer, stats)
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
        for warning in warnings + written["warnings"]:
            self.record(file.name, f"warning: {warning}")
        return Indexed(parsed.document.doc_id, parsed, written["written"])

    def delete(self, doc_ids: list[str]) -> int:
        return delete_documents(self.ctx.opensearch, self.ctx.settings, doc_ids)

    def forget(self, item_id: str, record: dict | None) -> None:
        """An item gone from the source: its documents leave the index, then the store forgets it."""
        if record:
            self.delete(list(record.get("doc_ids", [])))
        self.store.drop_item(self.name, item_id)
        self.count("deleted")

