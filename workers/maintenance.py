"""Index upkeep the worker runs on beat's schedule: deleted evidence dropped from BM25's statistics.

``evident.expunge_deleted`` asks OpenSearch to rewrite the segments of the alias that hold deleted evidence
(``core.index.expunge_deleted``): every edited, re-ingested or removed page leaves its old evidence counted in
BM25's document frequencies and lengths until a merge drops it, so rankings drift with the edit history of
pages that have nothing to do with the question. After the task the scores are those of a fresh index.
"""
from __future__ import annotations

from celery import shared_task

from core.index import expunge_deleted as expunge
from workers.tasks import EvidentTask


@shared_task(bind=True, base=EvidentTask, name="evident.expunge_deleted")
def expunge_deleted(self: EvidentTask) -> dict:
    """Run by Celery beat every ``worker.expunge_seconds``: the alias's deleted and live evidence, and whether
    a merge that drops the deleted ones runs (it runs in OpenSearch, the task does not wait for it)."""
    ctx = self.context
    return expunge(ctx.opensearch, ctx.settings.opensearch.index_alias)
