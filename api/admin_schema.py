"""The answers of the admin endpoints (``api.admin``, ``api.sources``), typed for the OpenAPI document: what a client
of the ingest queue, the jobs and the live sources can rely on. Blobs whose keys are the data's own (the index's
figures, per-task metrics, the search analytics, a source's options and checkpoint) stay objects.

May import ``pydantic`` only.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class RecordedError(BaseModel):
    """An error (or warning) an ingest recorded for one file: its job, the file and the reason, redacted."""

    model_config = ConfigDict(extra="allow")
    job: str = Field(description="the job that recorded it; a live source's is source:<name>")
    file: str
    reason: str
    at: float = Field(0.0, description="when, in epoch seconds")
    path: str = Field("", description="where the worker read the file, for a retry")


class Job(BaseModel):
    """An ingest job: its files' counts by outcome, its state and its recorded errors."""

    model_config = ConfigDict(extra="allow")
    job_id: str
    total: int
    done: int
    skipped: int
    failed: int
    cancelled: int = Field(description="files skipped because the job was cancelled before a worker took them")
    created: float = Field(description="epoch seconds")
    cancel_requested: float = Field(description="when it was cancelled, epoch seconds; 0: not cancelled")
    keywords_pending: bool = Field(description="every file counted, its documents' key phrases not yet refreshed")
    finished: bool
    state: Literal["running", "cancelling", "cancelled", "finished"]
    errors: list[RecordedError]


class Jobs(RootModel[list[Job]]):
    """Recent ingest jobs, newest first."""


class RecordedErrors(RootModel[list[RecordedError]]):
    """The last recorded ingest errors of any job, newest first."""


class Queue(BaseModel):
    """The ingest queue now."""

    queue: str = Field(description="the Celery queue's name")
    waiting: int = Field(description="files waiting in it")
    metrics: dict = Field(description="per task: counts and seconds")


class Retried(BaseModel):
    """A file queued again: the job that takes it."""

    job_id: str
    file: str


class Summary(BaseModel):
    """Everything the admin console shows."""

    index: dict = Field(description="the index's figures: evidence, pages and their counts by kind and source")
    alias: str = Field(description="the index alias this console serves")
    queue: dict = Field(description="the queue's name, the files waiting, and per minute over the last hours")
    jobs: list[Job]
    errors: list[RecordedError]
    searches: dict = Field(description="search analytics of the last days: searches, clicks, top and zero-hit, "
                                       "answer cards shown and marked helpful or not")
    flower: str = Field(description="Celery's monitor beside the API")


class Source(BaseModel):
    """A live source as the admin sees it: its registration, its syncs and the errors they recorded."""

    model_config = ConfigDict(extra="allow")
    name: str
    kind: Literal["confluence", "site"]
    every_seconds: int = Field(description="0: synced only when asked")
    options: dict = Field(description="its options, redacted; never a secret")
    created: float
    items: int = Field(description="items the source holds in the index")
    cursor: str = Field(description="where the next sync lists from; empty: from the start")
    syncs: int
    last_sync: dict | None = Field(description="the last finished sync: started, finished, counts")
    next_sync: str | None = Field(description="now, a time, or none when synced only when asked")
    running: bool
    errors: list[RecordedError]
    under_way: dict | None = Field(description="the sync under way: its phase, start and counts")
    cut_short: dict | None = Field(description="a sync that stopped; the next one continues it")


class Sources(RootModel[list[Source]]):
    """Every registered source."""


class SyncQueued(BaseModel):
    source: str
    queued: bool
    full: bool = Field(description="everything listed and fetched again, not only what changed")


class Removed(BaseModel):
    source: str
    removed_evidence: int = Field(description="evidence of the source's documents taken out of the index")
