"""Reading a corpus from disk: files to SourceFiles, with what the folder says about them.

A folder may hold ``users.json`` (Confluence account ids -> display names, the
REST shape ``{"results": [{"accountId", "displayName"}]}``; also looked for in
the parent folder) and ``manifest.json`` (``{"base": URL, "files": [{"file",
"url", "title", "lang", "acl"}]}``) giving each file its URL, title, language
and read groups.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ingest.sources import SourceFile

SIDE_FILES = {"users.json", "manifest.json"}
SUFFIXES = {".json", ".html", ".htm", ".pdf", ".csv"}  # a CSV is read as a back-of-book index
FOLDERS_CACHED = 256  # folders whose users.json and manifest.json stay parsed: more than a corpus has


@dataclass
class CorpusError:
    path: str
    reason: str


def _load_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read ({exc})") from exc


@lru_cache(maxsize=FOLDERS_CACHED)
def _users_near(folder: Path) -> dict[str, str]:
    for candidate in (folder / "users.json", folder.parent / "users.json"):
        if candidate.is_file():
            data = _load_json(candidate)
            return {u["accountId"]: u.get("displayName", "") for u in data.get("results", []) if "accountId" in u}
    return {}


@lru_cache(maxsize=FOLDERS_CACHED)
def _manifest_near(folder: Path) -> dict[str, dict]:
    path = folder / "manifest.json"
    if not path.is_file():
        return {}
    data = _load_json(path)
    base = data.get("base", "")
    entries = {}
    for entry in data.get("files", []):
        entry = dict(entry)
        entry.setdefault("url", base + entry["file"])
        entries[entry["file"]] = entry
    return entries


@dataclass
class CorpusFile:
    path: Path
    name: str  # stable name relative to the folder given (the file name for a single file)


def discover(paths: list[str]) -> tuple[list[CorpusFile], list[CorpusError], list[Path]]:
    """All candidate files below the given paths, sorted; missing paths are errors.

    Files of other types inside a folder (README, images, ...) are returned as skipped, so the
    caller can say so instead of dropping them silently.
    """
    found: list[CorpusFile] = []
    errors: list[CorpusError] = []
    skipped: list[Path] = []
    for raw in paths:
        path = Path(raw).resolve()
        if path.is_file():
            found.append(CorpusFile(path, path.name))
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                if not p.is_file() or p.name in SIDE_FILES:
                    continue
                if p.suffix.lower() in SUFFIXES:
                    found.append(CorpusFile(p, str(p.relative_to(path.parent))))
                else:
                    skipped.append(p)
        else:
            errors.append(CorpusError(raw, "no such file or folder"))
    return found, errors, skipped


def vanished(ingested: list[str], paths: list[str], found: list[CorpusFile]) -> list[str]:
    """Names of files once ingested from one of the folders in ``paths`` that the folder no longer holds.

    A file's name starts with its folder's own name (see ``discover``), so only folders are compared:
    a single file given alone says nothing about what else left.
    """
    present = {item.name for item in found}
    prefixes = tuple(f"{Path(raw).resolve().name}/" for raw in paths if Path(raw).is_dir())
    return sorted(name for name in ingested if prefixes and name.startswith(prefixes) and name not in present)


def load(item: CorpusFile, files_base_url: str = "") -> SourceFile:
    """Read one file with its folder's side information."""
    path = item.path
    folder = path.parent
    entry = _manifest_near(folder).get(path.name, {})
    url = entry.get("url") or (files_base_url + path.name if files_base_url else "")
    return SourceFile(name=item.name, data=path.read_bytes(), url=url, title=entry.get("title", ""),
                      lang=entry.get("lang", ""), acl=list(entry.get("acl", [])), users=_users_near(folder))
