"""Reading a corpus folder: which files it holds, which it once held, and what each is sent to a worker with."""
from __future__ import annotations

import json
import os

import pytest

from workers.folder import CorpusFile, FolderNotes, discover, inside, load, require_web_url, vanished


def test_vanished_names_the_files_a_folder_no_longer_holds(tmp_path):
    folder = tmp_path / "wiki"
    folder.mkdir()
    (folder / "kept.json").write_text("{}", encoding="utf-8")
    found, _, _ = discover([str(folder)])
    root = str(folder.resolve())
    ingested = ["wiki:wiki/kept.json", "wiki:wiki/gone.json", "wiki:wiki/sub/gone.pdf",
                "pages:wiki/gone.json", "wiki/gone.json",  # another source's; one from before sources were named
                f"{root}:wiki/kept.json", f"{root}:wiki/old.json"]  # from when a folder's source was its path
    assert vanished(ingested, [str(folder)], found) == {"wiki:wiki/gone.json": "wiki/gone.json",
                                                        "wiki:wiki/sub/gone.pdf": "wiki/sub/gone.pdf",
                                                        f"{root}:wiki/old.json": "wiki/old.json"}
    assert vanished(ingested, [str(folder)], found, "pages") == {"pages:wiki/gone.json": "wiki/gone.json",
                                                                 f"{root}:wiki/old.json": "wiki/old.json"}


def test_two_folders_with_files_of_the_same_names_are_two_sources(tmp_path):
    for copy in ("c1", "c2"):
        (tmp_path / copy / "site").mkdir(parents=True)
        (tmp_path / copy / "site" / "a.html").write_text("<p>a</p>", encoding="utf-8")
    (tmp_path / "c1" / "site" / "b.html").write_text("<p>b</p>", encoding="utf-8")
    first, _, _ = discover([str(tmp_path / "c1" / "site")])
    second, _, _ = discover([str(tmp_path / "c2" / "site")], "site-2")  # named apart (workers.submit.claim_sources)
    assert [f.name for f in first] == ["site/a.html", "site/b.html"] and [f.name for f in second] == ["site/a.html"]
    assert (first[0].key, second[0].key) == ("site:site/a.html", "site-2:site/a.html")
    assert vanished([f.key for f in first], [str(tmp_path / "c2" / "site")], second, "site-2") == {}  # c1's b.html


def test_a_single_file_says_nothing_about_what_else_left(tmp_path):
    (tmp_path / "one.json").write_text("{}", encoding="utf-8")
    found, _, _ = discover([str(tmp_path / "one.json")])
    assert found[0].key == f"{tmp_path.name}:{tmp_path.name}/one.json"  # as if it came with its folder
    assert vanished([found[0].key, f"{tmp_path.name}:{tmp_path.name}/two.json"], [str(tmp_path / "one.json")],
                    found) == {}


# -- nothing outside the folder is read ------------------------------------------------------------------------
@pytest.fixture
def walled(tmp_path):
    """A folder ``root`` with one page, and a secret beside it (outside)."""
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "page.html").write_text("<p>x</p>", encoding="utf-8")
    (tmp_path / "secret.pdf").write_bytes(b"%PDF-1.4 secret")
    return root


def test_symlinks_out_of_the_folder_dangling_or_in_a_loop_are_errors_with_reasons(walled):
    (walled / "out.pdf").symlink_to(walled.parent / "secret.pdf")
    (walled / "outdir").symlink_to(walled.parent)
    (walled / "gone.html").symlink_to(walled / "nothing.html")
    (walled / "loop.html").symlink_to(walled / "loop.html")
    (walled / "sub" / "again.html").symlink_to(walled / "page.html")  # inside: read under its own name
    (walled / "same").symlink_to(walled / "sub")  # inside: its files are read where they are
    found, errors, skipped = discover([str(walled)])
    assert [f.name for f in found] == ["root/page.html", "root/sub/again.html"] and skipped == []
    reasons = {os.path.basename(e.path): e.reason for e in errors}
    assert set(reasons) == {"out.pdf", "outdir", "gone.html", "loop.html"}
    assert reasons["out.pdf"].startswith(f"a symlink to {walled.parent / 'secret.pdf'}, outside the folder")
    assert "outside the folder" in reasons["outdir"]
    assert reasons["gone.html"].startswith("a dangling symlink") and reasons["loop.html"].startswith("a symlink loop")


@pytest.mark.parametrize("name, reason", [("../secret.pdf", "climbs out of its folder with '..'"),
                                          ("sub/../../secret.pdf", "climbs out"), ("/etc/passwd", "an absolute path"),
                                          ("C:\\secret.pdf", "an absolute path"), ("link.pdf", "a symlink to")])
