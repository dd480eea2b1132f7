"""Reading a corpus from disk: files to SourceFiles, with what the folder says about them.

Only the submitting side reads here (``workers.submit``); a worker gets the bytes and this side information
with its task. The folder given to ``evident ingest`` (for a single file, its folder) is the source root: every
file read lies inside it, a symlink is never followed out of it, and the source's name is the root's absolute
path, so two folders with files of the same relative name never share a document id. A file's name is the
root folder's own name + its path below the root (``docs/sub/a.html``), the same whether it came with its folder
or alone: every message says it, and with the source it makes the file's key and document id.

A folder may hold ``users.json`` (Confluence account ids -> display names, the REST shape
``{"results": [{"accountId", "displayName"}]}``; also looked for in the parent folder) and ``manifest.json``
(``{"base": URL, "files": [{"file", "url", "title", "lang", "acl"}]}``) giving each file its title, language,
read groups and URL. A file's URL is, in this order: its manifest entry's ``url``, the manifest's ``base`` +
its name, ``[ingest] files_base_url`` + its name; else it has none, and unless its content names one
(Confluence ``_links``) ``require_web_url`` refuses it after parsing. Both are read afresh by each ingest run
(``FolderNotes``), so an edited manifest counts at the next run; what is wrong in them is said in sentences.
"""
from __future__ import annotations

import json
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from core.urls import link_problem
from ingest.sources import SourceFile, source_key

SIDE_FILES = {"users.json", "manifest.json"}
SUFFIXES = {".json", ".html", ".htm", ".pdf", ".csv"}  # a CSV is read as a back-of-book index
ENTRY_TEXTS = ("url", "title", "lang")  # the manifest entry's values that must be strings
SHOWN_ENTRY_CHARS = 80  # how much of a bad manifest entry a message quotes: enough to find it in the file
# How a Confluence storage body names a user (the attributes ingest.sources.confluence resolves), plain or
# JSON-escaped: a file is sent with the names of the users it mentions, not the whole users.json.
USER_MENTION = re.compile(rb'ri:(?:account-id|userkey|username)=\\?"([^"\\]+)')
WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")  # "C:\..." names a file outside the folder on any machine


@dataclass
class CorpusError:
    path: str
    reason: str


@dataclass
class CorpusFile:
    path: Path  # where it is read: inside ``root``
    name: str  # the root folder's name + the path below it: in messages, job records and the document id
    root: Path | None = None  # the source root (resolved); when not given, the folder ``name`` starts with

    def __post_init__(self):
        """Without a root (a file read again from its recorded path and name: the admin's retry), the root is
        the folder the name starts with, so the file keeps its key and document id."""
        if self.root is None:
            path = self.path.parent.resolve() / self.path.name
            parts = PurePosixPath(self.name).parts
            above = path.parents[len(parts) - 2] if 2 <= len(parts) <= len(path.parents) else None
            self.root = above if above is not None and above.name == parts[0] else path.parent
            self.path = path

    @property
    def source(self) -> str:
        """The source's name: its root's absolute path."""
        return str(self.root)

    @property
    def key(self) -> str:
        """The file's key in the worker's fingerprint and documents registries."""
        return source_key(self.source, self.name)


def name_in(root: Path, path: Path) -> str:
    """A file's name in its source: the root folder's own name + the path below it."""
    return f"{root.name}/{path.relative_to(root).as_posix()}"


def inside(root: Path, folder: Path, name: str) -> Path:
    """The file a source names (``name``, relative to ``folder``), when it lies inside ``root``.

    Raises ValueError saying why not: an absolute path or a ``..`` is refused from the name alone, before the
    disk is touched; a symlink is resolved only to see where it points, never opened when that is outside.
    """
    if PurePosixPath(name).is_absolute() or WINDOWS_DRIVE.match(name) or name.startswith("\\"):
        raise ValueError(f"{name!r} is an absolute path; only files inside {root} are read, named relative to "
                         f"{folder}")
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if ".." in parts:
        raise ValueError(f"{name!r} climbs out of its folder with '..'; only files inside {root} are read")
    path = folder.joinpath(*parts)
    try:
        target = path.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise ValueError(f"{name!r} cannot be resolved ({exc})") from exc
    if not target.is_relative_to(root):
        raise ValueError(f"{name!r} is a symlink to {target}, outside {root}; not read")
    return path


def _symlink_problem(link: Path, root: Path) -> str:
    """Why a symlink found in a folder is not ingested, or "" when it points to a file inside the root."""
    try:
        target = link.resolve(strict=True)
    except FileNotFoundError:
        return f"a dangling symlink (to {os.readlink(link)}, which does not exist); skipped"
    except (OSError, RuntimeError):
        return "a symlink loop (it leads back to itself); skipped"
    if not target.is_relative_to(root):
        return f"a symlink to {target}, outside the folder {root}; not followed, skipped"
    return ""


