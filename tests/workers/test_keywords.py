"""Key phrases and keyword statistics that do not depend on history, through the real worker: a corpus ingested
in one order, again with --force, removed, and ingested in another order gives the same key phrases and the same
statistics each time, and its removal leaves the statistics as they were before it."""
from __future__ import annotations

import dataclasses
import shutil
import uuid

import numpy as np
import redis
from opensearchpy import helpers

from tests.conftest import HARBORLANE

PAGES = 4  # the smallest pages of the harborlane wiki: enough for their words to be rarer in one than another
INGEST_WAIT = 600  # seconds a job of them may take here, the models loading first included
COMMON = 50  # evidence of a made-up document counted with one evidence's lemmas: they become the corpus's commonest


def copy_pages(tmp_path, count: int):
    """The ``count`` smallest pages of the harborlane wiki, copied into a folder whose name (the source's) is the
    test's own."""
    folder = tmp_path / f"wiki-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    for page in sorted((HARBORLANE / "pages").glob("*.json"), key=lambda path: path.stat().st_size)[:count]:
        shutil.copy(page, folder / page.name)
    return folder


def stored(client, settings, folder, fields: list[str]) -> dict[str, dict]:
    """These fields of each evidence of the pages from ``folder``, by evidence id."""
    hits = helpers.scan(client, index=settings.opensearch.index_alias,
                        query={"query": {"wildcard": {"doc_id": f"*:{folder.name}:*"}}, "_source": fields})
    return {hit["_id"]: hit["_source"] for hit in hits}


def test_key_phrases_do_not_depend_on_the_order_or_on_earlier_ingests(ingest, worker, jobs, stores, settings,
                                                                       pruned_after, tmp_path):
    from workers.folder import discover
    from workers.submit import file_task, prune, wait_for_job

    corpus = copy_pages(tmp_path, PAGES)
    pruned_after(corpus)
    client = redis.Redis.from_url(settings.redis.url, decode_responses=True)

    def statistics() -> tuple[dict[str, str], int]:
        """Lemma -> evidence counted with it, and the evidence counted, as Redis holds them for the test alias."""
        df, evidence = (jobs._registry_key(part) for part in ("keyword-df", "keyword-docs"))  # noqa: SLF001
        return client.hgetall(df), int(client.get(evidence) or 0)

    def key_phrases() -> dict[str, list[str]]:
        return {evidence_id: fields["keywords"] for evidence_id, fields in stored(stores, settings, corpus,
                                                                                  ["keywords"]).items()}

    before = statistics()
    assert ingest(corpus).done == PAGES  # the biggest file first
    first = key_phrases(), statistics()
    assert len(first[0]) > 4 * PAGES and sum(map(len, first[0].values())) > 0
    assert first[1][1] == before[1] + len(first[0])  # every evidence counted once

    assert ingest(corpus, force=True).done == PAGES  # every file again, over the statistics of the first ingest
    assert (key_phrases(), statistics()) == first

    prune(jobs, stores, settings, [str(corpus)], [])  # the whole folder gone
    assert not key_phrases() and statistics() == before

    files, missing, _skipped = discover([str(corpus)])
    assert not missing
    job_id = jobs.create(len(files))
    for item in sorted(files, key=lambda item: item.path.stat().st_size):  # the smallest file first this time
        arguments, _problems = file_task(item, jobs, settings)
        worker.send_task("evident.ingest_file", kwargs={"job_id": job_id, "name": item.name, "force": False,
                                                        **arguments})
    status = wait_for_job(jobs, job_id, INGEST_WAIT)
    assert (status.done, status.finished) == (PAGES, True)
    assert (key_phrases(), statistics()) == first


def test_a_refresh_rewrites_the_key_phrases_the_statistics_moved_and_their_embedded_view(ingest, jobs, stores,
                                                                                         settings, pruned_after,
                                                                                         tmp_path):
    """Statistics in which one evidence's words became the commonest: the refresh gives it and the evidence
    sharing them other key phrases, and a vector of the new ones where the keyword view is embedded; once that
    made-up document is gone, the refresh gives the key phrases of the ingest back."""
    from workers.keywords import refresh_documents
    from workers.tasks import PipelineContext

    corpus = copy_pages(tmp_path, 2)
    pruned_after(corpus)
    ingest(corpus)
    ingested = stored(stores, settings, corpus, ["doc_id", "keywords", "lemmas"])
    doc_ids = sorted({fields["doc_id"] for fields in ingested.values()})
    keyword_view = dataclasses.replace(settings, embedding=dataclasses.replace(settings.embedding,
                                                                               extra_views=("keywords",)))
    ctx = PipelineContext(keyword_view)
    shared = max(ingested.values(), key=lambda fields: len(fields["keywords"]))["lemmas"].split()
    jobs.count_keywords("made-up", [shared] * COMMON)
    try:
        changed = refresh_documents(ctx, doc_ids)
        refreshed = stored(stores, settings, corpus, ["keywords", "vec_keywords"])
        moved = [evidence_id for evidence_id in ingested
                 if refreshed[evidence_id]["keywords"] != ingested[evidence_id]["keywords"]]
        assert changed == len(moved) > 0
        for evidence_id in moved:
            fields = refreshed[evidence_id]
            expected, = ctx.embedder.embed([", ".join(fields["keywords"])])
            assert np.allclose(fields["vec_keywords"], expected, atol=1e-4)
        assert all("vec_keywords" not in refreshed[evidence_id] for evidence_id in set(ingested) - set(moved))
    finally:
        jobs.documents_deleted(["made-up"])
    assert refresh_documents(ctx, doc_ids) == len(moved)
    assert {evidence_id: fields["keywords"] for evidence_id, fields in stored(
        stores, settings, corpus, ["keywords"]).items()} == {i: f["keywords"] for i, f in ingested.items()}
