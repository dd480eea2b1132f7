"""The one gate every read of a corpus file goes through: what it reads, what it refuses and why, and that the
readers (a folder's files, a file read again from its recorded path, side files) go through it when they read."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from workers.folder import CorpusFile, discover, load
from workers.path_gate import PathRefused, read_inside


@pytest.fixture
def root(tmp_path):
    """A folder ``root`` with a page and a subfolder; a secret and a folder of secrets beside it (outside)."""
    folder = tmp_path / "root"
    (folder / "sub").mkdir(parents=True)
    (folder / "page.html").write_bytes(b"<p>page</p>")
    (tmp_path / "secret.txt").write_bytes(b"quokka secret")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "page.html").write_bytes(b"<p>quokka secret</p>")
    return folder


def test_a_regular_file_inside_is_read_and_so_is_a_symlink_to_one(root):
    (root / "sub" / "again.html").symlink_to(root / "page.html")
    assert read_inside(root, root / "page.html") == b"<p>page</p>"
    assert read_inside(root, root / "sub" / "again.html") == b"<p>page</p>"


def _bad_paths(root: Path) -> dict[str, tuple[Path, Path, str]]:
    """Each kind of path the gate refuses: (the root, the path, the start of the reason)."""
    outside = root.parent
    (root / "out.html").symlink_to(outside / "secret.txt")
    (root / "relative.html").symlink_to(Path("..") / "secret.txt")
    (root / "dangling.html").symlink_to(root / "nothing.html")
    (root / "loop.html").symlink_to(root / "loop.html")
    (root / "through").symlink_to(outside / "elsewhere")
    os.mkfifo(root / "pipe.html")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(root / "socket.html"))  # the socket file stays once it is closed
    (outside / "link-to-root").symlink_to(root)
    return {"a symlink out": (root, root / "out.html", f"a symlink to {outside / 'secret.txt'}, outside the folder "
                                                       f"{root}"),
            "a relative symlink out": (root, root / "relative.html", f"a symlink to {outside / 'secret.txt'}, outside"),
            "a dangling symlink": (root, root / "dangling.html", f"a dangling symlink (to {root / 'nothing.html'}"),
            "a symlink loop": (root, root / "loop.html", "a symlink loop"),
            "a folder symlinked out": (root, root / "through" / "page.html",
                                       f"reached through a symlink, at {outside / 'elsewhere' / 'page.html'}, outside"),
            "a named pipe": (root, root / "pipe.html", "not a regular file but a named pipe"),
            "a socket": (root, root / "socket.html", "not a regular file but a socket"),
            "a folder": (root, root / "sub", "not a regular file but a folder"),
            "the root itself": (root, root, "not a regular file but a folder"),
            "a device": (Path("/dev"), Path("/dev/null"), "not a regular file but a device"),
            "a root that became a symlink": (outside / "link-to-root", outside / "link-to-root" / "page.html",
                                             f"in a folder, {outside / 'link-to-root'}, that now leads to {root}")}


@pytest.mark.parametrize("case", ["a symlink out", "a relative symlink out", "a dangling symlink", "a symlink loop",
                                  "a folder symlinked out", "a named pipe", "a socket", "a folder", "the root itself",
                                  "a device", "a root that became a symlink"])
def test_each_kind_of_bad_path_is_refused_with_its_reason_and_nothing_is_read(root, case):
    folder, path, reason = _bad_paths(root)[case]
    with pytest.raises(PathRefused) as refused:
        read_inside(folder, path)  # a named pipe would block here if it were opened for reading
    assert str(refused.value).startswith(reason)


def test_a_missing_file_is_not_a_refusal(root):
    with pytest.raises(FileNotFoundError):
        read_inside(root, root / "gone.html")


@pytest.mark.parametrize("recorded", [True, False], ids=["found by the walk", "read again from its recorded path"])
def test_a_file_swapped_for_a_symlink_out_after_it_was_found_is_refused_when_read(root, recorded):
    [found], _, _ = discover([str(root)])
    (root / "page.html").unlink()
    (root / "page.html").symlink_to(root.parent / "secret.txt")
    item = found if recorded else CorpusFile(found.path, found.name)  # the admin's retry builds the second
    with pytest.raises(PathRefused, match=f"^root/page.html: a symlink to {root.parent / 'secret.txt'}, outside the "
                                          f"folder {root}; not read$"):
        load(item, "https://files.example/")


def test_a_retry_whose_folder_became_a_symlink_out_is_refused_not_rerooted(root):
    (root / "sub" / "page.html").write_bytes(b"<p>sub page</p>")
    [_, found], _, _ = discover([str(root)])
    (root / "sub" / "page.html").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(root.parent / "elsewhere")  # holds a page.html of the same name
    with pytest.raises(PathRefused, match="^root/sub/page.html: reached through a symlink"):
        load(CorpusFile(found.path, found.name), "https://files.example/")


def test_a_file_swapped_for_a_named_pipe_is_refused_without_blocking(root):
    [found], _, _ = discover([str(root)])
    (root / "page.html").unlink()
    os.mkfifo(root / "page.html")
    with pytest.raises(PathRefused, match="^root/page.html: not a regular file but a named pipe; not read$"):
        load(found, "https://files.example/")
