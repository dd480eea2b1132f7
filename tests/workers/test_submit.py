"""Queueing and pruning: files gone from a folder leave the index and the job records."""
from __future__ import annotations

import json
import shutil

from tests.conftest import SAMPLES


def test_prune_removes_the_evidence_of_files_gone_from_their_folder(ingest, jobs, stores, settings, evidence_of,
                                                                    sectioned_page, tmp_path):
    from workers.folder import discover
    from workers.submit import prune

    folder = tmp_path / "handbook"
    folder.mkdir()
    page = sectioned_page
    page["id"] = "98" + page["id"]  # its own doc id, apart from the sample corpus
    (folder / "page.json").write_text(json.dumps(page), encoding="utf-8")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    assert ingest(folder).done == 2
    names = {f"{folder.name}/page.json", f"{folder.name}/manual.pdf"}
    assert names <= set(jobs.ingested_files())
    pdf_doc = f"pdf:{folder.name}/manual.pdf"
    assert evidence_of(pdf_doc)

    (folder / "manual.pdf").unlink()
    found, _, _ = discover([str(folder)])
    removed = prune(jobs, stores, settings, [str(folder)], found)
    assert list(removed) == [f"{folder.name}/manual.pdf"] and removed[f"{folder.name}/manual.pdf"] > 0
    assert evidence_of(pdf_doc) == []
    assert jobs.ingested_files()[f"{folder.name}/page.json"] == [f"confluence:{page['id']}"]  # still there: kept
    assert evidence_of(f"confluence:{page['id']}")
    assert prune(jobs, stores, settings, [str(folder)], found) == {}

    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    status = ingest(folder)  # a file that comes back is ingested again, not skipped as unchanged
    assert status.done == 1 and status.skipped == 1
    assert evidence_of(pdf_doc)

    for path in folder.iterdir():  # an emptied folder takes all its files out of the index
        path.unlink()
    removed = prune(jobs, stores, settings, [str(folder)], [])
    assert sorted(removed) == sorted(names)
    assert evidence_of(pdf_doc) == [] == evidence_of(f"confluence:{page['id']}")