def _walk(root: Path, found: list[CorpusFile], errors: list[CorpusError], skipped: list[Path]) -> None:
    """The files below ``root`` without following a symlink: a symlinked folder inside the root is reached
    through its real path, a symlink out of it, dangling or in a loop is an error naming it."""
    for folder, folders, names in os.walk(root, followlinks=False):
        here = Path(folder)
        for name in sorted([*folders, *names]):
            path = here / name
            if name in SIDE_FILES:  # read by ``FolderNotes``, which refuses a symlinked one
                continue
            if path.is_symlink():
                problem = _symlink_problem(path, root)
                if problem:
                    errors.append(CorpusError(str(path), problem))
                    continue
                if path.is_dir():
                    continue
            elif name in folders:
                continue
            if not path.is_file():  # opening a named pipe would block the ingest forever
                errors.append(CorpusError(str(path), "not a regular file (a named pipe, socket or device); skipped"))
                continue
            if path.suffix.lower() in SUFFIXES:
                found.append(CorpusFile(path, name_in(root, path), root))
            else:
                skipped.append(path)


def discover(paths: list[str]) -> tuple[list[CorpusFile], list[CorpusError], list[Path]]:
    """All candidate files below the given paths, sorted; missing paths and symlinks that cannot be followed
    (dangling, in a loop, out of the folder) are errors.

    Files of other types inside a folder (README, images, ...) are returned as skipped, so the
    caller can say so instead of dropping them silently.
    """
    found: list[CorpusFile] = []
    errors: list[CorpusError] = []
    skipped: list[Path] = []
    for raw in paths:
        given = Path(raw)
        if given.is_file():
            path = given.resolve()
            found.append(CorpusFile(path, name_in(path.parent, path), path.parent))
        elif given.is_dir():
            root = given.resolve()
            batch: list[CorpusFile] = []
            _walk(root, batch, errors, skipped)
            found += sorted(batch, key=lambda item: item.name)
        elif given.is_symlink():
            errors.append(CorpusError(raw, _symlink_problem(given, given.parent.resolve())))
        else:
            errors.append(CorpusError(raw, "no such file or folder"))
    return found, errors, skipped


def vanished(ingested: list[str], paths: list[str], found: list[CorpusFile]) -> dict[str, str]:
    """The registry keys of files once ingested from one of the folders in ``paths`` that the folder no longer
    holds, each with its name.

    Only keys of those folders' own sources are compared (see ``CorpusFile.key``): another folder's files,
    even of the same relative names, are not touched, and a single file given alone says nothing about what
    else left.
    """
    present = {item.key for item in found}
    gone = {}
    for raw in paths:
        if not Path(raw).is_dir():
            continue
        root = Path(raw).resolve()
        prefix = source_key(str(root), "")
        for key in ingested:
            if key.startswith(f"{prefix}{root.name}/") and key not in present:
                gone[key] = key[len(prefix):]
    return dict(sorted(gone.items()))


# -- what the folder says of its files ------------------------------------------------------------------------
@dataclass
class Manifest:
    base: str = ""  # URL prefix of every file in the folder without a ``url`` of its own
    entries: dict[str, dict] = field(default_factory=dict)  # file name -> its entry
    refused: dict[str, str] = field(default_factory=dict)  # file name -> why its entry cannot be used
    unreadable: str = ""  # why the whole manifest cannot be used: none of the folder's files goes in without it


def _shown(entry) -> str:
    text = json.dumps(entry, ensure_ascii=False)
    return text if len(text) <= SHOWN_ENTRY_CHARS else text[:SHOWN_ENTRY_CHARS] + "..."


def _entry_problem(entry: dict) -> str:
    wrong = [key for key in ENTRY_TEXTS if key in entry and not isinstance(entry[key], str)]
    if wrong:
        return f"{', '.join(wrong)} must be text"
    acl = entry.get("acl", [])
    if not isinstance(acl, list) or not all(isinstance(group, str) for group in acl):
        return '"acl" must be a list of group names, like ["hr-team"]'
    return ""


def read_manifest(path: Path) -> tuple[Manifest, list[CorpusError]]:
    """A folder's manifest.json and the sentences saying what in it was left unused and how to fix it.

    A manifest that cannot be read (not JSON, not an object, ``files`` not a list) holds back every file of
    the folder: it may give them read groups, and a file must not go in public by accident. An entry naming
    a file with a wrong value holds back that file; an entry naming no file of the folder is skipped.
    """
    if path.is_symlink():
        return Manifest(unreadable=f"{path} is a symlink; a side file is read only where it is, as a file"), []
    if not path.is_file():
        return Manifest(), []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Manifest(unreadable=f"{path} cannot be read as JSON ({exc}); fix it so that it can be"), []
    if not isinstance(data, dict) or not isinstance(data.get("files", []), list) \
            or not isinstance(data.get("base", ""), str):
        return Manifest(unreadable=f'{path} must be an object {{"base": "https://...", "files": [{{"file": ...}}]}}'
                                   f' with "files" a list and "base" text; fix it'), []
    manifest, problems = Manifest(base=data.get("base", "")), []
    for number, entry in enumerate(data.get("files", []), 1):
        name = entry.get("file") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
            problems.append(CorpusError(str(path), f"entry {number} ({_shown(entry)}) names no file of its folder; "
                                                   f'skipped: give it "file": "<the name of a file beside it>"'))
            continue
        problem = _entry_problem(entry)
        if problem:
            manifest.refused[name] = f"its entry {number} in {path} is wrong ({problem}); fix the entry"
        else:
            manifest.entries[name] = entry
    return manifest, problems


