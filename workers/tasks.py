"""Ingest tasks: a file in, its evidence embedded and written to OpenSearch, its job counted.

``EvidentTask`` is the base of every task: it times each run, counts outcomes
into Redis metrics, and retries on OpenSearch or Redis outages with Celery's
exponential backoff. Bad input is not retried: it is recorded on the job with
the file and the reason, and the rest of the job goes on. So is a file that
takes longer than ``[worker] soft_time_limit``, or whose task came back more
than ``[worker] max_deliveries`` times (its worker died on it each time); a
task of a cancelled job is counted as cancelled without reading its file.
"""
from __future__ import annotations

import gc
import hashlib
import json
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import PurePosixPath
from typing import Iterator

from billiard.pool import SIG_SOFT_TIMEOUT
from celery import Task, current_app, shared_task
from celery.exceptions import TimeLimitExceeded
from celery.signals import worker_process_init
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout
from redis.exceptions import ConnectionError as RedisConnectionError

from core.embedding import Embedder
from core.index import (MULTILINGUAL_FIELD, SENTENCE_FIELD, VECTOR_FIELDS, connect, delete_documents,
                        replace_document, to_source)
from core.jobs import JobStore, Settled
from core.multilingual import MultilingualEmbedder, passage_text
from core.llm import LLMError, chat_completion
from core.settings import Settings
from ingest.blocks import ParseError
from ingest.evidence import FORMAT_VERSION, Evidence
from ingest.pipeline import evidence_for
from ingest.views import LLMSummarizer
from ingest.sources import SourceFile
from text.detect import detect_language
from text.lemmas import Lemmatizer
from workers.folder import require_web_url
from workers.grounding import term_evidence
from workers.submit import content_tokens, unpack

# Characters of an unexpected exception's message kept in a recorded error: the cause fits, a message that
# quotes a whole 40,000-character field does not flood the job's errors.
REASON_CHARS = 500


class SoftLimitReached(BaseException):
    """``[worker] soft_time_limit`` reached, raised past every ``except Exception`` on its way up: Celery's own
    SoftTimeLimitExceeded is an Exception, which a parser that skips a bad page and goes on swallows (measured:
    a scanned PDF's OCR went on past the limit, "page 2 could not be read (SoftTimeLimitExceeded)")."""


def _stop_at_soft_limit(signum, frame):
    raise SoftLimitReached()


@contextmanager
def stopping_at_soft_limit() -> Iterator[None]:
    """Within the block the pool's soft time limit signal raises :class:`SoftLimitReached`; the pool's own
    handler is back after it (other tasks keep Celery's behaviour). Only a pool process's main thread gets the
    signal: a worker in a thread (as in the tests) has no time limits, and the block changes nothing there."""
    if SIG_SOFT_TIMEOUT is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(SIG_SOFT_TIMEOUT, _stop_at_soft_limit)
    try:
        yield
    finally:
        signal.signal(SIG_SOFT_TIMEOUT, previous)


