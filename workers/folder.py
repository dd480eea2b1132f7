"""Reading a corpus from disk: files to SourceFiles, with what the folder says about them.

Only the submitting side reads here (``workers.submit``); a worker gets the bytes and this side information
with its task. The folder given to ``evident ingest`` (for a single file, its folder) is the source root: every
file is read through ``workers.path_gate`` at the moment it is read (a regular file inside the root, never reached
through a symlink out of it; the admin's retry and an index's targets too). The source's name is the root
folder's own name unless ``evident ingest --source NAME`` gives another; ``workers.submit.claim_sources`` keeps
one folder per name, so two folders with files of the same relative name never share a document id, and no id
names a path on the disk. A file's name is the root folder's own name + its path below the root
(``docs/sub/a.html``), the same whether it came with its folder or alone: every message says it, and with the
source it makes the file's key and document id.

A folder may hold ``users.json`` (Confluence account ids -> display names, the REST shape
``{"results": [{"accountId", "displayName"}]}``; also looked for in the parent folder) and ``manifest.json``
(``{"base": URL, "files": [{"file", "url", "title", "lang", "acl"}]}``) giving each file its title, language,
read groups (each a group whatever its name, ``ingest.principals``) and URL. A file's URL is, in this order:
its manifest entry's ``url``, the manifest's ``base`` + its name, ``[ingest] files_base_url`` + its name; else
it has none, and unless its content names one (Confluence ``_links``) ``require_web_url`` refuses it after
parsing. Both are read afresh by each ingest run (``FolderNotes``), so an edited manifest counts at the next run;
what is wrong in them is said in sentences.
"""
from __future__ import annotations

import json
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from core.urls import link_problem
from ingest.principals import principals
from ingest.sources import SourceFile, source_key
from ingest.strict_json import load_json
from workers.path_gate import PathRefused, read_inside, require_regular, resolved_inside

SIDE_FILES = {"users.json", "manifest.json"}
SUFFIXES = {".json", ".html", ".htm", ".pdf", ".csv"}  # a CSV is read as a back-of-book index
ENTRY_TEXTS = ("url", "title", "lang")  # the manifest entry's values that must be strings
SHOWN_ENTRY_CHARS = 80  # how much of a bad manifest entry a message quotes: enough to find it in the file
# How a Confluence storage body names a user (the attributes ingest.sources.confluence resolves), plain or
# JSON-escaped: a file is sent with the names of the users it mentions, not the whole users.json.
USER_MENTION = re.compile(rb'ri:(?:account-id|userkey|username)=\\?"([^"\\]+)')
WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")  # "C:\..." names a file outside the folder on any machine
SIDE_FILE_RULE = "a side file is read only inside its own folder, as a regular file"


@dataclass
class CorpusError:
    path: str
    reason: str


@dataclass
class CorpusFile:
    path: Path  # where it is read: inside ``root``
    name: str  # the root folder's name + the path below it: in messages, job records and the document id
    root: Path | None = None  # the source root (resolved); when not given, the folder ``name`` starts with
    source: str = ""  # the source's name (``--source``); when not given, the root folder's own name

    def __post_init__(self):
        """Without a root (a file read again from its recorded path and name: the admin's retry), the root is
        the folder the name starts with, so the file keeps its key and document id. It is found in the path as
        written, resolving nothing: a folder on the way that became a symlink since is refused when the file is
        read (``workers.path_gate``), never taken as the root."""
        if self.root is None:
            path = Path(os.path.abspath(self.path))
            parts = PurePosixPath(self.name).parts
            above = path.parents[len(parts) - 2] if 2 <= len(parts) <= len(path.parents) else None
            self.root = above if above is not None and above.name == parts[0] else path.parent
            self.path = path
        self.source = self.source or self.root.name

    @property
    def key(self) -> str:
        """The file's key in the worker's fingerprint and documents registries."""
        return source_key(self.source, self.name)

    @property
    def former_keys(self) -> tuple[str, str]:
        """The keys the file had before: its name alone (before sources were named) and the root's absolute path
        as its source (before a source was named by its folder's name); ``workers.submit`` moves them to ``key``."""
        return self.name, source_key(str(self.root), self.name)


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
        resolved_inside(root, path)
    except FileNotFoundError:
        pass  # not there: the caller says what a missing file means to it
    except PathRefused as refused:
        raise ValueError(f"{name!r} is {refused}; not read") from refused
    except OSError as exc:  # a file on the way used as a folder, a folder it may not enter
        raise ValueError(f"{name!r} cannot be looked at ({exc.strerror}); not read") from exc
    return path


def _checked(root: Path, path: Path) -> Path:
    """Where ``path`` leads when the gate reads it (``workers.path_gate``): a regular file or a folder inside
    ``root``; PathRefused saying why not, OSError when it cannot be looked at."""
    target = resolved_inside(root, path)
    if not target.is_dir():
        require_regular(target.stat().st_mode)
    return target


