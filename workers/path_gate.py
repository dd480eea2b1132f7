"""The one gate every read of a corpus file goes through: a file of a folder ingest, the admin's retry of it, the
files a back-of-book index points to, and a folder's side files (manifest.json, users.json).

A file is read only when it is a regular file inside its source root. ``resolved_inside`` resolves the path to
see where it leads: a symlink to a file inside the root is read as that file; a symlink out of the root, one that
dangles or loops, and a root that is itself no longer its own real path are refused. ``read_inside`` then opens
the resolved file from the root down, one component at a time, never following a symlink (``O_NOFOLLOW``), and
checks the open descriptor (``fstat``): a file or folder swapped for a symlink between the check and the read is
refused instead of followed, and a named pipe, socket or device is refused without blocking the reader
(``O_NONBLOCK``). A refusal is a ``PathRefused`` whose message says why; the caller adds the file's name.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symlink (it changed while being read)"),
         (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
         (stat.S_ISBLK, "a device"))


class PathRefused(ValueError):
    """A path the gate does not read; the message says why, without the file's name (the caller adds it)."""


def require_regular(mode: int) -> None:
    """Raise PathRefused naming what a file of this ``st_mode`` is, unless it is a regular file."""
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in KINDS if test(mode)), "a special file")
    raise PathRefused(f"not a regular file but {kind}")


def resolved_inside(root: Path, path: Path) -> Path:
    """Where ``path`` leads, when that is inside ``root`` (an absolute, resolved folder).

    Raises PathRefused for a symlink that dangles, loops or leads out of the root, a path reached through a
    symlink out of it, or a root that is no longer its own real path (a symlink put on its way); FileNotFoundError
    when nothing is at ``path`` (the caller says what a missing file means to it).
    """
    real_root = root.resolve()
    if real_root != root:
        raise PathRefused(f"in a folder, {root}, that now leads to {real_root} (a symlink on its way)")
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        if path.is_symlink():
            raise PathRefused(f"a dangling symlink (to {os.readlink(path)}, which does not exist)") from None
        raise
    except (OSError, RuntimeError) as exc:  # a symlink loop: RuntimeError before Python 3.13, ELOOP from it on
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            raise
        raise PathRefused("a symlink loop (it leads back to itself)") from exc
    if target.is_relative_to(root):
        return target
    if path.is_symlink():
        raise PathRefused(f"a symlink to {target}, outside the folder {root}")
    raise PathRefused(f"reached through a symlink, at {target}, outside the folder {root}"
                      if target != Path(os.path.abspath(path)) else f"at {target}, outside the folder {root}")


def read_inside(root: Path, path: Path) -> bytes:
    """The bytes of ``path``, a regular file inside ``root``, read through a descriptor opened without
    following a symlink (see the module's docstring).

    Raises PathRefused saying why the file is not read, FileNotFoundError when it is not there, OSError when the
    system refuses it (permissions).
    """
    parts = resolved_inside(root, path).relative_to(root).parts
    if not parts:
        raise PathRefused("not a regular file but a folder")
    with os.fdopen(_open_below(root, parts), "rb") as opened:
        require_regular(os.fstat(opened.fileno()).st_mode)
        return opened.read()


def _open_below(root: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of ``root/parts...``, each folder and the file opened below the one before without following
    a symlink; the file's kind is checked before it is opened, so a device is never opened."""
    folder = None
    try:
        folder = os.open(root, OPEN_FOLDER)
        for part in parts[:-1]:
            inner = os.open(part, OPEN_FOLDER, dir_fd=folder)
            os.close(folder)
            folder = inner
        require_regular(os.stat(parts[-1], dir_fd=folder, follow_symlinks=False).st_mode)
        return os.open(parts[-1], OPEN_FILE, dir_fd=folder)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # the root, a folder or the file became a symlink after the check
            raise PathRefused(f"changed into a symlink while being read ({exc.strerror}); not followed") from exc
        raise
    finally:
        if folder is not None:
            os.close(folder)