def read_users(folder: Path) -> tuple[dict[str, str], list[CorpusError]]:
    """The users map near a folder (its users.json, else its parent's) and the sentences saying what in it
    was left unused: a user left out is shown by account id instead of name."""
    for path in (folder / "users.json", folder.parent / "users.json"):
        if path.is_symlink():
            return {}, [CorpusError(str(path), "is a symlink, not read (a side file is read only where it is, as a "
                                               "file); users are shown by account id")]
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return {}, [CorpusError(str(path), f"cannot be read as JSON ({exc}); users are shown by account id "
                                               f"until it is fixed")]
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            return {}, [CorpusError(str(path), 'must be an object {"results": [{"accountId": ..., "displayName": '
                                               '...}]}; users are shown by account id until it is fixed')]
        users, problems = {}, []
        for number, user in enumerate(results, 1):
            if isinstance(user, dict) and isinstance(user.get("accountId"), str) \
                    and isinstance(user.get("displayName", ""), str):
                users[user["accountId"]] = user.get("displayName", "")
            else:
                problems.append(CorpusError(str(path), f'user {number} ({_shown(user)}) needs "accountId" and '
                                                       f'"displayName" as text; skipped'))
        return users, problems
    return {}, []


class FolderNotes:
    """What the folders of one ingest run say (manifest.json, users.json): each read once per run, never kept
    across runs, so an edited manifest counts at the next one. ``take_problems`` hands over, once each, the
    sentences saying what in them was left unused."""

    def __init__(self):
        self._manifests: dict[Path, Manifest] = {}
        self._users: dict[Path, dict[str, str]] = {}
        self._problems: list[CorpusError] = []

    def manifest(self, folder: Path) -> Manifest:
        if folder not in self._manifests:
            self._manifests[folder], problems = read_manifest(folder / "manifest.json")
            self._problems += problems
        return self._manifests[folder]

    def users(self, folder: Path) -> dict[str, str]:
        if folder not in self._users:
            self._users[folder], problems = read_users(folder)
            self._problems += problems
        return self._users[folder]

    def take_problems(self) -> list[CorpusError]:
        problems, self._problems = self._problems, []
        return problems


def load(item: CorpusFile, files_base_url: str = "", notes: FolderNotes | None = None) -> SourceFile:
    """Read one file with its folder's side information (the users map: only the users the file mentions).

    Raises ValueError naming the file when its folder's manifest.json, or its entry there, cannot be used.
    """
    notes = notes or FolderNotes()
    path = item.path
    folder = path.parent
    manifest = notes.manifest(folder)
    held = manifest.unreadable or manifest.refused.get(path.name, "")
    if held:
        raise ValueError(f"{item.name}: not ingested, {held}; it may give the file its read groups, so the file "
                         f"waits instead of going in public")
    entry = manifest.entries.get(path.name, {})
    base = manifest.base or files_base_url
    url = entry.get("url") or (base + urllib.parse.quote(path.name) if base else "")
    data = path.read_bytes()
    users = notes.users(folder)
    mentioned = {m.decode("utf-8", "replace") for m in USER_MENTION.findall(data)} if users else set()
    return SourceFile(name=item.name, data=data, url=url, title=entry.get("title", ""), lang=entry.get("lang", ""),
                      acl=list(entry.get("acl", [])),
                      users={account: users[account] for account in sorted(mentioned) if account in users},
                      source=item.source)


def require_web_url(name: str, url: str, files_base_url: str = "") -> None:
    """Raise ValueError naming the file, what is wrong with its URL and the ways to give it one when ``url``
    may not be a result link (``core.urls.link_problem``, the check every path to the index shares): a result
    must open the page it came from, not a script, a path on the machine that ingested it or a credential."""
    problem = link_problem(url, files_base_url)
    if not problem:
        return
    raise ValueError(f"{name}: {problem}, so it was not indexed; give it an http(s) URL with a manifest.json "
                     f"beside it (an entry {{\"file\": \"{Path(name).name}\", \"url\": \"https://...\"}} "
                     f"or a \"base\" URL for the whole folder) or set EVIDENT_INGEST_FILES_BASE_URL")
