"""Ingest tasks: a file in, its evidence embedded and written to OpenSearch, its job counted.

``EvidentTask`` is the base of every task: it times each run, counts outcomes
into Redis metrics, and retries on OpenSearch or Redis outages with Celery's
exponential backoff. Bad input is not retried: it is recorded on the job with
the file and the reason, and the rest of the job goes on.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict
from pathlib import PurePosixPath

from celery import Task, shared_task
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout
from redis.exceptions import ConnectionError as RedisConnectionError

from core.embedding import Embedder
from core.index import VECTOR_FIELDS, connect, replace_document, to_source
from core.jobs import JobStore
from core.llm import LLMError, chat_completion
from core.settings import Settings
from ingest.blocks import ParseError
from ingest.evidence import Evidence
from ingest.pipeline import evidence_for
from ingest.views import LLMSummarizer
from text.lemmas import Lemmatizer
from ingest.sources import SourceFile
from workers.folder import require_web_url
from workers.grounding import term_evidence
from workers.submit import content_tokens, unpack

class PipelineContext:
    """What a worker process loads once: clients, the embedder, the lemmatizer."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.opensearch = connect(settings)
        self.jobs = JobStore.from_url(settings.redis.url)
        self.embedder = Embedder(settings.embedding)
        self.lemmatizer = Lemmatizer()


class EvidentTask(Task):
    """Base task: metrics per task name and retries with backoff when a service is down."""

    autoretry_for = (OpenSearchConnectionError, ConnectionTimeout, RedisConnectionError)
    # Waits of up to 2, 4, 8, 16, 32, 64 s (jitter takes a random share, capped at 120): six retries ride out
    # a restart of OpenSearch or Redis, then the task fails and is recorded instead of waiting forever.
    retry_backoff = 2
    retry_backoff_max = 120
    retry_jitter = True
    max_retries = 6
    _context: PipelineContext | None = None

    @property
    def context(self) -> PipelineContext:
        if EvidentTask._context is None:
            EvidentTask._context = PipelineContext(self.app.evident_settings)
        return EvidentTask._context

    def before_start(self, task_id, args, kwargs):
        self.request.evident_started = time.perf_counter()

    def _measure(self, outcome: str) -> None:
        started = getattr(self.request, "evident_started", None)
        jobs = self.context.jobs
        jobs.metric(self.name, outcome)
        jobs.record_activity(finished=int(outcome != "retried"))  # the console's throughput and queue per minute
        if started is not None:
            jobs.metric(self.name, "seconds", time.perf_counter() - started)

    def on_success(self, retval, task_id, args, kwargs):
        self._measure("succeeded")

    def on_retry(self, exc, task_id, args, kwargs, einfo):
        self._measure("retried")

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        self._measure("failed")
        job_id = kwargs.get("job_id", "")
        file_name = kwargs.get("name", "")
        self.context.jobs.record_error(job_id, file_name, f"{type(exc).__name__}: {exc}",
                                       self.context.jobs.origin(job_id, file_name))
        self.context.jobs.count(job_id, "failed")


def fingerprint(data: bytes, settings: Settings) -> str:
    """Content plus the settings that shape evidence: a changed config re-ingests everything."""
    digest = hashlib.sha1(data)
    shaping = [asdict(settings.ingest), settings.embedding.model, embedded_views(settings)]
    digest.update(json.dumps(shaping, sort_keys=True).encode())
    return digest.hexdigest()


VIEW_TEXT = {  # what the embedder reads of an evidence for each view ('' when the evidence lacks the view)
    "context": lambda e: e.context,
    "summary": lambda e: e.summary,
    "keywords": lambda e: ", ".join(e.keywords),
}


def embedded_views(settings: Settings) -> tuple[str, ...]:
    """The views search reads (``search.views``) and those ``embedding.extra_views`` asks for besides: a view
    nobody searches is not worth the embedder's time, which is most of an ingest's."""
    return tuple(dict.fromkeys([*settings.search.views, *settings.embedding.extra_views]))


