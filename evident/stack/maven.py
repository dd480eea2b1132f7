"""Fetch one artifact from a Maven repository and verify it before anyone uses it.

Why our own code: OpenSearch's server zip and its plugins are published on Maven Central only
(there is no Debian package or PyPI wheel of them), and a Maven client would mean a JVM build tool.
What we need is small: one HTTPS GET per file, the checksum published beside it (.sha512, else
.sha1), a pinned SHA-256 for the files published without one, and a cache that is reused only while
it still matches the digest recorded at download time. Standard library only.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from evident.stack import ServiceError, say

# Base URL of the Maven repository; $EVIDENT_MAVEN_REPOSITORY overrides it (a mirror, or the tests'
# loopback stand-in).
MAVEN_REPOSITORY = "https://repo1.maven.org/maven2"
# A stalled connection to the repository is given up after 60 s: a healthy one sends data every second.
HTTP_TIMEOUT = 60.0
# Progress lines while downloading: twice a second on a terminal, every 5 s in a log (CI).
PROGRESS_EVERY_TTY = 0.5
PROGRESS_EVERY_LOG = 5.0
_BLOCK = 1 << 16  # read size for downloads and digests


def maven_repository() -> str:
    """The Maven repository base URL (``$EVIDENT_MAVEN_REPOSITORY`` overrides the default)."""
    return (os.environ.get("EVIDENT_MAVEN_REPOSITORY") or MAVEN_REPOSITORY).rstrip("/")


def artifact_url(group: str, artifact: str, version: str, ext: str) -> str:
    return f"{maven_repository()}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.{ext}"


def _failure(url: str, exc: Exception) -> ServiceError:
    if isinstance(exc, urllib.error.HTTPError):
        return ServiceError(f"download failed: {url}: HTTP {exc.code} {exc.reason}")
    return ServiceError(f"download failed: {url}: {getattr(exc, 'reason', exc)}")


def _fetch_text(url: str) -> str | None:
    """Body of a small file, or None on HTTP 404."""
    try:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT) as response:
            return response.read().decode("ascii", "replace")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise _failure(url, exc) from exc
    except (urllib.error.URLError, OSError) as exc:
        raise _failure(url, exc) from exc


def published_checksum(url: str) -> tuple[str, str] | None:
    """(algorithm, hex digest) published beside ``url`` (.sha512, else .sha1), or None."""
    for algorithm in ("sha512", "sha1"):
        text = _fetch_text(f"{url}.{algorithm}")
        if text and text.split():
            digest = text.split()[0].strip().lower()
            if re.fullmatch(r"[0-9a-f]+", digest):
                return algorithm, digest
    return None


def file_digest(path: Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def _mib(n: float) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _copy_with_progress(response, out, name: str, total: int, progress: bool) -> int:
    tty = sys.stderr.isatty()
    every = PROGRESS_EVERY_TTY if tty else PROGRESS_EVERY_LOG
    done, last = 0, time.monotonic()
    for block in iter(lambda: response.read(_BLOCK), b""):
        out.write(block)
        done += len(block)
        if progress and time.monotonic() - last >= every:
            last = time.monotonic()
            shown = f"{_mib(done)} / {_mib(total)}" if total else _mib(done)
            print(f"\r  {name}: {shown}   " if tty else f"  {name}: {shown}", end="" if tty else "\n",
                  file=sys.stderr, flush=True)
    if progress:
        print(("\r" if tty else "") + f"  {name}: {_mib(done)} done", file=sys.stderr, flush=True)
    return done


def _download(url: str, dest: Path, progress: bool) -> None:
    """``url`` into ``dest`` through ``dest.part``, so a broken download never looks complete."""
    part = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT) as response, part.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            if progress:
                say(f"downloading {url} ({_mib(total) if total else 'size unknown'})")
            done = _copy_with_progress(response, out, dest.name, total, progress)
        if total and done != total:
            raise ServiceError(f"download failed: {url}: got {done} of {total} bytes")
        part.replace(dest)
    except (urllib.error.URLError, OSError) as exc:
        raise _failure(url, exc) from exc
    finally:
        part.unlink(missing_ok=True)


def _verify(url: str, dest: Path, pinned_sha256: str | None) -> None:
    published = published_checksum(url)
    if published is None and pinned_sha256 is None:
        raise ServiceError(f"no .sha512 or .sha1 checksum published for {url} and no pinned digest; "
                           "refusing an unverified download")
    checks = ([published] if published else []) + ([("sha256", pinned_sha256)] if pinned_sha256 else [])
    for algorithm, expected in checks:
        actual = file_digest(dest, algorithm)
        if actual != expected:
            raise ServiceError(f"checksum mismatch for {url}: {algorithm} {actual}, expected {expected}")


def download_artifact(group: str, artifact: str, version: str, ext: str, dest_dir: str | os.PathLike,
                      *, progress: bool = True, pinned_sha256: str | None = None) -> Path:
    """Fetch ``group:artifact:version@ext`` into ``dest_dir`` and verify it; return its path.

    Verified against the checksum published beside it (.sha512, else .sha1) and against
    ``pinned_sha256`` when given; an artifact with neither is refused. A cached copy is reused
    while it matches the SHA-256 recorded when it was verified. Raises :class:`ServiceError`
    naming the URL on any failure.
    """
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    url = artifact_url(group, artifact, version, ext)
    dest = dest_dir / f"{artifact}-{version}.{ext}"
    recorded = dest.with_name(dest.name + ".sha256")
    if dest.exists() and recorded.exists():
        digest = file_digest(dest, "sha256")
        if digest == recorded.read_text().strip() and pinned_sha256 in (None, digest):
            return dest
        say(f"cached {dest} does not match its checksum; downloading again")
    _download(url, dest, progress)
    try:
        _verify(url, dest, pinned_sha256)
    except ServiceError:
        dest.unlink(missing_ok=True)
        raise
    recorded.write_text(file_digest(dest, "sha256") + "\n")
    return dest
