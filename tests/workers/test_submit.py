"""Queueing and pruning: tasks carry the files' bytes (the worker reads no disk of the submitting machine), and
files gone from a folder leave the index and the job records."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil

import pytest
import redis

from core.jobs import INGEST_QUEUE
from ingest.sources import SourceFile
from tests.conftest import SAMPLES

BASE = "https://files.example.org/"
PART = "field-service-manual.pdf"  # the sample's 28 KB PDF, which a back-of-book index below points into
INDEX_CSV = "term,file,page\n" + "".join(f"{term},{PART},{page}\n" for term, page in (
    ("Service mode", 1), ("Life jacket", 1), ("Conductivity cell", 2), ("Salinity probe", 2),
    ("Reference thermometer", 2), ("Battery pack", 3), ("Return number", 3)))


def doc(kind: str, folder, name: str) -> str:
    """The id of a document of a folder ingest: its kind, its source (the folder's name), its name there."""
    return f"{kind}:{folder.name}:{folder.name}/{name}"


def _manifest(folder, base: str = BASE) -> None:
    (folder / "manifest.json").write_text(json.dumps({"base": base}), encoding="utf-8")


@pytest.fixture
def held(worker):
    """The session worker stops taking ingest tasks for the block (Celery's remote control), so a test can
    change the disk between queueing and running."""
    @contextlib.contextmanager
    def hold():
        assert worker.control.cancel_consumer(INGEST_QUEUE, reply=True), "the worker did not answer"
        try:
            yield
        finally:
            assert worker.control.add_consumer(INGEST_QUEUE, reply=True), "the worker did not answer"

    return hold


@pytest.fixture
def bytes_in_redis(settings):
    """How many files' bytes wait in Redis for a worker."""
    client = redis.Redis.from_url(settings.redis.url)
    return lambda: len(client.keys("evident:content:*"))


def test_prune_removes_the_evidence_of_files_gone_from_their_folder(ingest, jobs, stores, settings, evidence_of,
                                                                    sectioned_page, tmp_path):
    from workers.folder import discover
    from workers.submit import prune

    folder = tmp_path / "handbook"
    folder.mkdir()
    _manifest(folder)
    page = sectioned_page
    page["id"] = "98" + page["id"]  # its own doc id, apart from the sample corpus
    (folder / "page.json").write_text(json.dumps(page), encoding="utf-8")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    assert ingest(folder).done == 2
    keys = {f"{folder.name}:handbook/page.json", f"{folder.name}:handbook/manual.pdf"}
    assert keys <= set(jobs.ingested_files())
    pdf_doc, page_doc = doc("pdf", folder, "manual.pdf"), f"confluence:{folder.name}:{page['id']}"
    assert evidence_of(pdf_doc)

    (folder / "manual.pdf").unlink()
    found, _, _ = discover([str(folder)])
    removed = prune(jobs, stores, settings, [str(folder)], found)
    assert list(removed) == [f"{folder.name}/manual.pdf"] and removed[f"{folder.name}/manual.pdf"] > 0
    assert evidence_of(pdf_doc) == []
    assert jobs.ingested_files()[f"{folder.name}:handbook/page.json"] == [page_doc]  # still there: kept
    assert evidence_of(page_doc)
    assert prune(jobs, stores, settings, [str(folder)], found) == {}

    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    status = ingest(folder)  # a file that comes back is ingested again, not skipped as unchanged
    assert status.done == 1 and status.skipped == 1
    assert evidence_of(pdf_doc)

    for path in folder.iterdir():  # an emptied folder takes all its files out of the index
        path.unlink()
    removed = prune(jobs, stores, settings, [str(folder)], [])
    assert sorted(removed) == [f"{folder.name}/manual.pdf", f"{folder.name}/page.json"]
    assert evidence_of(pdf_doc) == [] == evidence_of(page_doc)


def test_the_worker_reads_nothing_from_the_submitting_machines_disk(worker, jobs, settings, stores, evidence_of, held,
                                                                    bytes_in_redis, pruned_after, monkeypatch,
                                                                    tmp_path):
    from workers.folder import discover
    from workers.grounding import term_doc_id
    from workers.submit import queue_files, wait_for_job

    folder = tmp_path / "no-shared-disk"
    folder.mkdir()
    pruned_after(folder)
    _manifest(folder)
    shutil.copy(SAMPLES / "site" / "handbook" / "onboarding.html", folder / "onboarding.html")  # 5 KB: inline
    shutil.copy(SAMPLES / "pdf" / PART, folder / PART)
    (folder / "index.csv").write_text(INDEX_CSV, encoding="utf-8")
    monkeypatch.setattr(settings.transfer, "inline_max_bytes", 16_384)  # the PDF's bytes go through Redis
    with held():
        files, _, _ = discover([str(folder)])
        job_id = queue_files(worker, jobs, files)
        assert bytes_in_redis() == 2  # the PDF, once on its own and once with the index that points into it
        shutil.rmtree(folder)  # gone before any worker runs
    status = wait_for_job(jobs, job_id, timeout=600)
    assert status.finished and status.done == 3 and status.failed == 0, status.errors
    assert bytes_in_redis() == 0  # read and deleted by the worker

    page = evidence_of(doc("html", folder, "onboarding.html"))
    assert page and {e["url"] for e in page} == {f"{BASE}onboarding.html"}
    pdf = evidence_of(doc("pdf", folder, PART))
    assert pdf and all(e["url"].startswith(f"{BASE}{PART}#page=") for e in pdf)
    terms = stores.search(index=settings.opensearch.index_alias, body={
        "size": 100, "query": {"bool": {"filter": [
        {"term": {"doc_id": term_doc_id(SourceFile("no-shared-disk/index.csv", b"", source=folder.name),
                                               PART)}}, {"term": {"kind": "term"}}]}}})["hits"]["hits"]
    assert {h["_source"]["meta"]["term"] for h in terms} == {row.split(",")[0] for row in INDEX_CSV.split("\n")[1:-1]}
    assert all(h["_source"]["url"].startswith(f"{BASE}{PART}#page=") for h in terms)
    folder.mkdir()  # empty again, so that pruning after the test takes its files out of the index


def test_a_file_over_the_size_limit_is_recorded_and_the_rest_go_on(ingest, settings, evidence_of, pruned_after,
                                                                   monkeypatch, tmp_path):
    pruned_after(tmp_path)
    _manifest(tmp_path)
    shutil.copy(SAMPLES / "site" / "handbook" / "onboarding.html", tmp_path / "small.html")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", tmp_path / "big.pdf")  # 28 KB
    monkeypatch.setattr(settings.transfer, "max_file_bytes", 10_000)
    status = ingest(tmp_path)
    assert (status.total, status.done, status.failed) == (2, 1, 1)
    [error] = status.errors
    assert error["file"] == f"{tmp_path.name}/big.pdf" and error["path"] == str(tmp_path / "big.pdf")
    assert "over the limit of 10000" in error["reason"] and "EVIDENT_TRANSFER_MAX_FILE_BYTES" in error["reason"]
    assert evidence_of(doc("pdf", tmp_path, "big.pdf")) == []
    assert evidence_of(doc("html", tmp_path, "small.html"))


def test_a_file_travels_whole_inline_or_through_redis_until_its_bytes_expire(jobs, settings):
    from workers.submit import content_tokens, pack, unpack

    file = SourceFile("docs/a.pdf", bytes(range(256)) * 8, url=f"{BASE}a.pdf", title="A", lang="de",
                      acl=["hr"], acl_inherited=[["staff"]], users={"1": "Ann"}, source="/corpus/docs")
    inline = pack(file, jobs, settings.transfer)
    assert "token" not in inline and unpack(json.loads(json.dumps(inline)), jobs) == file
    through_redis = pack(file, jobs, dataclasses.replace(settings.transfer, inline_max_bytes=1024))
    assert "inline" not in through_redis and unpack(json.loads(json.dumps(through_redis)), jobs) == file
    jobs.drop_content(content_tokens([inline, through_redis]))
    with pytest.raises(ValueError, match="^docs/a.pdf: its bytes expired in Redis"):
        unpack(through_redis, jobs)