def view_texts(items: list[Evidence], views: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """(evidence position, view, text) for each view an evidence has, in the order they are embedded."""
    return [(i, view, text) for view in views for i, e in enumerate(items) if (text := VIEW_TEXT[view](e))]


def embed_views(embedder: Embedder, items: list[Evidence], views: tuple[str, ...]) -> list[dict[str, list[float]]]:
    """Vectors of ``views`` for each evidence, in one call, so the embedder batches across views."""
    vectors: list[dict[str, list[float]]] = [{} for _ in items]
    wanted = view_texts(items, views)
    for (i, view, _text), vector in zip(wanted, embedder.embed([text for _i, _view, text in wanted])):
        vectors[i][VECTOR_FIELDS[view]] = vector
    return vectors


def llm_summaries(settings: Settings, evidence: list[Evidence]) -> list[str]:
    """Let the configured LLM endpoint rewrite the summary view; on failure the extractive one stays.

    Returns warnings to record (one per failure kind, so a dead endpoint does not flood the job).
    """
    config = settings.llm
    if not (config.base_url and config.model):
        return []
    llm = LLMSummarizer()
    warnings: set[str] = set()
    for item in evidence:
        if not item.summary:
            continue
        messages = llm.messages(item.text, item.lang, " ".join([item.title, *item.heading_path]))
        try:
            answer = chat_completion(config.base_url, config.model, config.api_key, messages, config.timeout,
                                     **llm.options())
        except LLMError as exc:
            warnings.add(f"LLM summary failed ({exc}); kept the extractive summary")
            continue
        if summary := llm.clean(answer):
            item.summary = summary
    return sorted(warnings)


def write_evidence(ctx: PipelineContext, doc_id: str, evidence: list[Evidence]) -> dict:
    vectors = embed_views(ctx.embedder, evidence, embedded_views(ctx.settings))
    sources = [to_source(e.to_dict(), v) for e, v in zip(evidence, vectors)]
    result = replace_document(ctx.opensearch, ctx.settings, doc_id, sources)
    if result["errors"]:
        raise RuntimeError(f"{len(result['errors'])} evidence rejected by OpenSearch: {result['errors'][0]}")
    return result


def index_file(ctx: PipelineContext, file: SourceFile, force: bool = False,
               targets: list[SourceFile] | None = None) -> dict:
    """Parse, embed and write one file; returns what happened (skipped when unchanged since last time).

    A CSV file is read only as a back-of-book index; a PDF may be one besides being a document, grounded in
    ``targets`` (the files it points to). A document without an absolute http(s) URL is refused (ValueError
    naming the file and how to give it one) before anything of it is written.
    """
    settings = ctx.settings
    content_print = fingerprint(file.data, settings)
    # A file ingested before its doc ids were recorded goes through once more, so it can be pruned later.
    if not force and ctx.jobs.fingerprint(file.name) == content_print and ctx.jobs.documents(file.name) is not None:
        return {"file": file.name, "outcome": "skipped"}
    result = {"file": file.name, "outcome": "done", "evidence": 0, "removed": 0, "warnings": []}
    doc_ids: list[str] = []
    suffix = PurePosixPath(file.name).suffix.lower()
    if suffix != ".csv":
        with ctx.jobs.keyword_stats() as stats:  # a refused document counts nothing into the statistics
            parsed, evidence = evidence_for(file, settings.ingest, ctx.lemmatizer, stats)
            require_web_url(file.name, parsed.document.url)
        warnings = [*parsed.errors, *llm_summaries(settings, evidence)]
        written = write_evidence(ctx, parsed.document.doc_id, evidence)
        result.update(doc_id=parsed.document.doc_id, evidence=written["written"], removed=written["removed"],
                      warnings=warnings)
        doc_ids.append(parsed.document.doc_id)
    if suffix in (".pdf", ".csv"):
        terms, problems = term_evidence(file, targets or [], settings.ingest, ctx.embedder, ctx.lemmatizer)
        by_doc: dict[str, list[Evidence]] = {}
        for e in terms:
            by_doc.setdefault(e.doc_id, []).append(e)
        for doc_id, group in by_doc.items():
            result["evidence"] += write_evidence(ctx, doc_id, group)["written"]
            doc_ids.append(doc_id)
        result["warnings"] += [f"index term: {p}" for p in problems]
        result["terms"] = len(terms)
    ctx.jobs.set_fingerprint(file.name, content_print)
    ctx.jobs.remember_documents(file.name, doc_ids)
    return result


@shared_task(bind=True, base=EvidentTask, name="evident.ingest_file")
def ingest_file(self: EvidentTask, *, job_id: str, name: str, file: dict, targets: list[dict] | None = None,
                force: bool = False) -> dict:
    """``file`` and ``targets`` are ``workers.submit.pack`` messages: the bytes come with the task or through
    Redis, never from a disk of the submitting machine."""
    ctx = self.context
    messages = [file, *(targets or [])]
    try:
        result = index_file(ctx, unpack(file, ctx.jobs), force=force,
                            targets=[unpack(t, ctx.jobs) for t in targets or []])
        problems = [f"warning: {warning}" for warning in result.get("warnings", [])]
    except (ParseError, OSError, ValueError) as exc:
        # Bad input: recorded with the file and the reason; never retried, never stops the job.
        result, problems = {"file": name, "outcome": "failed", "reason": str(exc)}, [str(exc)]
    ctx.jobs.drop_content(content_tokens(messages))  # not on an outage (raised above): the retry reads them
    origin = ctx.jobs.origin(job_id, name) if problems else ""
    for problem in problems:
        ctx.jobs.record_error(job_id, name, problem, origin)
    ctx.jobs.count(job_id, result["outcome"])
    return result
