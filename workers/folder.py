"""Reading a corpus from disk: files to SourceFiles, with what the folder says about them.

Only the submitting side reads here (``workers.submit``); a worker gets the bytes and this side information
with its task. A folder may hold ``users.json`` (Confluence account ids -> display names, the REST shape
``{"results": [{"accountId", "displayName"}]}``; also looked for in the parent folder) and ``manifest.json``
(``{"base": URL, "files": [{"file", "url", "title", "lang", "acl"}]}``) giving each file its title, language,
read groups and URL. A file's URL is, in this order: its manifest entry's ``url``, the manifest's ``base`` +
its name, ``[ingest] files_base_url`` + its name; else it has none, and unless its content names one
(Confluence ``_links``) ``require_web_url`` refuses it after parsing.
"""
from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ingest.sources import SourceFile

SIDE_FILES = {"users.json", "manifest.json"}
SUFFIXES = {".json", ".html", ".htm", ".pdf", ".csv"}  # a CSV is read as a back-of-book index
FOLDERS_CACHED = 256  # folders whose users.json and manifest.json stay parsed: more than a corpus has
WEB_SCHEMES = ("http", "https")  # a result link a reader's browser opens; file: or a relative path is not one
# How a Confluence storage body names a user (the attributes ingest.sources.confluence resolves), plain or
# JSON-escaped: a file is sent with the names of the users it mentions, not the whole users.json.
USER_MENTION = re.compile(rb'ri:(?:account-id|userkey|username)=\\?"([^"\\]+)')


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


@dataclass
class Manifest:
    base: str = ""  # URL prefix of every file in the folder without a ``url`` of its own
    entries: dict[str, dict] = field(default_factory=dict)  # file name -> its entry


@lru_cache(maxsize=FOLDERS_CACHED)
def _manifest_near(folder: Path) -> Manifest:
    path = folder / "manifest.json"
    if not path.is_file():
        return Manifest()
    data = _load_json(path)
    return Manifest(data.get("base", ""), {entry["file"]: entry for entry in data.get("files", [])})


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
    """Read one file with its folder's side information (the users map: only the users the file mentions)."""
    path = item.path
    folder = path.parent
    manifest = _manifest_near(folder)
    entry = manifest.entries.get(path.name, {})
    base = manifest.base or files_base_url
    url = entry.get("url") or (base + urllib.parse.quote(path.name) if base else "")
    data = path.read_bytes()
    users = _users_near(folder)
    mentioned = {m.decode("utf-8", "replace") for m in USER_MENTION.findall(data)} if users else set()
    return SourceFile(name=item.name, data=data, url=url, title=entry.get("title", ""), lang=entry.get("lang", ""),
                      acl=list(entry.get("acl", [])),
                      users={account: users[account] for account in sorted(mentioned) if account in users})


def require_web_url(name: str, url: str) -> None:
    """Raise ValueError naming the file and the ways to give it a URL when ``url`` is not an absolute http(s)
    link: a result must open the page it came from, not a path on the machine that ingested it."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in WEB_SCHEMES and parts.netloc:
        return
    got = f"its URL {url!r} is not an absolute http(s) link" if url else "it has no URL"
    raise ValueError(f"{name}: {got}, so its results could not be opened; give it one with a manifest.json "
                     f"beside it (an entry {{\"file\": \"{Path(name).name}\", \"url\": \"https://...\"}} "
                     f"or a \"base\" URL for the whole folder) or set EVIDENT_INGEST_FILES_BASE_URL")
