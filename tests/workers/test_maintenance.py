"""Beat's index upkeep through the real worker: the session index's deleted evidence dropped."""
from __future__ import annotations

import time

import pytest

from core.settings import load_settings
from workers.app import create_app

UPKEEP_WAIT = 60  # seconds for the task and OpenSearch's merge of a test index


def test_beat_asks_for_the_upkeep_at_the_configured_interval():
    settings = load_settings(environ={"EVIDENT_WORKER_EXPUNGE_SECONDS": "120"})
    schedule = create_app(settings).conf.beat_schedule["evident-expunge-deleted"]
    assert schedule == {"task": "evident.expunge_deleted", "schedule": 120}


@pytest.mark.services
def test_the_worker_drops_the_evidence_an_edit_left_deleted(sample_corpus, worker, stores, settings, jobs):
    """The merge itself is proven on an index of its own (``tests/core/test_index.py``); here the task runs in
    the worker on the session index after its evidence was written again (as a re-ingest does), and ends with none
    of it deleted. Every evidence is written again, so each segment the ingest wrote is wholly deleted: after an
    edit of a few, a large segment can keep a few deletes under the template's ``expunge_deletes_allowed``, which
    the merge leaves by design, and whether one does depends on how the node merged the ingest's writes."""
    import workers.maintenance  # noqa: F401 - registers the task with the app

    alias = settings.opensearch.index_alias
    rewritten = stores.update_by_query(index=alias, body={"query": {"match_all": {}}}, refresh=True)
    assert rewritten["updated"] > 0
    live = stores.count(index=alias)["count"]
    files_finished = sum(minute["finished"] for minute in jobs.activity())
    answer = worker.send_task("evident.expunge_deleted").get(timeout=UPKEEP_WAIT)
    assert answer["live"] == live
    deadline = time.monotonic() + UPKEEP_WAIT
    while answer["deleted"] and time.monotonic() < deadline:
        time.sleep(0.5)
        stores.indices.refresh(index=alias)
        answer = worker.send_task("evident.expunge_deleted").get(timeout=UPKEEP_WAIT)
    assert answer == {"deleted": 0, "live": live, "merging": False}
    # the upkeep is no file: the console's files finished per minute leaves it out
    assert sum(minute["finished"] for minute in jobs.activity()) == files_finished