class PipelineContext:
    """What a worker process loads once: clients, the embedder, the lemmatizer."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.opensearch = connect(settings)
        self.jobs = JobStore.from_settings(settings)
        self.embedder = Embedder(settings.embedding)
        self.multilingual = MultilingualEmbedder(settings.embedding.threads)  # the pool's processes use the cores
        self.lemmatizer = Lemmatizer()


class EvidentTask(Task):
    """Base task: metrics per task name, retries with backoff when a service is down, and the recording of a
    task that failed anyway (a hard time limit is recorded by the worker's main process, without models)."""

    autoretry_for = (OpenSearchConnectionError, ConnectionTimeout, RedisConnectionError)
    # Waits of up to 2, 4, 8, 16, 32, 64 s (jitter takes a random share, capped at 120): six retries ride out
    # a restart of OpenSearch or Redis, then the task fails and is recorded instead of waiting forever.
    retry_backoff = 2
    retry_backoff_max = 120
    retry_jitter = True
    max_retries = 6
    _context: PipelineContext | None = None
    _jobs: JobStore | None = None

    @property
    def context(self) -> PipelineContext:
        if EvidentTask._context is None:
            EvidentTask._context = PipelineContext(self.app.evident_settings)
        return EvidentTask._context

    @property
    def jobs(self) -> JobStore:
        """The Redis edge alone: what the worker's main process needs to record a task its child could not."""
        if EvidentTask._jobs is None:
            EvidentTask._jobs = JobStore.from_settings(self.app.evident_settings)
        return EvidentTask._jobs

    def before_start(self, task_id, args, kwargs):
        self.request.evident_started = time.perf_counter()

    def _measure(self, outcome: str, kwargs: dict) -> None:
        """The task's outcome and time into its metrics; the console's files finished per minute counts the
        tasks of a job's file only (a sync or the index upkeep is no file), the queue is sampled by every task."""
        started = getattr(self.request, "evident_started", None)
        jobs = self.jobs
        jobs.metric(self.name, outcome)
        jobs.record_activity(finished=int(outcome != "retried" and bool(kwargs.get("job_id"))))
        if started is not None:
            jobs.metric(self.name, "seconds", time.perf_counter() - started)

    def on_success(self, retval, task_id, args, kwargs):
        self._measure("succeeded", kwargs)

    def on_retry(self, exc, task_id, args, kwargs, einfo):
        self._measure("retried", kwargs)

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        self._measure("failed", kwargs)
        job_id = kwargs.get("job_id", "")
        if not job_id:
            return  # no job's file: the failure is in the task's metrics and Celery's log, not a file's error
        file_name = kwargs.get("name", "")
        if isinstance(exc, TimeLimitExceeded):
            limit = self.app.evident_settings.worker.time_limit
            reason = (f"{file_name}: stopped after {limit} s ([worker] time_limit, EVIDENT_WORKER_TIME_LIMIT: it "
                      "did not stop at the soft limit, so its worker process was killed); skipped")
        elif isinstance(exc, self.autoretry_for):
            reason = (f"{file_name}: not indexed: a service did not answer after {self.max_retries} retries "
                      f"({type(exc).__name__}: {exc}); ingest it again once OpenSearch and Redis answer")
        else:
            reason = f"{file_name}: failed ({type(exc).__name__}: {str(exc)[:REASON_CHARS]})"
        if self.jobs.outcome(job_id, file_name) is None:  # recorded before counted: a job done shows its errors
            self.jobs.record_error(job_id, file_name, reason, self.jobs.origin(job_id, file_name))
            self.settle(job_id, "failed", file_name)

    def settle(self, job_id: str, outcome: str, name: str, doc_id: str = "") -> None:
        """Count a file's outcome in its job (``JobStore.count``); the count that settles the job's last file
        queues the refresh of its documents' key phrases (``workers.keywords``)."""
        if self.jobs.count(job_id, outcome, name, doc_id) == Settled.KEYWORDS_DUE:
            self.app.send_task("evident.refresh_keywords", kwargs={"job": job_id})

    def held_back(self, job_id: str, name: str) -> dict | None:
        """What becomes of a file whose task is not to be run; None when it is to be run.

        Not run: a file that already has its outcome in the job (its task came back after it counted), a file
        of a cancelled job (counted as cancelled) and one whose task came back more than ``[worker]
        max_deliveries`` times without an outcome (recorded as failed: the worker died on it each time).
        """
        jobs = self.jobs
        if counted := jobs.outcome(job_id, name):
            return {"file": name, "outcome": counted, "counted": "before"}
        if jobs.cancel_requested(job_id):
            self.settle(job_id, "cancelled", name)
            return {"file": name, "outcome": "cancelled"}
        lost = jobs.delivered(job_id, name) - 1 - self.request.retries  # deliveries that ended in no outcome
        allowed = self.app.evident_settings.worker.max_deliveries
        if lost < allowed:
            return None
        reason = (f"{name}: its worker stopped (killed, or out of memory) each of the {lost} times it read it "
                  f"([worker] max_deliveries {allowed}); skipped")
        jobs.record_error(job_id, name, reason, jobs.origin(job_id, name))
        self.settle(job_id, "failed", name)
        return {"file": name, "outcome": "failed", "reason": reason}


@worker_process_init.connect
def load_models(**_kwargs) -> None:
    """Each worker process loads the models as it starts (they load on first use), so a task's time limit is
    spent on its file alone: measured here, the first file of a fresh process took over 20 s otherwise (the
    language detector's word lists alone 5 s). What they loaded lives as long as the process and is frozen out
    of the garbage collector: a file's parsing leaves enough objects behind to start full collections, and each
    would walk every object of the models again."""
    ctx = current_app.tasks["evident.ingest_file"].context
    ctx.embedder.embed(["warm up"])
    for lang in ctx.lemmatizer.languages:
        ctx.lemmatizer.lemmas("warm up", lang)
    detect_language("warm up")
    gc.freeze()


def fingerprint(file: SourceFile, settings: Settings, targets: list[SourceFile] | None = None) -> str:
    """Content, what the corpus says of it (URL, title, language, read groups, users: an edited manifest.json
    or users.json re-ingests), the files an index points to, and the settings that shape evidence: a changed
    config re-ingests everything."""
    digest = hashlib.sha1()
    for item in (file, *(targets or [])):
        digest.update(hashlib.sha1(item.data).digest())
        digest.update(json.dumps(item.side_information(), sort_keys=True).encode())
    shaping = [asdict(settings.ingest), settings.embedding.model, settings.embedding.backend,
               embedded_views(settings), settings.embedding.max_tokens, settings.search.multilingual,
               FORMAT_VERSION]
    digest.update(json.dumps(shaping, sort_keys=True).encode())
    return digest.hexdigest()


SENTENCE_VIEW = "sentences"  # the view of a leaf evidence's sentences, one vector each
VIEW_TEXT = {  # what the embedder reads of an evidence for each view ('' when the evidence lacks the view)
    "context": lambda e: e.context,
    "summary": lambda e: e.summary,
    "keywords": lambda e: ", ".join(e.keywords),
}


def embedded_views(settings: Settings) -> tuple[str, ...]:
    """The views search reads (``search.views``, and the sentence view while ``search.sentence_weight`` is
    above 0) and those ``embedding.extra_views`` asks for besides: a view nobody searches is not worth the
    embedder's time, which is most of an ingest's."""
    sentences = [SENTENCE_VIEW] if settings.search.sentence_weight > 0 else []
    return tuple(dict.fromkeys([*settings.search.views, *sentences, *settings.embedding.extra_views]))


def view_texts(items: list[Evidence], views: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """(evidence position, view, text) for each view an evidence has, in the order they are embedded; the
    sentence view gives one text per sentence."""
    return [(i, view, text) for view in views for i, e in enumerate(items)
            for text in (e.sentences if view == SENTENCE_VIEW else [VIEW_TEXT[view](e)]) if text]


def embed_views(embedder: Embedder, items: list[Evidence], views: tuple[str, ...]) -> list[dict[str, object]]:
    """Vectors of ``views`` for each evidence, in one call, so the embedder batches across views: a vector per
    view field, and the sentence view as nested objects of a sentence and its vector (``SENTENCE_FIELD``)."""
    vectors: list[dict[str, object]] = [{} for _ in items]
    wanted = view_texts(items, views)
    for (i, view, text), vector in zip(wanted, embedder.embed([text for _i, _view, text in wanted])):
        if view == SENTENCE_VIEW:
            vectors[i].setdefault(SENTENCE_FIELD, []).append({"text": text, "vec": vector})
        else:
            vectors[i][VECTOR_FIELDS[view]] = vector
    return vectors


def embed_multilingual(embedder: MultilingualEmbedder, items: list[Evidence], vectors: list[dict[str, object]],
                       limit: int, name: str) -> list[str]:
    """The multilingual view (``MULTILINGUAL_FIELD``) added to ``vectors`` for the document's first ``limit`` leaf
    evidence in reading order, those with a sentence view (``ingest.assemble``): a container repeats its leaves'
    text, and the stage takes a page's closest leaf (``search.multilingual``). Returns the warning to record,
    naming the document (``name``), when leaves were left out."""
    leaves = [i for i, e in enumerate(items) if e.sentences]
    texts = [passage_text(items[i].title, items[i].heading_path, items[i].text) for i in leaves[:limit]]
    for i, vector in zip(leaves, embedder.passages(texts)):
        vectors[i][MULTILINGUAL_FIELD] = vector
    if len(leaves) <= limit:
        return []
    return [f"{name}: the document has {len(leaves):,} leaf evidence, over the limit of {limit:,} "
            f"(EVIDENT_INGEST_MAX_MULTILINGUAL_LEAVES_PER_DOCUMENT); the last {len(leaves) - limit:,} were left out "
            "of the multilingual view: their evidence is indexed and found by its other views"]


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


class EvidenceRefused(RuntimeError):
    """OpenSearch refused a document's evidence: said as what the admin can do, not as a file that could not
    be read (the file was read; the index would not take it)."""


def write_evidence(ctx: PipelineContext, doc_id: str, evidence: list[Evidence], name: str,
                   keyword_statistics: bool = True, searchable: bool = True) -> dict:
    """The evidence of one document embedded and written in place of its earlier evidence, and counted into the
    keyword statistics in place of what it counted before (``keyword_statistics``: False for index-term anchors,
    whose key phrases are chosen without them); the result has the warnings to record (``warnings``), naming the
    file (``name``). ``searchable``: found as soon as this returns (else at the next refresh: a job's end makes
    its files' evidence searchable together, ``core.index.replace_document``)."""
    vectors = embed_views(ctx.embedder, evidence, embedded_views(ctx.settings))
    warnings = []
    if ctx.settings.search.multilingual:
        warnings = embed_multilingual(ctx.multilingual, evidence, vectors,
                                      ctx.settings.ingest.max_multilingual_leaves_per_document, name)
    sources = [to_source(e.to_dict(), v) for e, v in zip(evidence, vectors)]
    previous = ctx.jobs.evidence_of(doc_id)
    result = replace_document(ctx.opensearch, ctx.settings, doc_id, sources, previous, searchable)
    written = [source["id"] for source in sources]
    if result["errors"]:
        if previous is not None:  # some may be written: the next write deletes those it does not write again
            ctx.jobs.remember_evidence(doc_id, [*previous, *written])
        raise EvidenceRefused(refusal(ctx.settings.opensearch.index_alias, len(sources), result["errors"]))
    ctx.jobs.remember_evidence(doc_id, written)
    if keyword_statistics:
        ctx.jobs.count_keywords(doc_id, [e.lemmas.split() for e in evidence])
    return {**result, "warnings": warnings}


def refusal(alias: str, count: int, errors: list[str]) -> str:
    """Why OpenSearch refused evidence (``errors``: the bulk items it refused, as JSON), and what to do: a
    missing index alias is almost always a worker started with other settings than the command that queued
    the file."""
    if '"index_not_found_exception"' in errors[0]:
        return (f"the index alias '{alias}' this worker writes to does not exist, so none of its {count} evidence "
                f"was written: start the worker with the EVIDENT_OPENSEARCH_INDEX_ALIAS of the command that "
                f"queued it, or run `evident init` with the worker's settings")
    return f"OpenSearch refused {len(errors)} of its {count} evidence ({str(errors[0])[:REASON_CHARS]})"


def index_file(ctx: PipelineContext, file: SourceFile, force: bool = False,
               targets: list[SourceFile] | None = None, searchable: bool = True) -> dict:
    """Parse, embed and write one file; returns what happened (skipped when unchanged since last time).
    ``searchable``: its evidence found as soon as this returns (``write_evidence``).

    A CSV file is read only as a back-of-book index; a PDF may be one besides being a document, grounded in
    ``targets`` (the files it points to). A document without an absolute http(s) URL is refused (ValueError
    naming the file and how to give it one) before anything of it is written, and so is a document whose id
    another file of the same source holds (``claim``). Documents the file wrote last time and no longer
    writes leave the index.
    """
    settings = ctx.settings
    key = file.key
    content_print = fingerprint(file, settings, targets)
    previous = ctx.jobs.documents(key)
    # A file ingested before its doc ids were recorded goes through once more, so it can be pruned later.
    if not force and ctx.jobs.fingerprint(key) == content_print and previous is not None:
        return {"file": file.name, "outcome": "skipped"}
    result = {"file": file.name, "outcome": "done", "evidence": 0, "removed": 0, "warnings": []}
    doc_ids: list[str] = []
    suffix = PurePosixPath(file.name).suffix.lower()
    if suffix != ".csv":
        parsed, evidence = evidence_for(file, settings.ingest, ctx.lemmatizer, ctx.jobs.keyword_stats())
        require_web_url(file.name, parsed.document.url, settings.ingest.files_base_url)
        claim(ctx, file, parsed.document.doc_id)
        warnings = [*parsed.errors, *llm_summaries(settings, evidence)]
        written = write_evidence(ctx, parsed.document.doc_id, evidence, file.name, searchable=searchable)
        result.update(doc_id=parsed.document.doc_id, evidence=written["written"], removed=written["removed"],
                      warnings=warnings + written["warnings"])
        doc_ids.append(parsed.document.doc_id)
    if suffix in (".pdf", ".csv"):
        terms, problems = term_evidence(file, targets or [], settings.ingest, ctx.embedder, ctx.lemmatizer)
        by_doc: dict[str, list[Evidence]] = {}
        for e in terms:
            by_doc.setdefault(e.doc_id, []).append(e)
        for doc_id, group in by_doc.items():
            written = write_evidence(ctx, doc_id, group, file.name, keyword_statistics=False)
            result["evidence"] += written["written"]
            result["warnings"] += written["warnings"]
            doc_ids.append(doc_id)
        result["warnings"] += [f"index term: {p}" for p in problems]
        result["terms"] = len(terms)
    stale = sorted(set(previous or []) - set(doc_ids))
    if stale:  # a page id that changed, or ids of the name the file had before sources were named
        result["removed"] += delete_documents(ctx.opensearch, settings, stale)
        ctx.jobs.documents_deleted(stale)
        ctx.jobs.release_documents(key, stale)
    ctx.jobs.set_fingerprint(key, content_print)
    ctx.jobs.remember_documents(key, doc_ids)
    return result


def claim(ctx: PipelineContext, file: SourceFile, doc_id: str) -> None:
    """Make the file the owner of ``doc_id``; ValueError naming both files when another file holds it (two
    Confluence pages of one source with the same id): the first keeps its evidence."""
    owner = ctx.jobs.claim_document(doc_id, file.key)
    if owner != file.key:
        raise ValueError(f"{file.name}: its document id {doc_id} is already that of {owner}; skipped, the "
                         f"evidence of {owner} stays. Two files of one source cannot hold the same page id: "
                         f"remove the copy, or prune the other file if it is gone")


@shared_task(bind=True, base=EvidentTask, name="evident.ingest_file")
def ingest_file(self: EvidentTask, *, job_id: str, name: str, file: dict, targets: list[dict] | None = None,
                force: bool = False) -> dict:
    """``file`` and ``targets`` are ``workers.submit.pack`` messages: the bytes come with the task or through
    Redis, never from a disk of the submitting machine. Only an outage of OpenSearch or Redis is retried;
    anything else that goes wrong with the file is recorded on the job as a sentence, and the job goes on."""
    messages = [file, *(targets or [])]
    if (held := self.held_back(job_id, name)) is not None:
        if held.get("counted") != "before":
            self.jobs.drop_content(content_tokens(messages))
        return held
    ctx = self.context
    try:
        with stopping_at_soft_limit():
            # A job's file is found once its job is finished (``workers.keywords`` refreshes the index first).
            result = index_file(ctx, unpack(file, ctx.jobs), force=force,
                                targets=[unpack(t, ctx.jobs) for t in targets or []], searchable=not job_id)
        problems = [f"warning: {warning}" for warning in result.get("warnings", [])]
    except self.autoretry_for:
        raise  # an outage: Celery retries the task with backoff
    except EvidenceRefused as exc:
        reason = f"{name}: {exc}; skipped"
        result, problems = {"file": name, "outcome": "failed", "reason": reason}, [reason]
    except SoftLimitReached:
        limit = ctx.settings.worker.soft_time_limit
        reason = f"{name}: stopped after {limit} s ([worker] soft_time_limit, EVIDENT_WORKER_SOFT_TIME_LIMIT); skipped"
        result, problems = {"file": name, "outcome": "failed", "reason": reason}, [reason]
    except (ParseError, OSError, ValueError) as exc:
        # Bad input: recorded with the file and the reason; never retried, never stops the job.
        result, problems = {"file": name, "outcome": "failed", "reason": str(exc)}, [str(exc)]
    except Exception as exc:  # noqa: BLE001 - whatever else a file's content sets off, the job goes on
        kind = PurePosixPath(name).suffix.lstrip(".").upper() or "a file without an extension"
        reason = f"{name}: could not be read as {kind} ({type(exc).__name__}: {str(exc)[:REASON_CHARS]}); skipped"
        result, problems = {"file": name, "outcome": "failed", "reason": reason}, [reason]
    ctx.jobs.drop_content(content_tokens(messages))  # not on an outage (raised above): the retry reads them
    origin = ctx.jobs.origin(job_id, name) if problems else ""
    for problem in problems:
        ctx.jobs.record_error(job_id, name, problem, origin)
    self.settle(job_id, result["outcome"], name, result.get("doc_id", "") if result["outcome"] == "done" else "")
    return result
