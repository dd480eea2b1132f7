"""Where a document comes from decides its id, through the real worker, Redis and OpenSearch: two folders never
overwrite each other, a page id twice in one source keeps the first, an edited manifest counts at the next
ingest, nothing outside the folder is read, and an index written before sources were named is not doubled."""
from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from ingest.sources import SourceFile
from tests.ingest.sources.pdf_helpers import builders

BASE = "https://files.example.org/"
PART = "accounts-part1.pdf"  # a PDF a back-of-book index below points into


def doc(kind: str, folder, name: str) -> str:
    """The id of a document of a folder ingest: its kind, its source (the folder's name), its name there."""
    return f"{kind}:{folder.name}:{folder.name}/{name}"


def page(text: str, title: str = "A page") -> str:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>"


def folder_of(tmp_path, name: str, files: dict[str, str], manifest: dict | None = None):
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(manifest or {"base": BASE}), encoding="utf-8")
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def texts(evidence: list[dict]) -> str:
    return " ".join(e["text"] for e in evidence)


def test_two_folders_of_one_name_are_refused_until_named_apart_then_keep_their_own(ingest, jobs, stores, settings,
                                                                                   evidence_of, pruned_after,
                                                                                   tmp_path):
    from workers.folder import discover
    from workers.submit import claim_sources, prune

    first = folder_of(tmp_path / "c1", "site", {"a.html": page("The walrus ledger opens at nine."),
                                                "b.html": page("The heron roster closes at five.")})
    second = folder_of(tmp_path / "c2", "site", {"a.html": page("The otter almanac moved to Tuesday.")})
    pruned_after(first)
    pruned_after(second, "site-2")
    found, _, _ = discover([str(first)])
    assert claim_sources(jobs, [str(first)], found) == []
    assert ingest(first).done == 2
    found, _, _ = discover([str(second)])
    [refusal] = claim_sources(jobs, [str(second)], found)  # it would overwrite the first one's a.html
    assert refusal.startswith(f"{second.resolve()}: its source name 'site' is that of the folder {first.resolve()}")
    assert "--source NAME" in refusal

    found, _, _ = discover([str(second)], "site-2")
    assert claim_sources(jobs, [str(second)], found, "site-2") == []
    assert ingest(second, source="site-2").done == 1
    assert "walrus" in texts(evidence_of("html:site:site/a.html"))
    assert "otter" in texts(evidence_of("html:site-2:site/a.html"))
    assert prune(jobs, stores, settings, [str(second)], found, "site-2") == {}  # c1's b.html is not c2's to prune
    assert "heron" in texts(evidence_of("html:site:site/b.html"))

    shutil.move(first, tmp_path / "c3")  # a folder moved: its name passes to where it is now
    moved = tmp_path / "c3" / "site"
    found, _, _ = discover([str(moved)])
    assert claim_sources(jobs, [str(moved)], found) == []
    pruned_after(moved)


def test_ids_that_named_a_folder_by_its_path_move_to_its_name_at_the_next_ingest(worker, ingest, jobs, settings,
                                                                                 evidence_of, pruned_after,
                                                                                 tmp_path):
    from workers.submit import pack, wait_for_job

    folder = folder_of(tmp_path, "moving-site", {"a.html": page("The cormorant timetable changed.")})
    pruned_after(folder)
    # What an ingest wrote while a folder's source was its absolute path: key and doc id both name the path.
    old = SourceFile("moving-site/a.html", (folder / "a.html").read_bytes(), url=f"{BASE}a.html",
                     source=str(folder.resolve()))
    job_id = jobs.create(1)
    worker.send_task("evident.ingest_file", kwargs={"job_id": job_id, "name": old.name,
                                                    "file": pack(old, jobs, settings.transfer)})
    assert wait_for_job(jobs, job_id, timeout=600).done == 1
    old_id = f"html:{folder.resolve()}:moving-site/a.html"
    assert evidence_of(old_id) and old.key in jobs.ingested_files()

    assert ingest(folder).done == 1  # not skipped as unchanged: the new key has no fingerprint yet
    assert evidence_of(old_id) == []
    assert "cormorant" in texts(evidence_of("html:moving-site:moving-site/a.html"))
    assert old.key not in jobs.ingested_files()
    assert jobs.claim_document(old_id, "another:file") == "another:file"  # the old id's claim went with it
    jobs.release_documents("another:file", [old_id])
    assert ingest(folder).skipped == 1