def _why_not_read(given: Path) -> str:
    """Why a path given to ``discover`` that is neither a file nor a folder is not read."""
    try:
        _checked(given.parent.resolve(), given)
    except PathRefused as refused:
        return _skipped(given, refused)
    except OSError:
        pass
    return "no such file or folder"


def _skipped(path: Path, refused: PathRefused) -> str:
    """The gate's reason for a path ``discover`` leaves out, as recorded on the job."""
    return f"{refused}; {'not followed, ' if path.is_symlink() else ''}skipped"


def _walk(root: Path, found: list[CorpusFile], errors: list[CorpusError], skipped: list[Path], source: str) -> None:
    """The files below ``root`` without following a symlink: a symlinked folder inside the root is reached
    through its real path; what the gate refuses (``workers.path_gate``: a symlink out of the root, dangling or
    in a loop, a named pipe, socket or device) is an error naming it."""
    for folder, folders, names in os.walk(root, followlinks=False):
        here = Path(folder)
        for name in sorted([*folders, *names]):
            path = here / name
            if name in SIDE_FILES:  # read by ``FolderNotes``, through the same gate
                continue
            if name in folders and not path.is_symlink():  # walked by os.walk itself
                continue
            try:
                target = _checked(root, path)
            except PathRefused as refused:
                errors.append(CorpusError(str(path), _skipped(path, refused)))
                continue
            except OSError as exc:
                errors.append(CorpusError(str(path), f"cannot be read ({exc.strerror or exc}); skipped"))
                continue
            if target.is_dir():  # a symlinked folder inside the root: its files are read where they are
                continue
            if path.suffix.lower() in SUFFIXES:
                found.append(CorpusFile(path, name_in(root, path), root, source))
            else:
                skipped.append(path)


def discover(paths: list[str], source: str = "") -> tuple[list[CorpusFile], list[CorpusError], list[Path]]:
    """All candidate files below the given paths, sorted, of the source ``source`` (by default each root
    folder's own name); missing paths and symlinks that cannot be followed (dangling, in a loop, out of the
    folder) are errors.

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
            found.append(CorpusFile(path, name_in(path.parent, path), path.parent, source))
        elif given.is_dir():
            root = given.resolve()
            batch: list[CorpusFile] = []
            _walk(root, batch, errors, skipped, source)
            found += sorted(batch, key=lambda item: item.name)
        else:
            errors.append(CorpusError(raw, _why_not_read(given)))
    return found, errors, skipped


def vanished(ingested: list[str], paths: list[str], found: list[CorpusFile], source: str = "") -> dict[str, str]:
    """The registry keys of files once ingested from one of the folders in ``paths`` (of the source ``source``,
    by default each folder's own name) that the folder no longer holds, each with its name.

    Only keys of those folders' own sources are compared (see ``CorpusFile.key``; and the keys of
    ``CorpusFile.former_keys``): another source's files, even of the same relative names, are not touched, and a
    single file given alone says nothing about what else left.
    """
    present = {key for item in found for key in (item.key, *item.former_keys)}
    gone = {}
    for raw in paths:
        if not Path(raw).is_dir():
            continue
        root = Path(raw).resolve()
        for prefix in {source_key(source or root.name, ""), source_key(str(root), "")}:
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
    try:
        data = load_json(read_inside(path.parent, path))
    except FileNotFoundError:
        return Manifest(), []
    except PathRefused as refused:
        return Manifest(unreadable=f"{path}: {refused}; {SIDE_FILE_RULE}"), []
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
        try:
            data = load_json(read_inside(path.parent, path))
        except FileNotFoundError:
            continue
        except PathRefused as refused:
            return {}, [CorpusError(str(path), f"{refused}; not read ({SIDE_FILE_RULE}); users are shown by account "
                                               f"id")]
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
    """Read one file through the gate (``workers.path_gate``) with its folder's side information (the users
    map: only the users the file mentions).

    Raises PathRefused (a ValueError) naming the file and the reason when the gate refuses it, ValueError naming
    it when its folder's manifest.json, or its entry there, cannot be used; OSError when it is not there or the
    system refuses it.
    """
    notes = notes or FolderNotes()
    path = item.path
    try:
        data = read_inside(item.root, path)
    except PathRefused as refused:
        raise PathRefused(f"{item.name}: {refused}; not read") from refused
    folder = path.parent
    manifest = notes.manifest(folder)
    held = manifest.unreadable or manifest.refused.get(path.name, "")
    if held:
        raise ValueError(f"{item.name}: not ingested, {held}; it may give the file its read groups, so the file "
                         f"waits instead of going in public")
    entry = manifest.entries.get(path.name, {})
    base = manifest.base or files_base_url
    url = entry.get("url") or (base + urllib.parse.quote(path.name) if base else "")
    users = notes.users(folder)
    mentioned = {m.decode("utf-8", "replace") for m in USER_MENTION.findall(data)} if users else set()
    return SourceFile(name=item.name, data=data, url=url, title=entry.get("title", ""), lang=entry.get("lang", ""),
                      acl=principals(entry.get("acl", [])),
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
