"""Reading a corpus folder: which files it holds, and which files it once held."""
from __future__ import annotations

from workers.folder import discover, vanished


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
