"""Reading a corpus folder: which files it holds, which it once held, and what each is sent to a worker with."""
from __future__ import annotations

import json

import pytest

from workers.folder import CorpusFile, discover, load, require_web_url, vanished


def test_vanished_names_the_files_a_folder_no_longer_holds(tmp_path):
    folder = tmp_path / "wiki"
    folder.mkdir()
    (folder / "kept.json").write_text("{}", encoding="utf-8")
    found, _, _ = discover([str(folder)])
    ingested = ["wiki/kept.json", "wiki/gone.json", "wiki/sub/gone.pdf", "other/elsewhere.json"]
    assert vanished(ingested, [str(folder)], found) == ["wiki/gone.json", "wiki/sub/gone.pdf"]


def test_a_single_file_says_nothing_about_what_else_left(tmp_path):
    (tmp_path / "one.json").write_text("{}", encoding="utf-8")
    found, _, _ = discover([str(tmp_path / "one.json")])
    assert vanished(["one.json", f"{tmp_path.name}/two.json"], [str(tmp_path / "one.json")], found) == []


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
