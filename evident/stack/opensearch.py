"""Local OpenSearch node and Redis server, fetched and started by Evident itself.

No Docker: OpenSearch comes from the public Maven repository, Redis from the
Debian package ``redis-server``.  Everything here uses only the standard library.

Why OpenSearch 3.6.0 on a Java 25 JDK
-------------------------------------
The only server distribution in the Maven repository is the "integ-test-zip"
(``org.opensearch.distribution.integ-test-zip:opensearch``).  It has no bundled JDK.
For the 2.x line its ``modules/`` holds only ``transport-netty4`` (no painless, no
analysis-common, no mapper-extras, ...), but from 3.x on it ships the full module
set (lang-painless, analysis-common, mapper-extras, ingest-common, reindex,
search-pipeline-common, parent-join, ...), so no module assembly from loose jars is
needed.  3.6.0 is the newest version for which all the plugin zips we want are
published (``org.opensearch.plugin:opensearch-knn:3.6.0.0`` and
``org.opensearch.plugin:neural-search:3.6.0.0``; 3.7/3.8 have a core zip but no
plugins).  3.x needs Java 21+ (it uses a Java agent instead of the removed Security
Manager), so it runs on the Temurin 25 JDK.

Plugins
-------
* ``opensearch-knn``: k-NN.  The published zip has no native libraries, so only the
  pure-Java **lucene** engine works: always map ``knn_vector`` fields with
  ``"engine": "lucene"``.
* ``neural-search`` (installs as ``opensearch-neural-search``): the ``hybrid`` query
  and the ``normalization-processor`` / ``score-ranker-processor`` (rrf) search
  pipeline processors.  It bundles the ml-commons client jar and does not need the
  ml-commons plugin for these features.
* ``opensearch-job-scheduler`` + ``opensearch-ml-plugin`` (ml-commons) are optional
  (:data:`ML_PLUGINS`, ~390 MB, mostly onnxruntime-gpu); Evident computes embeddings
  in Python, so they are not installed by default.

Layout
------
* cache dir (``cache_dir``, default :func:`default_cache_dir`):
  ``<cache_dir>/opensearch/<version>/`` holds the verified downloads and the
  installed, read-only OpenSearch home ``opensearch-<version>/`` (complete when it
  contains ``.evident-complete``).
* state dir (``state_dir``, default :func:`default_state_dir`):
  ``opensearch/{config,data,logs,run}`` and ``redis/{redis.conf,data,redis.log,redis.pid}``.

OpenSearch refuses to run as root; when we are root, the node runs as the system
user :data:`SERVICE_USER` (created on demand), which must be able to traverse to the
cache and state dirs (so under root they default to ``/var/cache/evident`` and
``/var/lib/evident``, not to ``/root/...``).
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pwd
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = [
    "MAVEN_REPOSITORY",
    "OPENSEARCH_VERSION",
    "OPENSEARCH_PLUGINS",
    "ML_PLUGINS",
    "REQUIRED_MODULES",
    "SERVICE_USER",
    "DEFAULT_OPENSEARCH_PORT",
    "DEFAULT_REDIS_PORT",
    "DEFAULT_HEAP",
    "PINNED_SHA256",
    "ServiceError",
    "ServiceStatus",
    "maven_repository",
    "default_cache_dir",
    "default_state_dir",
    "download_artifact",
    "find_java_home",
    "ensure_opensearch",
    "start_opensearch",
    "stop_opensearch",
    "opensearch_status",
    "start_redis",
    "stop_redis",
    "redis_status",
]

# Base URL of the Maven repository; the environment variable EVIDENT_MAVEN_REPOSITORY
# overrides it (e.g. for a mirror).
MAVEN_REPOSITORY = "https://repo1.maven.org/maven2"

OPENSEARCH_VERSION = "3.6.0"
DISTRIBUTION_GROUP = "org.opensearch.distribution.integ-test-zip"
DISTRIBUTION_ARTIFACT = "opensearch"
PLUGIN_GROUP = "org.opensearch.plugin"
# Plugin artifacts (group PLUGIN_GROUP, version "<core version>.0"), in install order.
OPENSEARCH_PLUGINS: tuple[str, ...] = ("opensearch-knn", "neural-search")
# Optional ml-commons (and its dependency job-scheduler): pass plugins=ML_PLUGINS + OPENSEARCH_PLUGINS.
ML_PLUGINS: tuple[str, ...] = ("opensearch-job-scheduler", "opensearch-ml-plugin")
# Dependencies first: ml extends job-scheduler, neural-search extends knn.
_PLUGIN_ORDER = ("opensearch-job-scheduler", "opensearch-ml-plugin", "opensearch-knn", "neural-search")
# Modules Evident relies on; a distribution without them is refused.
REQUIRED_MODULES: tuple[str, ...] = (
    "transport-netty4",
    "lang-painless",
    "analysis-common",
    "mapper-extras",
    "ingest-common",
    "search-pipeline-common",
)

# SHA-256 of artifacts whose checksum files are missing from the repository (the 3.6.0.0 and
# 2.19.6.0 plugin zips are published without .sha1/.sha512), recorded from downloads that
# were checked to be byte-identical across fetches.  Checked whenever listed, in addition
# to any published checksum.
PINNED_SHA256: dict[str, str] = {
    "opensearch-3.6.0.zip": "a91faa1dc1cadc78cb278b4f63847e19e1627a4e9de698e14e7efc14ee37b286",
    "opensearch-knn-3.6.0.0.zip": "ac392ca28a39b3bf290648a422ef30cb149dda2963a9d7feb26060e932341c9a",
    "neural-search-3.6.0.0.zip": "6ef1b206e79391e2e36268e32dc34d27fd8b8a59a8eb0a7393c97d53b038e433",
    "opensearch-job-scheduler-3.6.0.0.zip": "f81d0aa9fc850b18f803292bd7ae68bd33561f6c1d12db0f68529d40eddcee24",
    "opensearch-ml-plugin-3.6.0.0.zip": "c051d436fe1936da1477bb999db829eb2bc92b12989e376c300d0a874fb90f9d",
}

SERVICE_USER = "evident"
DEFAULT_OPENSEARCH_PORT = 9200
DEFAULT_REDIS_PORT = 6379
DEFAULT_HEAP = "1g"
HOST = "127.0.0.1"

_MARKER = ".evident-complete"
_CLUSTER_NAME = "evident"
_LOG_TAIL = 30


class ServiceError(RuntimeError):
    """A service could not be fetched, started or stopped; the message says why."""


@dataclass
class ServiceStatus:
    service: str  # "opensearch" | "redis"
    running: bool  # answering on the port
    port: int
    pid: int | None = None  # from our pid file, if that process is alive
    managed: bool = False  # started by us (a live pid file in the state dir)
    version: str | None = None
    health: str | None = None  # OpenSearch cluster health colour
    url: str = ""
    detail: str = ""

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        state = "running" if self.running else "stopped"
        parts = [f"{self.service}: {state} on {self.url}"]
        if self.version:
            parts.append(f"version {self.version}")
        if self.health:
            parts.append(f"health {self.health}")
        if self.pid:
            parts.append(f"pid {self.pid}")
        if self.running and not self.managed:
            parts.append("not started by evident")
        if self.detail:
            parts.append(self.detail)
        return ", ".join(parts)


def _say(message: str) -> None:
    print(f"evident: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- paths


def _is_root() -> bool:
    return os.geteuid() == 0


def default_cache_dir() -> Path:
    """Root of Evident's download cache (OpenSearch goes to ``opensearch/<version>/`` below it).

    ``$EVIDENT_CACHE_DIR`` if set; ``/var/cache/evident`` when running as root (the
    service user cannot enter ``/root``); else ``$XDG_CACHE_HOME/evident`` or
    ``~/.cache/evident``.
    """
    if os.environ.get("EVIDENT_CACHE_DIR"):
        return Path(os.environ["EVIDENT_CACHE_DIR"]).expanduser()
    if _is_root():
        return Path("/var/cache/evident")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evident"


def default_state_dir() -> Path:
    """Where data, logs, configs and pid files of the local services live.

    ``$EVIDENT_STATE_DIR`` if set; ``/var/lib/evident`` when running as root; else
    ``$XDG_STATE_HOME/evident`` or ``~/.local/state/evident``.
    """
    if os.environ.get("EVIDENT_STATE_DIR"):
        return Path(os.environ["EVIDENT_STATE_DIR"]).expanduser()
    if _is_root():
        return Path("/var/lib/evident")
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "evident"


def _opensearch_version_dir(version: str, cache_dir: str | os.PathLike | None) -> Path:
    root = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    return root.resolve() / "opensearch" / version


def _plugin_version(version: str) -> str:
    return f"{version}.0"


# ----------------------------------------------------------------------- downloads


def maven_repository() -> str:
    """The Maven repository base URL (``$EVIDENT_MAVEN_REPOSITORY`` overrides the default)."""
    return (os.environ.get("EVIDENT_MAVEN_REPOSITORY") or MAVEN_REPOSITORY).rstrip("/")


def _artifact_url(group: str, artifact: str, version: str, ext: str) -> str:
    return f"{maven_repository()}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.{ext}"


def _fetch_text(url: str, timeout: float = 60) -> str | None:
    """Body of a small file, or None on HTTP 404."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read().decode("ascii", "replace")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise ServiceError(f"download failed: {url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServiceError(f"download failed: {url}: {reason}") from exc


def _published_checksum(url: str) -> tuple[str, str] | None:
    """(algorithm, hex digest) published beside ``url`` (.sha512, else .sha1), or None."""
    for algorithm in ("sha512", "sha1"):
        text = _fetch_text(f"{url}.{algorithm}")
        if text and text.split():
            digest = text.split()[0].strip().lower()
            if re.fullmatch(r"[0-9a-f]+", digest):
                return algorithm, digest
    return None


def _file_digest(path: Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _human(n: float) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _download(url: str, dest: Path, progress: bool) -> None:
    part = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=60) as response, part.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done, last = 0, time.monotonic()
            tty = sys.stderr.isatty()
            if progress:
                _say(f"downloading {url} ({_human(total) if total else 'size unknown'})")
            while True:
                block = response.read(1 << 16)
                if not block:
                    break
                out.write(block)
                done += len(block)
                now = time.monotonic()
                if progress and now - last >= (0.5 if tty else 5.0):
                    last = now
                    shown = f"{_human(done)} / {_human(total)}" if total else _human(done)
                    if tty:
                        print(f"\r  {dest.name}: {shown}   ", end="", file=sys.stderr, flush=True)
                    else:
                        print(f"  {dest.name}: {shown}", file=sys.stderr, flush=True)
            if progress:
                prefix = "\r" if tty else ""
                print(f"{prefix}  {dest.name}: {_human(done)} done", file=sys.stderr, flush=True)
        if total and done != total:
            part.unlink(missing_ok=True)
            raise ServiceError(f"download failed: {url}: got {done} of {total} bytes")
        part.replace(dest)
    except urllib.error.HTTPError as exc:
        part.unlink(missing_ok=True)
        raise ServiceError(f"download failed: {url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        part.unlink(missing_ok=True)
        reason = getattr(exc, "reason", exc)
        raise ServiceError(f"download failed: {url}: {reason}") from exc


def download_artifact(group: str, artifact: str, version: str, ext: str, dest_dir: str | os.PathLike,
                      *, progress: bool = True) -> Path:
    """Fetch ``group:artifact:version@ext`` into ``dest_dir`` and verify it.

    Verified against the checksum published beside it (.sha512, else .sha1) and against
    :data:`PINNED_SHA256` when the file is listed there; an artifact with neither is
    refused.  A cached copy is reused when it still matches the digest recorded when it
    was downloaded.  Raises :class:`ServiceError` naming the URL on any failure.
    """
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    url = _artifact_url(group, artifact, version, ext)
    dest = dest_dir / f"{artifact}-{version}.{ext}"
    recorded = dest.with_name(dest.name + ".sha256")
    pinned = PINNED_SHA256.get(dest.name)
    if dest.exists() and recorded.exists():
        digest = _file_digest(dest, "sha256")
        if digest == recorded.read_text().strip() and (pinned is None or digest == pinned):
            return dest
        _say(f"cached {dest} does not match its checksum; downloading again")
    _download(url, dest, progress)
    published = _published_checksum(url)
    if published is None and pinned is None:
        dest.unlink(missing_ok=True)
        raise ServiceError(f"no .sha512 or .sha1 checksum published for {url} and no pinned digest; "
                           "refusing an unverified download")
    checks = ([published] if published else []) + ([("sha256", pinned)] if pinned else [])
    for algorithm, expected in checks:
        actual = _file_digest(dest, algorithm)
        if actual != expected:
            dest.unlink(missing_ok=True)
            raise ServiceError(f"checksum mismatch for {url}: {algorithm} {actual}, expected {expected}")
    recorded.write_text(_file_digest(dest, "sha256") + "\n")
    return dest


# ----------------------------------------------------------------------------- JDK


def _java_major(java_home: Path) -> int | None:
    release = java_home / "release"
    try:
        text = release.read_text(errors="replace")
    except OSError:
        text = ""
    match = re.search(r'^JAVA_VERSION="?(\d+)(?:\.(\d+))?', text, re.M)
    if match:
        major = int(match.group(1))
        return int(match.group(2)) if major == 1 and match.group(2) else major
    java = java_home / "bin" / "java"
    if not java.exists():
        return None
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def _java_range(version: str) -> tuple[int, int, tuple[int, ...]]:
    """(min, max, preference order) of Java majors for an OpenSearch version."""
    if int(version.split(".")[0]) >= 3:
        return 21, 99, (25, 21)
    # 2.x needs the Security Manager, removed in Java 24.
    return 11, 23, (17, 21, 11)


def find_java_home(version: str = OPENSEARCH_VERSION) -> Path:
    """The JDK to run OpenSearch ``version`` with.

    ``$EVIDENT_JAVA_HOME`` if set (checked), else the best JDK under ``/usr/lib/jvm``:
    Java 25 (then 21+) for 3.x, Java 17 (then 21, 11) for 2.x.
    """
    low, high, preferred = _java_range(version)
    explicit = os.environ.get("EVIDENT_JAVA_HOME")
    if explicit:
        home = Path(explicit)
        if not (home / "bin" / "java").is_file():
            raise ServiceError(f"EVIDENT_JAVA_HOME={explicit} is not a JDK (no bin/java)")
        major = _java_major(home)
        if major is not None and not low <= major <= high:
            raise ServiceError(
                f"EVIDENT_JAVA_HOME={explicit} is Java {major}; OpenSearch {version} needs Java {low}"
                + (f"-{high}" if high < 99 else "+"))
        return home
    found: dict[Path, int] = {}
    jvm_root = Path("/usr/lib/jvm")
    for candidate in sorted(jvm_root.iterdir()) if jvm_root.is_dir() else []:
        if not (candidate / "bin" / "java").is_file():
            continue
        real = candidate.resolve()
        if real in found:
            continue
        major = _java_major(real)
        if major is not None and low <= major <= high:
            found[real] = major
    if not found:
        need = f"Java {low}" + (f"-{high}" if high < 99 else "+")
        raise ServiceError(
            f"no JDK for OpenSearch {version} found (needs {need}) under /usr/lib/jvm; "
            "install one (e.g. Temurin 25 for 3.x, openjdk-17-jdk-headless for 2.x) "
            "or set EVIDENT_JAVA_HOME")

    def rank(item: tuple[Path, int]) -> tuple[int, int]:
        major = item[1]
        return (preferred.index(major) if major in preferred else len(preferred), -major)

    return sorted(found.items(), key=rank)[0][0]


# ----------------------------------------------------------------- install (cache)


@contextlib.contextmanager
def _locked(lock_path: Path):
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _extract_zip(archive: Path, target: Path) -> None:
    """Unzip keeping the Unix permission bits (zipfile drops them)."""
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            name = info.filename
            if name.startswith("/") or ".." in Path(name).parts:
                raise ServiceError(f"unsafe path {name!r} in {archive}")
            path = target / name
            mode = (info.external_attr >> 16) & 0o777
            if info.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                os.chmod(path, (mode or 0o755) | 0o755)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, path.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            # World-readable so the service user can read a root-owned install.
            os.chmod(path, (mode or 0o644) | 0o644)


def _read_marker(home: Path) -> dict | None:
    try:
        return json.loads((home / _MARKER).read_text())
    except (OSError, ValueError):
        return None


def _order_plugins(plugins) -> list[str]:
    plugins = list(dict.fromkeys(plugins))
    unknown = [p for p in plugins if p not in _PLUGIN_ORDER]
    return [p for p in _PLUGIN_ORDER if p in plugins] + unknown


def ensure_opensearch(version: str = OPENSEARCH_VERSION, cache_dir: str | os.PathLike | None = None, *,
                      plugins=OPENSEARCH_PLUGINS, java_home: str | os.PathLike | None = None,
                      progress: bool = True) -> Path:
    """Download, unpack and equip OpenSearch ``version``; return its home directory.

    Idempotent: a home with a complete marker listing (at least) ``plugins`` is
    returned at once.  Files go to ``<cache_dir>/opensearch/<version>/``.
    """
    vdir = _opensearch_version_dir(version, cache_dir)
    home = vdir / f"opensearch-{version}"
    wanted = _order_plugins(plugins)
    marker = _read_marker(home)
    if marker and set(wanted) <= set(marker.get("plugins", [])):
        return home
    with _locked(vdir / ".lock"):
        marker = _read_marker(home)
        if marker and set(wanted) <= set(marker.get("plugins", [])):
            return home
        if marker:  # complete but with other plugins: rebuild with the union
            wanted = _order_plugins(list(marker.get("plugins", [])) + wanted)
            user = _home_in_use(home)
            if user is not None:
                raise ServiceError(f"OpenSearch (pid {user}) is running from {home}; stop it before adding "
                                   f"plugins {', '.join(sorted(set(wanted) - set(marker.get('plugins', []))))}")
        java = Path(java_home) if java_home else find_java_home(version)
        started = time.monotonic()
        _say(f"installing OpenSearch {version} with plugins {', '.join(wanted) or '(none)'} into {home}")
        archive = download_artifact(DISTRIBUTION_GROUP, DISTRIBUTION_ARTIFACT, version, "zip", vdir,
                                    progress=progress)
        plugin_zips = [download_artifact(PLUGIN_GROUP, name, _plugin_version(version), "zip", vdir,
                                         progress=progress) for name in wanted]
        partial = vdir / f"opensearch-{version}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        _extract_zip(archive, partial)
        unpacked = partial / f"opensearch-{version}"
        if not (unpacked / "bin" / "opensearch").is_file():
            raise ServiceError(f"{archive} does not look like an OpenSearch distribution (no bin/opensearch)")
        missing = [m for m in REQUIRED_MODULES if not (unpacked / "modules" / m).is_dir()]
        if missing:
            raise ServiceError(
                f"the OpenSearch {version} integ-test-zip lacks the modules {', '.join(missing)} "
                f"(2.x zips ship only transport-netty4); use OpenSearch {OPENSEARCH_VERSION}")
        env = _java_env(java)
        env["OPENSEARCH_PATH_CONF"] = str(unpacked / "config")
        for plugin_zip in plugin_zips:
            command = [str(unpacked / "bin" / "opensearch-plugin"), "install", "--batch", plugin_zip.as_uri()]
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                output = (result.stdout + result.stderr).strip().splitlines()[-_LOG_TAIL:]
                raise ServiceError(f"installing plugin {plugin_zip.name} failed (exit {result.returncode}):\n"
                                   + "\n".join(output))
        for path in [unpacked, *unpacked.rglob("*")]:  # keep the tree readable by the service user
            if not path.is_symlink():
                mode = stat.S_IMODE(path.lstat().st_mode)
                extra = 0o755 if path.is_dir() else (0o755 if mode & 0o100 else 0o644)
                if mode | extra != mode:
                    os.chmod(path, mode | extra)
        (unpacked / _MARKER).write_text(json.dumps(
            {"version": version, "plugins": wanted, "java_home": str(java),
             "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, indent=1) + "\n")
        if home.exists():
            shutil.rmtree(home)
        unpacked.rename(home)
        shutil.rmtree(partial, ignore_errors=True)
        for path in (vdir.parent.parent, vdir.parent, vdir, home):
            os.chmod(path, stat.S_IMODE(path.stat().st_mode) | 0o755)
        _say(f"OpenSearch {version} ready in {home} ({time.monotonic() - started:.0f}s)")
    return home


def _home_in_use(home: Path) -> int | None:
    """PID of a live OpenSearch JVM running from ``home``, if any."""
    needle = f"-Dopensearch.path.home={home} "
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and needle in _cmdline(int(entry.name)) and _pid_alive(int(entry.name)):
            return int(entry.name)
    return None


def _java_env(java_home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["OPENSEARCH_JAVA_HOME"] = str(java_home)
    env.pop("OPENSEARCH_JAVA_OPTS", None)
    env.pop("JAVA_TOOL_OPTIONS", None)
    return env


# ---------------------------------------------------------------------- processes


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is not alive
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0] != "Z"
    except (OSError, IndexError):
        return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _read_pid(pid_file: Path, must_contain: str) -> int | None:
    """PID in ``pid_file`` if that process is alive and its command line has ``must_contain``."""
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    if pid <= 0 or not _pid_alive(pid):
        return None
    cmdline = _cmdline(pid)
    if cmdline and must_contain not in cmdline:
        return None
    return pid


def _terminate(pid: int, timeout: float) -> bool:
    """SIGTERM, wait up to ``timeout`` seconds, then SIGKILL; True when gone."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return True
        time.sleep(0.3)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    for _ in range(50):
        if not _pid_alive(pid):
            return True
        time.sleep(0.1)
    return False


def _port_open(port: int, host: str = HOST, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _tail(path: Path, lines: int = _LOG_TAIL) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _ensure_service_user() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam(SERVICE_USER)
    except KeyError:
        if not shutil.which("useradd"):
            raise ServiceError(f"cannot create system user {SERVICE_USER!r}: useradd not found")
        result = subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
             "--shell", "/usr/sbin/nologin", SERVICE_USER], capture_output=True, text=True)
        if result.returncode not in (0, 9):  # 9: already exists (a concurrent call)
            raise ServiceError(f"useradd {SERVICE_USER} failed: {result.stderr.strip()}")
        _say(f"created system user {SERVICE_USER!r} to run OpenSearch (it refuses to run as root)")
        entry = pwd.getpwnam(SERVICE_USER)
    return entry.pw_uid, entry.pw_gid


def _check_traversable(path: Path, uid: int, gid: int) -> None:
    """Raise unless user ``uid`` can enter every existing ancestor of ``path``."""
    for parent in [path, *path.parents]:
        try:
            st = parent.stat()
        except FileNotFoundError:
            continue
        if st.st_uid == uid:
            ok = st.st_mode & stat.S_IXUSR
        elif st.st_gid == gid:
            ok = st.st_mode & stat.S_IXGRP
        else:
            ok = st.st_mode & stat.S_IXOTH
        if not ok:
            raise ServiceError(
                f"user {SERVICE_USER!r} (which runs OpenSearch, since it refuses root) cannot enter {parent}, "
                f"so it cannot use {path}; choose cache/state dirs outside it "
                f"(e.g. EVIDENT_CACHE_DIR=/var/cache/evident, EVIDENT_STATE_DIR=/var/lib/evident)")


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            st = os.lstat(name)
            if st.st_uid != uid or st.st_gid != gid:
                os.lchown(name, uid, gid)


def _raise_nofile() -> None:
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = 65535 if hard == resource.RLIM_INFINITY else min(hard, 65535)
        if soft == resource.RLIM_INFINITY or soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


# ---------------------------------------------------------------------- OpenSearch


def _http_json(url: str, timeout: float = 5.0, method: str = "GET") -> tuple[int, object]:
    """(status, parsed JSON or raw text); status 0 when nothing answered."""
    request = urllib.request.Request(url, method=method, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    except (urllib.error.URLError, OSError, ValueError):
        return 0, None
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body.decode(errors="replace")


def _probe_opensearch(port: int) -> tuple[str, dict | None]:
    """("opensearch", root info) | ("other", None) | ("free", None) for what listens on ``port``."""
    status, body = _http_json(f"http://{HOST}:{port}/", timeout=5)
    if isinstance(body, dict) and isinstance(body.get("version"), dict) \
            and body["version"].get("distribution") == "opensearch":
        return "opensearch", body
    if status or _port_open(port):
        return "other", None
    return "free", None


def _health(port: int, timeout: float = 5.0) -> str | None:
    status, body = _http_json(f"http://{HOST}:{port}/_cluster/health", timeout=timeout)
    if status == 200 and isinstance(body, dict):
        return body.get("status")
    return None


def _opensearch_paths(state_dir: str | os.PathLike | None) -> dict[str, Path]:
    root = (Path(state_dir).expanduser() if state_dir else default_state_dir()).resolve() / "opensearch"
    return {"root": root, "config": root / "config", "data": root / "data", "logs": root / "logs",
            "run": root / "run", "pid": root / "run" / "opensearch.pid",
            "startup": root / "logs" / "startup.out", "log": root / "logs" / f"{_CLUSTER_NAME}.log"}


def _write_config(home: Path, paths: dict[str, Path], port: int, heap: str) -> None:
    config = paths["config"]
    config.mkdir(parents=True, exist_ok=True)
    source = home / "config"
    logs = str(paths["logs"])
    for name in ("log4j2.properties", "fips_java.security"):
        if (source / name).exists():
            shutil.copyfile(source / name, config / name)
    # The launcher cd's into the (read-only) home: point relative log/dump paths at our logs dir.
    jvm_options = (source / "jvm.options").read_text()
    jvm_options = re.sub(r"(?m)^(.*-XX:HeapDumpPath=)data\s*$", rf"\g<1>{logs}", jvm_options)
    jvm_options = jvm_options.replace("-XX:ErrorFile=logs/", f"-XX:ErrorFile={logs}/")
    jvm_options = jvm_options.replace("file=logs/", f"file={logs}/")
    (config / "jvm.options").write_text(jvm_options)
    options_d = config / "jvm.options.d"
    options_d.mkdir(exist_ok=True)
    (options_d / "evident.options").write_text(f"-Xms{heap}\n-Xmx{heap}\n")
    (config / "opensearch.yml").write_text(
        "# Written by evident.stack.opensearch on every start; edits are overwritten.\n"
        f"cluster.name: {_CLUSTER_NAME}\n"
        "node.name: evident-local\n"
        "discovery.type: single-node\n"
        f"network.host: {HOST}\n"
        f"http.port: {port}\n"
        f"path.data: {paths['data']}\n"
        f"path.logs: {logs}\n"
        "cluster.routing.allocation.disk.threshold_enabled: false\n"
        "action.auto_create_index: true\n")


def opensearch_status(state_dir: str | os.PathLike | None = None, *,
                      port: int = DEFAULT_OPENSEARCH_PORT) -> ServiceStatus:
    """Whether an OpenSearch node answers on ``port`` and whether we started it."""
    paths = _opensearch_paths(state_dir)
    pid = _node_pid(paths)
    kind, info = _probe_opensearch(port)
    status = ServiceStatus("opensearch", kind == "opensearch", port, pid=pid, managed=pid is not None,
                           url=f"http://{HOST}:{port}")
    if kind == "opensearch":
        status.version = info["version"].get("number")
        status.health = _health(port)
    elif kind == "other":
        status.detail = f"port {port} is used by something that is not OpenSearch"
    elif pid:
        status.detail = "process alive but not answering (starting up or hung)"
    return status


def _node_pid(paths: dict[str, Path]) -> int | None:
    """PID of the OpenSearch JVM using our config dir: from the pid file, else found in /proc."""
    pid = _read_pid(paths["pid"], "org.opensearch.bootstrap.OpenSearch")
    if pid is not None:
        return pid
    needle = f"-Dopensearch.path.conf={paths['config']} "
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            cmdline = _cmdline(int(entry.name))
            if needle in cmdline and "org.opensearch.bootstrap.OpenSearch" in cmdline \
                    and _pid_alive(int(entry.name)):
                return int(entry.name)
    return None


def _configured_port(paths: dict[str, Path]) -> int | None:
    try:
        match = re.search(r"(?m)^http\.port:\s*(\d+)", (paths["config"] / "opensearch.yml").read_text())
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _crash_report(paths: dict[str, Path], why: str) -> ServiceError:
    parts = [why]
    for key in ("startup", "log"):
        tail = _tail(paths[key])
        if tail:
            parts.append(f"--- last {_LOG_TAIL} lines of {paths[key]} ---\n{tail}")
    return ServiceError("\n".join(parts))


def _wait_for_health(port: int, paths: dict[str, Path], deadline: float,
                     launcher: subprocess.Popen | None) -> str:
    gone_since = None
    while True:
        health = _health(port, timeout=3)
        if health in ("green", "yellow"):
            return health
        pid = _node_pid(paths)
        launcher_rc = launcher.poll() if launcher else 0
        if pid is None and launcher_rc not in (None, 0):
            raise _crash_report(paths, f"OpenSearch failed to start (launcher exit {launcher_rc})")
        if pid is None and launcher_rc == 0:
            # The launcher backgrounds the JVM and exits; allow a moment for it to show in /proc.
            gone_since = gone_since or time.monotonic()
            if time.monotonic() - gone_since > 3.0:
                raise _crash_report(paths, "OpenSearch exited during start-up")
        else:
            gone_since = None
        if time.monotonic() > deadline:
            raise _crash_report(paths, f"OpenSearch did not reach yellow/green health on port {port} in time "
                                       f"(pid {pid}, health {health}); it is left running, "
                                       "stop it with stop_opensearch()")
        time.sleep(1.0)


def start_opensearch(version: str = OPENSEARCH_VERSION, cache_dir: str | os.PathLike | None = None,
                     state_dir: str | os.PathLike | None = None, *, port: int = DEFAULT_OPENSEARCH_PORT,
                     heap: str = DEFAULT_HEAP, timeout: float = 300.0, plugins=OPENSEARCH_PLUGINS,
                     java_home: str | os.PathLike | None = None) -> ServiceStatus:
    """Start a single-node OpenSearch on 127.0.0.1:``port`` as a background daemon.

    Idempotent: an OpenSearch already answering on the port is reused (not restarted).
    Fetches and installs OpenSearch first if needed (:func:`ensure_opensearch`), then
    waits until cluster health is yellow or green (``timeout`` seconds).  ``heap``
    is a JVM size like ``"1g"`` or ``"1536m"``.
    """
    if not re.fullmatch(r"\d+[kmgKMG]?", heap):
        raise ServiceError(f"invalid heap size {heap!r} (use e.g. 1g or 1536m)")
    paths = _opensearch_paths(state_dir)
    deadline = time.monotonic() + timeout
    kind, info = _probe_opensearch(port)
    if kind == "opensearch":
        running = info["version"].get("number")
        if running != version:
            _say(f"warning: OpenSearch {running} (not {version}) already answers on port {port}; reusing it")
        status = opensearch_status(state_dir, port=port)
        while status.health not in ("green", "yellow"):
            if time.monotonic() > deadline:
                raise ServiceError(f"the OpenSearch on port {port} stays at health {status.health}")
            time.sleep(1.0)
            status = opensearch_status(state_dir, port=port)
        _say(f"reusing OpenSearch {running} already running on port {port}")
        return status
    if kind == "other":
        raise ServiceError(f"port {port} on {HOST} is in use by something that is not OpenSearch; "
                           "stop it or choose another port")
    pid = _node_pid(paths)
    if pid is not None:
        node_port = _configured_port(paths)
        if node_port is not None and node_port != port:
            raise ServiceError(f"the OpenSearch node of {paths['root']} (pid {pid}) is configured for port "
                               f"{node_port}, not {port}; stop it first or use another state dir")
        _say(f"OpenSearch (pid {pid}) is already starting; waiting for it")
        _wait_for_health(port, paths, deadline, None)
        return opensearch_status(state_dir, port=port)

    java = Path(java_home) if java_home else find_java_home(version)
    if not (java / "bin" / "java").is_file():
        raise ServiceError(f"{java} is not a JDK (no bin/java)")
    as_service_user = _is_root()
    uid = gid = -1
    if as_service_user:
        if not shutil.which("runuser"):
            raise ServiceError("runuser not found (Debian package util-linux); needed to run OpenSearch as non-root")
        uid, gid = _ensure_service_user()
        _check_traversable(_opensearch_version_dir(version, cache_dir), uid, gid)
        _check_traversable(paths["root"], uid, gid)
    home = ensure_opensearch(version, cache_dir, plugins=plugins, java_home=java)
    if _probe_opensearch(port)[0] != "free":  # the port was taken while we were installing
        raise ServiceError(f"port {port} on {HOST} was taken while OpenSearch was being installed; "
                           "run the start again")

    for key in ("root", "data", "logs", "run"):
        paths[key].mkdir(parents=True, exist_ok=True)
    _write_config(home, paths, port, heap)
    paths["pid"].unlink(missing_ok=True)
    if as_service_user:
        for directory in (paths["root"].parent, paths["root"]):  # the state dir and ours: enterable
            os.chmod(directory, stat.S_IMODE(directory.stat().st_mode) | 0o711)
        _check_traversable(paths["root"], uid, gid)
        _chown_tree(paths["root"], uid, gid)

    env = _java_env(java)
    env["OPENSEARCH_PATH_CONF"] = str(paths["config"])
    env["HOME"] = str(paths["root"])
    command = [str(home / "bin" / "opensearch"), "-d", "-p", str(paths["pid"])]
    if as_service_user:
        command = ["runuser", "-u", SERVICE_USER, "--", *command]
    _say(f"starting OpenSearch {version} on {HOST}:{port} (heap {heap}, java {java}); logs in {paths['logs']}")
    with paths["startup"].open("wb") as out:
        launcher = subprocess.Popen(command, cwd=str(paths["root"]), env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=_raise_nofile)
    if as_service_user:
        with contextlib.suppress(OSError):
            os.chown(paths["startup"], uid, gid)
    try:
        launcher.wait(timeout=max(5.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass
    health = _wait_for_health(port, paths, deadline, launcher)
    status = opensearch_status(state_dir, port=port)
    status.health = health
    _say(f"OpenSearch {status.version} is up on {status.url} (health {health}, pid {status.pid})")
    return status


def stop_opensearch(state_dir: str | os.PathLike | None = None, *, port: int = DEFAULT_OPENSEARCH_PORT,
                    timeout: float = 60.0) -> ServiceStatus:
    """Stop the node we started (pid file in the state dir); a node we did not start is left alone."""
    paths = _opensearch_paths(state_dir)
    return _stop_managed("OpenSearch", _node_pid(paths), paths, port, timeout,
                         lambda: opensearch_status(state_dir, port=port))


def _stop_managed(label: str, pid: int | None, paths: dict, port: int, timeout: float, status) -> ServiceStatus:
    """Stop a service from its pid file; one we did not start is left running."""
    if pid is None:
        current = status()
        if current.running:
            _say(f"{label} on port {port} was not started by evident from {paths['root']}; leaving it running")
        else:
            _say(f"{label} is not running")
        return current
    _say(f"stopping {label} (pid {pid})")
    if not _terminate(pid, timeout):
        raise ServiceError(f"{label} (pid {pid}) did not exit")
    paths["pid"].unlink(missing_ok=True)
    return status()


# --------------------------------------------------------------------------- Redis


def _redis_ping(port: int, timeout: float = 2.0) -> str:
    """"pong" | "auth" (Redis wanting a password) | "other" | "free"."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(b"PING\r\n")
            reply = b""
            while not reply.endswith(b"\r\n") and len(reply) < 512:
                chunk = sock.recv(512)
                if not chunk:
                    break
                reply += chunk
    except ConnectionRefusedError:
        return "free"
    except OSError:
        return "other" if _port_open(port) else "free"
    if reply.startswith(b"+PONG"):
        return "pong"
    if reply.startswith(b"-NOAUTH") or reply.startswith(b"-ERR") and b"auth" in reply.lower():
        return "auth"
    return "other"


def _redis_version(port: int) -> str | None:
    try:
        with socket.create_connection((HOST, port), timeout=2) as sock:
            sock.sendall(b"INFO server\r\n")
            data, deadline = b"", time.monotonic() + 2
            while b"redis_version:" not in data or not data.endswith(b"\r\n"):
                if time.monotonic() > deadline:
                    break
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    match = re.search(rb"redis_version:([^\r\n]+)", data)
    return match.group(1).decode() if match else None


def _redis_paths(state_dir: str | os.PathLike | None) -> dict[str, Path]:
    root = (Path(state_dir).expanduser() if state_dir else default_state_dir()).resolve() / "redis"
    return {"root": root, "data": root / "data", "conf": root / "redis.conf",
            "pid": root / "redis.pid", "log": root / "redis.log"}


def _find_redis_server() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    for candidate in ("/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"):
        if os.access(candidate, os.X_OK):
            return candidate
    raise ServiceError("redis-server not found; install the Debian package redis-server "
                       "(apt-get install -y redis-server)")


def redis_status(state_dir: str | os.PathLike | None = None, *, port: int = DEFAULT_REDIS_PORT) -> ServiceStatus:
    """Whether a Redis answers PING on ``port`` and whether we started it."""
    paths = _redis_paths(state_dir)
    pid = _read_pid(paths["pid"], "redis-server")
    answer = _redis_ping(port)
    status = ServiceStatus("redis", answer == "pong", port, pid=pid, managed=pid is not None,
                           url=f"redis://{HOST}:{port}")
    if answer == "pong":
        status.version = _redis_version(port)
    elif answer == "auth":
        status.detail = "a Redis that requires a password answers on the port"
    elif answer == "other":
        status.detail = f"port {port} is used by something that is not Redis"
    return status


def start_redis(state_dir: str | os.PathLike | None = None, *, port: int = DEFAULT_REDIS_PORT,
                timeout: float = 30.0) -> ServiceStatus:
    """Start ``redis-server`` daemonized on 127.0.0.1:``port`` (data, log, pid under the state dir).

    Idempotent: a Redis already answering PING on the port is reused.
    """
    answer = _redis_ping(port)
    if answer == "pong":
        _say(f"reusing Redis already running on port {port}")
        return redis_status(state_dir, port=port)
    if answer == "auth":
        raise ServiceError(f"a Redis that requires a password already listens on port {port}; "
                           "stop it or choose another port")
    if answer == "other":
        raise ServiceError(f"port {port} on {HOST} is in use by something that is not Redis; "
                           "stop it or choose another port")
    server = _find_redis_server()
    paths = _redis_paths(state_dir)
    paths["data"].mkdir(parents=True, exist_ok=True)
    stale = _read_pid(paths["pid"], "redis-server")
    if stale is not None:  # ours, but not answering: hung
        _say(f"Redis (pid {stale}) does not answer; restarting it")
        _terminate(stale, 10)
    paths["pid"].unlink(missing_ok=True)
    paths["conf"].write_text(
        "# Written by evident.stack.opensearch on every start; edits are overwritten.\n"
        f"bind {HOST}\n"
        "protected-mode yes\n"
        f"port {port}\n"
        "daemonize yes\n"
        "supervised no\n"
        f'pidfile "{paths["pid"]}"\n'
        f'logfile "{paths["log"]}"\n'
        f'dir "{paths["data"]}"\n'
        "dbfilename dump.rdb\n"
        "save 3600 1 300 100 60 10000\n"
        "appendonly no\n"
        "loglevel notice\n")
    _say(f"starting Redis on {HOST}:{port}; data in {paths['data']}")
    result = subprocess.run([server, str(paths["conf"])], stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, timeout=timeout)
    if result.returncode != 0:
        raise ServiceError(f"redis-server failed (exit {result.returncode}): "
                           f"{(result.stdout + result.stderr).strip()}\n{_tail(paths['log'])}")
    deadline = time.monotonic() + timeout
    while _redis_ping(port) != "pong":
        pid = _read_pid(paths["pid"], "redis-server")
        if time.monotonic() > deadline or (paths["pid"].exists() and pid is None):
            raise ServiceError(f"Redis did not come up on port {port}; last lines of {paths['log']}:\n"
                               + _tail(paths["log"]))
        time.sleep(0.2)
    status = redis_status(state_dir, port=port)
    _say(f"Redis {status.version} is up on {status.url} (pid {status.pid})")
    return status


def stop_redis(state_dir: str | os.PathLike | None = None, *, port: int = DEFAULT_REDIS_PORT,
               timeout: float = 30.0) -> ServiceStatus:
    """Stop the Redis we started (pid file in the state dir); another Redis is left alone."""
    paths = _redis_paths(state_dir)
    return _stop_managed("Redis", _read_pid(paths["pid"], "redis-server"), paths, port, timeout,
                         lambda: redis_status(state_dir, port=port))