def test_a_page_id_twice_in_one_source_keeps_the_first_and_names_both(ingest, jobs, stores, settings, evidence_of,
                                                                      sectioned_page, pruned_after, tmp_path):
    from workers.folder import discover
    from workers.submit import prune

    folder = tmp_path / "wiki"
    folder.mkdir()
    pruned_after(folder)
    original = sectioned_page
    original["id"] = "77" + original["id"]  # its own doc id, apart from the sample corpus
    impostor = json.loads(json.dumps(original))
    impostor["body"]["storage"]["value"] = "<p>The impostor mongoose rewrote this page.</p>"
    (folder / "a.json").write_text(json.dumps(original), encoding="utf-8")
    (folder / "b.json").write_text(json.dumps(impostor), encoding="utf-8")
    status = ingest(folder)
    assert (status.done, status.failed) == (1, 1)
    [error] = status.errors
    page_doc = f"confluence:{folder.name}:{original['id']}"  # a page's id within its source
    assert error["file"] == "wiki/b.json"
    assert error["reason"].startswith(f"wiki/b.json: its document id {page_doc} is already that of "
                                      f"{folder.name}:wiki/a.json;")
    assert "skipped" in error["reason"]
    assert evidence_of(page_doc) and "mongoose" not in texts(evidence_of(page_doc))

    (folder / "a.json").unlink()  # the first file gone and pruned: its id is free for the other
    found, _, _ = discover([str(folder)])
    assert list(prune(jobs, stores, settings, [str(folder)], found)) == ["wiki/a.json"]
    assert ingest(folder).done == 1
    assert "mongoose" in texts(evidence_of(page_doc))
    assert jobs.ingested_files()[f"{folder.name}:wiki/b.json"] == [page_doc]


def test_a_file_whose_page_id_changed_frees_the_old_id_for_another(ingest, evidence_of, sectioned_page,
                                                                    pruned_after, tmp_path):
    folder = tmp_path / "moved"
    folder.mkdir()
    pruned_after(folder)
    page = sectioned_page
    first_id, second_id = "76" + page["id"], "75" + page["id"]
    other = json.loads(json.dumps(page))
    other["id"] = first_id
    other["body"]["storage"]["value"] = "<p>The second copy speaks of a lemur.</p>"
    page["id"] = first_id
    (folder / "a.json").write_text(json.dumps(page), encoding="utf-8")
    (folder / "b.json").write_text(json.dumps(other), encoding="utf-8")
    assert (ingest(folder).failed, ingest(folder).failed) == (1, 1)  # b.json waits while a.json holds the id

    page["id"] = second_id
    (folder / "a.json").write_text(json.dumps(page), encoding="utf-8")
    status = ingest(folder)
    assert (status.done, status.failed) == (2, 0), status.errors
    assert "lemur" in texts(evidence_of(f"confluence:{folder.name}:{first_id}"))
    assert evidence_of(f"confluence:{folder.name}:{second_id}")


def test_an_index_written_before_sources_were_named_is_replaced_not_doubled(worker, ingest, jobs, settings,
                                                                            evidence_of, pruned_after, tmp_path):
    from workers.submit import pack, wait_for_job

    folder = folder_of(tmp_path, "legacy-site", {"a.html": page("The pelican budget was approved.")})
    pruned_after(folder)
    # What an ingest before this change wrote: the file under its folder's name alone, and a doc id without source.
    legacy = SourceFile("legacy-site/a.html", (folder / "a.html").read_bytes(), url=f"{BASE}a.html")
    job_id = jobs.create(1)
    worker.send_task("evident.ingest_file", kwargs={"job_id": job_id, "name": legacy.name,
                                                    "file": pack(legacy, jobs, settings.transfer)})
    assert wait_for_job(jobs, job_id, timeout=600).done == 1
    assert evidence_of("html:legacy-site/a.html") and "legacy-site/a.html" in jobs.ingested_files()

    assert ingest(folder).done == 1  # not skipped as unchanged: the new name has no fingerprint yet
    assert evidence_of("html:legacy-site/a.html") == []
    assert "pelican" in texts(evidence_of(doc("html", folder, "a.html")))
    assert "legacy-site/a.html" not in jobs.ingested_files()
    assert ingest(folder).skipped == 1