def test_a_name_a_source_gives_must_stay_inside_the_folder(walled, name, reason):
    (walled / "sub" / "link.pdf").symlink_to(walled.parent / "secret.pdf")
    with pytest.raises(ValueError, match=reason):
        inside(walled, walled / "sub", name)
    assert inside(walled, walled, "page.html") == walled / "page.html"


# -- what a file is sent with: its URL and the users it mentions --------------------------------------------
def _folder(tmp_path, manifest: dict | None = None):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("listed.html", "unlisted report.html"):
        (folder / name).write_text("<html><body><p>x</p></body></html>", encoding="utf-8")
    if manifest is not None:
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def _url(folder, name: str, files_base_url: str = "") -> str:
    return load(CorpusFile(folder / name, f"docs/{name}"), files_base_url).url


def test_a_manifest_gives_urls_by_entry_then_by_base_for_every_file(tmp_path):
    folder = _folder(tmp_path, {"base": "https://intra.example/docs/",
                                "files": [{"file": "listed.html", "url": "https://elsewhere.example/listed"}]})
    assert _url(folder, "listed.html", "https://files.example/") == "https://elsewhere.example/listed"
    assert _url(folder, "unlisted report.html", "https://files.example/") == \
        "https://intra.example/docs/unlisted%20report.html"  # the base covers files it does not list


def test_the_files_base_url_serves_a_folder_without_a_manifest_and_nothing_is_made_up(tmp_path):
    folder = _folder(tmp_path)
    assert _url(folder, "listed.html", "https://files.example/") == "https://files.example/listed.html"
    assert _url(folder, "listed.html") == ""


@pytest.mark.parametrize("url", ["", "file:docs/a.html", "/spaces/HR/pages/1/A", "docs/a.html", "ftp://h/a.pdf",
                                 "https:///no-host", "javascript:alert(1)"])
def test_a_url_a_reader_cannot_open_is_refused_naming_the_file_and_the_fixes(url):
    with pytest.raises(ValueError) as refused:
        require_web_url("docs/a.html", url)
    message = str(refused.value)
    assert message.startswith("docs/a.html: ")
    assert "manifest.json" in message and '"base"' in message and "EVIDENT_INGEST_FILES_BASE_URL" in message


def test_web_urls_pass():
    require_web_url("a.html", "https://intra.example/a.html")
    require_web_url("a.html", "http://intra.example:8080/a.html")


def test_a_page_is_sent_with_the_users_it_mentions_only(tmp_path):
    (tmp_path / "users.json").write_text(json.dumps({"results": [
        {"accountId": "712020:aa", "displayName": "Ann"}, {"accountId": "712020:bb", "displayName": "Bo"},
        {"accountId": "dc-user", "displayName": "Cy"}]}), encoding="utf-8")
    folder = tmp_path / "pages"
    folder.mkdir()
    body = '<p><ac:link><ri:user ri:account-id="712020:aa" /></ac:link> and <ri:user ri:username="dc-user"/></p>'
    (folder / "1.json").write_text(json.dumps({"id": "1", "body": {"storage": {"value": body}}}), encoding="utf-8")
    assert load(CorpusFile(folder / "1.json", "pages/1.json")).users == {"712020:aa": "Ann", "dc-user": "Cy"}


# -- what is wrong in manifest.json and users.json is said, and never fails the folder ---------------------------
def _load(folder, name: str = "listed.html", notes: FolderNotes | None = None):
    return load(CorpusFile(folder / name, f"docs/{name}"), notes=notes)


def test_a_manifest_edit_counts_at_the_next_read(tmp_path):
    folder = _folder(tmp_path, {"files": [{"file": "listed.html", "url": "https://intra.example/listed"}]})
    assert _load(folder).acl == []
    (folder / "manifest.json").write_text(json.dumps({"files": [{"file": "listed.html", "acl": ["hr-team"]}]}),
                                          encoding="utf-8")
    assert _load(folder).acl == ["hr-team"]


def test_a_manifest_entry_naming_no_file_is_said_once_and_the_rest_is_used(tmp_path):
    folder = _folder(tmp_path, {"base": "https://intra.example/", "files": [
        {"url": "https://elsewhere.example/"}, "listed.html", {"file": "../../outside/secret.pdf"},
        {"file": "listed.html", "title": "Listed"}]})
    notes = FolderNotes()
    assert _load(folder, notes=notes).title == "Listed"
    assert _load(folder, "unlisted report.html", notes).url == "https://intra.example/unlisted%20report.html"
    problems = notes.take_problems()
    assert [p.path for p in problems] == [str(folder / "manifest.json")] * 3
    assert [p.reason.split(" (")[0] for p in problems] == ["entry 1", "entry 2", "entry 3"]
    assert all('names no file of its folder; skipped: give it "file"' in p.reason for p in problems)
    assert notes.take_problems() == []  # each said once per run, not once per file


