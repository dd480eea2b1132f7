"""Key phrases chosen again at the end of an ingest job, against the keyword statistics of the whole job.

An evidence's key phrases rank its phrases by how rare their words are in the corpus (``ingest.views.keywords``),
counted in Redis as each document is written (``JobStore.count_keywords``). While a job runs, the statistics hold
only what is written so far: the first files of a fresh ingest see almost none, a file ingested again sees the
whole corpus, so the key phrases a file gets at ingest depend on the order and on what came before. The count that
settles a job's last file therefore queues ``evident.refresh_keywords`` (``EvidentTask.settle``): it chooses the key
phrases of every document the job wrote again, from the stored text and lemmas, against the statistics as they
then stand, and rewrites those that changed (and their embedded keyword view, when one is embedded). The job is
finished once it ends. So ingests of a corpus in one job, in any order, fresh or over earlier ingests and
deletions, give the same key phrases; evidence a job did not write keeps those of the statistics of its own job.
Its first task also makes the job's evidence searchable (a job's files are written without a refresh each), so a
finished job is found.
"""
from __future__ import annotations

from types import SimpleNamespace

from celery import shared_task

from core.index import VECTOR_FIELDS, document_evidence, make_searchable, update_evidence
from ingest.views import keywords
from workers.tasks import REASON_CHARS, VIEW_TEXT, EvidentTask, PipelineContext, embedded_views

# Documents one task refreshes before it hands the rest to a new one: a few thousand evidence, seconds of work
# (about 1.4 ms an evidence), far under the soft time limit however big the job.
REFRESH_DOCUMENTS = 200
STORED_FIELDS = ["text", "lemmas", "lang", "keywords"]  # what the key phrases are chosen from, and the old ones


class KeywordRefreshTask(EvidentTask):
    """A refresh that failed for good (an outage past the retries, a refusal) is recorded on its job, and the
    job is finished: its key phrases stay those of the ingest."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        super().on_failure(exc, task_id, args, kwargs, einfo)
        job = kwargs.get("job", "")
        self.jobs.record_error(job, "", f"the key phrases of the job's documents were not chosen again "
                                        f"({type(exc).__name__}: {str(exc)[:REASON_CHARS]}); ingesting the files "
                                        "again with --force chooses them again")
        self.jobs.keywords_refreshed(job)


@shared_task(bind=True, base=KeywordRefreshTask, name="evident.refresh_keywords")
def refresh_keywords(self: KeywordRefreshTask, *, job: str, start: int = 0) -> dict:
    """The key phrases of the job's documents from ``start`` on (in doc id order), ``REFRESH_DOCUMENTS`` of them;
    a new task takes the rest, and the last one finishes the job. A task delivered again does its share again,
    with the same result."""
    ctx = self.context
    if not start:  # the job's files were written unrefreshed (``workers.tasks.ingest_file``): found from here on
        make_searchable(ctx.opensearch, ctx.settings)
    doc_ids = ctx.jobs.document_ids(job)
    share = doc_ids[start:start + REFRESH_DOCUMENTS]
    changed = refresh_documents(ctx, share)
    if start + REFRESH_DOCUMENTS < len(doc_ids):
        self.app.send_task("evident.refresh_keywords", kwargs={"job": job, "start": start + REFRESH_DOCUMENTS})
    else:
        ctx.jobs.keywords_refreshed(job)
    return {"job": job, "documents": len(share), "changed": changed}


def refresh_documents(ctx: PipelineContext, doc_ids: list[str]) -> int:
    """Choose the key phrases of these documents' evidence against the keyword statistics as they stand, as the
    ingest does (``ingest.assemble``), and write those that changed; returns how many changed."""
    settings = ctx.settings
    found = document_evidence(ctx.opensearch, settings, doc_ids, STORED_FIELDS)
    stats = ctx.jobs.keyword_stats()
    stats.read(lemma for source in found.values() for lemma in source.get("lemmas", "").split())
    changes: dict[str, dict] = {}
    for evidence_id, source in found.items():
        chosen = keywords(source.get("text", ""), source.get("lemmas", "").split(), source.get("lang", ""),
                          stats=stats, top=settings.ingest.keyword_count, lemmatizer=ctx.lemmatizer)
        if chosen != source.get("keywords", []):
            changes[evidence_id] = {"keywords": chosen}
    if "keywords" in embedded_views(settings):
        texts = {evidence_id: VIEW_TEXT["keywords"](SimpleNamespace(**fields))
                 for evidence_id, fields in changes.items()}
        embedded = [evidence_id for evidence_id, text in texts.items() if text]
        vectors = dict(zip(embedded, ctx.embedder.embed([texts[evidence_id] for evidence_id in embedded])))
        for evidence_id, fields in changes.items():
            fields[VECTOR_FIELDS["keywords"]] = vectors.get(evidence_id)  # none: no key phrases left to embed
    update_evidence(ctx.opensearch, settings, changes)
    return len(changes)