def test_a_read_group_added_to_the_manifest_hides_the_page_at_the_next_ingest(ingest, searcher, pruned_after,
                                                                             tmp_path):
    from search.searcher import SearchRequest

    text = "The quokka salary bands for the Zanzibar office are reviewed each spring."
    folder = folder_of(tmp_path, "hr", {"pay.html": page(text, "Quokka salary bands")})
    pruned_after(folder)
    pay = doc("html", folder, "pay.html")

    def found(groups: list[str]) -> bool:
        hits = searcher.search(SearchRequest(query="quokka salary bands Zanzibar", groups=groups)).hits
        return any(hit.doc_id == pay for hit in hits)

    assert ingest(folder).done == 1 and found([])
    (folder / "manifest.json").write_text(json.dumps({"base": BASE, "files": [{"file": "pay.html",
                                                                                "acl": ["hr-team"]}]}),
                                          encoding="utf-8")
    status = ingest(folder)  # a plain ingest, no --force
    assert (status.done, status.skipped) == (1, 0)
    assert not found([]) and found(["hr-team"])


def test_nothing_outside_the_folder_is_read_and_each_refusal_is_recorded(worker, jobs, evidence_of, pruned_after,
                                                                         tmp_path):
    from workers.folder import discover
    from workers.submit import queue_files, wait_for_job

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.html").write_text(page("The xylophone vault code is 4711."), encoding="utf-8")
    rows = [f"{term},{PART},{n}" for n, term in enumerate(("Ledger", "Journal entry"), 1)]
    rows += ["Secret,../outside/secret.html,1", f"Absolute,{outside / 'secret.html'},1", "Linked,link.html,1"]
    folder = folder_of(tmp_path, "indexed", {"index.csv": "term,file,page\n" + "\n".join(rows) + "\n"})
    pruned_after(folder)
    (folder / PART).write_bytes(builders.book_pdf(PART))
    (folder / "link.html").symlink_to(outside / "secret.html")

    files, problems, _ = discover([str(folder)])
    assert sorted(f.name for f in files) == [f"indexed/{PART}", "indexed/index.csv"]
    status = wait_for_job(jobs, queue_files(worker, jobs, files, problems=problems), timeout=600)
    assert status.finished and (status.done, status.failed) == (2, 0), status.errors
    reasons = [(e["file"], e["reason"]) for e in status.errors]
    root = folder.resolve()
    assert (str(root / "link.html"), f"a symlink to {outside / 'secret.html'}, outside the folder {root}; "
                                     f"not followed, skipped") in reasons
    said = " ".join(reason for _file, reason in reasons)
    assert "index target refused: '../outside/secret.html' climbs out of its folder" in said
    assert f"index target refused: '{outside / 'secret.html'}' is an absolute path" in said
    assert f"index target refused: 'link.html' is a symlink to {outside / 'secret.html'}" in said
    assert "xylophone" not in texts(evidence_of())


@pytest.mark.parametrize("change", [{"url": "https://b.example/a"}, {"title": "Pay"}, {"lang": "de"},
                                    {"acl": ["hr-team"]}, {"acl_inherited": [["staff"]]}, {"users": {"1": "Ann"}},
                                    {"source": "docs-2"}, {"data": b"<p>b</p>"}])
def test_what_the_corpus_says_of_a_file_is_in_its_fingerprint(settings, change):
    from workers.tasks import fingerprint

    file = SourceFile("docs/a.html", b"<p>a</p>", url="https://a.example/a", source="docs")
    assert fingerprint(dataclasses.replace(file, **change), settings) != fingerprint(file, settings)
    target = SourceFile("part.pdf", b"%PDF-1.4 one", url="https://a.example/part.pdf")
    assert fingerprint(file, settings, [target]) != fingerprint(file, settings, [
        dataclasses.replace(target, data=b"%PDF-1.4 two")])  # an index's targets count too


def test_another_embedder_backend_re_ingests(settings):
    from workers.tasks import fingerprint

    file = SourceFile("docs/a.html", b"<p>a</p>", url="https://a.example/a", source="docs")
    torch = dataclasses.replace(settings, embedding=dataclasses.replace(settings.embedding, backend="torch"))
    assert settings.embedding.backend != "torch" and fingerprint(file, torch) != fingerprint(file, settings)