@pytest.mark.parametrize("manifest, why", [("{not json", "cannot be read as JSON"),
                                           ('{"files": [{"file": "listed.html", "acl": ["hr-team"], "acl": []}]}',
                                            "the key 'acl' appears twice"),
                                           ('{"files": {"listed.html": {}}}', '"files" a list'),
                                           ('{"base": 7}', '"base" text'), ("[1]", "must be an object")])
def test_a_manifest_that_cannot_be_read_holds_back_the_folders_files(tmp_path, manifest, why):
    folder = _folder(tmp_path)
    (folder / "manifest.json").write_text(manifest, encoding="utf-8")
    for name in ("listed.html", "unlisted report.html"):  # it may have given them read groups
        with pytest.raises(ValueError) as held:
            _load(folder, name)
        message = str(held.value)
        assert message.startswith(f"docs/{name}: not ingested, {folder / 'manifest.json'} ") and why in message
        assert "instead of going in public" in message


@pytest.mark.parametrize("entry, why", [({"acl": "hr-team"}, '"acl" must be a list of group names'),
                                        ({"acl": [1]}, '"acl" must be a list'), ({"title": 7}, "title must be text"),
                                        ({"url": ["https://a.example/"]}, "url must be text")])
def test_an_entry_with_a_wrong_value_holds_back_its_file_only(tmp_path, entry, why):
    folder = _folder(tmp_path, {"base": "https://intra.example/", "files": [{"file": "listed.html", **entry}]})
    with pytest.raises(ValueError, match=f"^docs/listed.html: not ingested, its entry 1 in .*{why}"):
        _load(folder)
    assert _load(folder, "unlisted report.html").url == "https://intra.example/unlisted%20report.html"


@pytest.mark.parametrize("users, why", [("{oops", "cannot be read as JSON"), ('{"results": {}}', "must be an object"),
                                        ('{"results": [{"accountId": 5}, {"accountId": "a", "displayName": "Ann"}]}',
                                         'user 1 ({"accountId": 5}) needs "accountId" and "displayName" as text')])
def test_a_broken_users_json_is_said_and_its_good_users_are_kept(tmp_path, users, why):
    (tmp_path / "users.json").write_text(users, encoding="utf-8")
    body = '<p><ri:user ri:account-id="a" /></p>'
    (tmp_path / "1.json").write_text(json.dumps({"id": "1", "body": {"storage": {"value": body}}}), encoding="utf-8")
    notes = FolderNotes()
    file = load(CorpusFile(tmp_path / "1.json", "1.json"), notes=notes)
    [problem] = notes.take_problems()
    assert problem.path == str(tmp_path / "users.json") and why in problem.reason
    assert file.users == ({"a": "Ann"} if "user 1" in why else {})


def test_a_file_read_again_from_its_recorded_path_and_name_keeps_its_key(tmp_path):
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "sub" / "a.html").write_text("<p>a</p>", encoding="utf-8")
    [found], _, _ = discover([str(tmp_path / "docs")])
    assert CorpusFile(found.path, found.name).key == found.key == "docs:docs/sub/a.html"
    assert CorpusFile(found.path, found.name).root == found.root == (tmp_path / "docs").resolve()
    assert CorpusFile(found.path, "a.html").key == "sub:a.html"  # a name without folder


def test_a_symlinked_side_file_is_not_followed(walled):
    (walled / "manifest.json").symlink_to(walled.parent / "secret.pdf")
    (walled / "users.json").symlink_to(walled.parent / "secret.pdf")
    found, errors, _ = discover([str(walled)])
    assert [f.name for f in found] == ["root/page.html"] and errors == []
    notes = FolderNotes()
    secret = walled.parent / "secret.pdf"
    with pytest.raises(ValueError, match=f"manifest.json: a symlink to {secret}, outside the folder {walled}; a "
                                         f"side file is read only inside its own folder"):
        load(found[0], notes=notes)
    notes.users(walled)
    [problem] = notes.take_problems()
    assert problem.path == str(walled / "users.json")
    assert problem.reason.startswith(f"a symlink to {secret}, outside the folder {walled}; not read")
