"""OpenSearch for the local stack: which one, fetched and verified, configured, and how to ask it.

Why our own code: no package manager we can use ships OpenSearch with the k-NN and neural-search
plugins, so we install it ourselves from Maven Central (``maven.py`` verifies every file), find a
JDK for it, write its config and create the user it runs as. Running it is supervisord's job
(``supervisor.py``); what this module hands over is a :class:`~evident.stack.supervisor.Program`.

Why the integ-test zip and Java 21+: the only server distribution on Maven Central is
``org.opensearch.distribution.integ-test-zip:opensearch``. It has no bundled JDK, and from 3.x on it
ships the full module set (lang-painless, analysis-common, mapper-extras, ingest-common, reindex,
search-pipeline-common, ...). OpenSearch 3.x needs Java 21+, so it runs on the Temurin 25 JDK.
The version is the one in ``.env`` (``OPENSEARCH_VERSION``, also read by docker-compose).

Plugins: ``opensearch-knn`` (its published zip has no native libraries, so only the pure-Java
**lucene** engine works: map ``knn_vector`` fields with ``"engine": "lucene"``) and
``neural-search`` (installs as ``opensearch-neural-search``: the ``hybrid`` query and the
normalization / rrf search pipeline processors).

Layout: ``<cache dir>/opensearch/<version>/`` holds the verified downloads and the read-only home
``opensearch-<version>/`` (complete when it holds ``.evident-complete``);
``<state dir>/opensearch/{config,data,logs}`` is the first node's, ``<state dir>/opensearch-<i>/`` node i's
(``[services] opensearch_nodes``; node i answers HTTP on ``opensearch_port + i - 1``). One node runs with
single-node discovery; several share ``cluster.name`` and find each other through ``discovery.seed_hosts``
(their transport ports). A node started with single-node discovery elects itself and never forms a cluster
with another node, and a cluster's data keeps the voting configuration it was formed with, so data formed
with one node count is refused under another (:func:`check_node_count`) instead of being started into a
cluster that cannot form. OpenSearch refuses to run as root, so
under root it runs as the system user :data:`SERVICE_USER`, which must be able to enter the cache
and state dirs (hence ``/var/cache/evident`` and ``/var/lib/evident`` under root, not ``/root``).
"""
from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from core.settings import PROJECT_ROOT
from evident.stack import HOST, ServiceError, locked, port_open, say
from evident.stack.maven import download_artifact
from evident.stack.supervisor import Program

DISTRIBUTION_GROUP = "org.opensearch.distribution.integ-test-zip"
DISTRIBUTION_ARTIFACT = "opensearch"
PLUGIN_GROUP = "org.opensearch.plugin"
# Plugin artifacts (group PLUGIN_GROUP, version "<core version>.0"), in install order:
# neural-search extends k-NN.
OPENSEARCH_PLUGINS: tuple[str, ...] = ("opensearch-knn", "neural-search")
# Modules Evident relies on; a distribution without them is refused.
REQUIRED_MODULES: tuple[str, ...] = ("transport-netty4", "lang-painless", "analysis-common", "mapper-extras",
                                     "ingest-common", "search-pipeline-common")
# SHA-256 of the 3.6.0 files, recorded from downloads checked to be byte-identical across fetches. The
# plugin zips are published without .sha1/.sha512, so these pins are their only check; the core zip is
# checked against its published .sha512 as well.
PINNED_SHA256: dict[str, str] = {
    "opensearch-3.6.0.zip": "a91faa1dc1cadc78cb278b4f63847e19e1627a4e9de698e14e7efc14ee37b286",
    "opensearch-knn-3.6.0.0.zip": "ac392ca28a39b3bf290648a422ef30cb149dda2963a9d7feb26060e932341c9a",
    "neural-search-3.6.0.0.zip": "6ef1b206e79391e2e36268e32dc34d27fd8b8a59a8eb0a7393c97d53b038e433",
}
SERVICE_USER = "evident"
CLUSTER_NAME = "evident"
JAVA_MIN = 21  # OpenSearch 3.x uses a Java agent in place of the Security Manager: Java 21+
JAVA_PREFERRED = (25, 21)  # the JDKs 3.x is tested on, best first
ENV_FILE = PROJECT_ROOT / ".env"
_MARKER = ".evident-complete"
# `opensearch-plugin install` unpacks and checks a zip of a few hundred MB: 10 minutes on a slow disk.
PLUGIN_INSTALL_TIMEOUT = 600
# `java -version` answers in well under a second; 30 s allows for a cold, busy machine.
JAVA_VERSION_TIMEOUT = 30
# A health request to a local node that is still starting may hang briefly; 5 s, then we ask again.
HTTP_TIMEOUT = 5.0
# A JVM that has stayed up 10 s is past option parsing and heap reservation; later crashes are
# caught by the launcher watching supervisord's start time.
START_SECS = 10
# On SIGTERM OpenSearch closes its shards and flushes; 60 s before supervisord uses SIGKILL.
STOP_WAIT_SECS = 60
LOG_TAIL_LINES = 40  # of a failed plugin install's output: enough to show why
# Node i's transport port is its HTTP port plus this: OpenSearch's own defaults (9200 and 9300).
TRANSPORT_PORT_OFFSET = 100
NODE_COUNT_FILE = "cluster-nodes"  # in the first node's dir: how many nodes its data was formed with


def opensearch_version(env_file: Path = ENV_FILE) -> str:
    """OPENSEARCH_VERSION from the checkout's ``.env``, the one place that names it."""
    try:
        text = env_file.read_text()
    except OSError as exc:
        raise ServiceError(f"cannot read {env_file} (it names OPENSEARCH_VERSION): {exc}") from exc
    match = re.search(r"(?m)^\s*OPENSEARCH_VERSION\s*=\s*['\"]?([0-9][0-9A-Za-z.\-]*)", text)
    if not match:
        raise ServiceError(f"{env_file} has no OPENSEARCH_VERSION=<version> line")
    return match.group(1)


def _is_root() -> bool:
    return os.geteuid() == 0


def default_cache_dir() -> Path:
    """Root of the download cache: ``/var/cache/evident`` under root (the service user cannot enter
    ``/root``), else ``$XDG_CACHE_HOME/evident`` or ``~/.cache/evident``."""
    if _is_root():
        return Path("/var/cache/evident")
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evident"


def default_state_dir() -> Path:
    """Data, logs and configs of the local stack: ``/var/lib/evident`` under root (the service user
    must enter it), else ``$XDG_STATE_HOME/evident`` or ``~/.local/state/evident``."""
    if _is_root():
        return Path("/var/lib/evident")
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "evident"


def version_dir(version: str, cache_dir: str | os.PathLike | None) -> Path:
    root = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    return root.resolve() / "opensearch" / version


def program_name(node: int) -> str:
    """supervisord's name for node ``node`` (0-based): ``opensearch``, ``opensearch-2``, ..."""
    return "opensearch" if node == 0 else f"opensearch-{node + 1}"


def node_name(node: int) -> str:
    return "evident-local" if node == 0 else f"evident-local-{node + 1}"


def node_paths(state_dir: Path, node: int = 0) -> dict[str, Path]:
    root = state_dir / program_name(node)
    return {"root": root, "config": root / "config", "data": root / "data", "logs": root / "logs",
            "log": root / "logs" / f"{CLUSTER_NAME}.log"}


# ----------------------------------------------------------------------------- JDK


def java_major(java_home: Path) -> int | None:
    """The Java feature version of a JDK (from its ``release`` file, else ``java -version``)."""
    try:
        text = (java_home / "release").read_text(errors="replace")
        pattern = r'^JAVA_VERSION="?(\d+)(?:\.(\d+))?'
    except OSError:
        if not (java_home / "bin" / "java").exists():
            return None
        try:
            text = subprocess.run([str(java_home / "bin" / "java"), "-version"], capture_output=True,
                                  text=True, timeout=JAVA_VERSION_TIMEOUT).stderr
        except (OSError, subprocess.TimeoutExpired):
            return None
        pattern = r'version "(\d+)(?:\.(\d+))?'
    match = re.search(pattern, text, re.M)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def find_java_home(jvm_root: Path = Path("/usr/lib/jvm")) -> Path:
    """The JDK to run OpenSearch with: ``$EVIDENT_JAVA_HOME`` if set (checked), else the best Java 21+
    under ``jvm_root`` (25, then 21, then the newest)."""
    explicit = os.environ.get("EVIDENT_JAVA_HOME")
    if explicit:
        home = Path(explicit)
        if not (home / "bin" / "java").is_file():
            raise ServiceError(f"EVIDENT_JAVA_HOME={explicit} is not a JDK (no bin/java)")
        major = java_major(home)
        if major is not None and major < JAVA_MIN:
            raise ServiceError(f"EVIDENT_JAVA_HOME={explicit} is Java {major}; OpenSearch needs Java {JAVA_MIN}+")
        return home
    found: dict[Path, int] = {}
    for candidate in sorted(jvm_root.iterdir()) if jvm_root.is_dir() else []:
        real = candidate.resolve()
        if (candidate / "bin" / "java").is_file() and real not in found:
            major = java_major(real)
            if major is not None and major >= JAVA_MIN:
                found[real] = major
    if not found:
        raise ServiceError(f"no JDK for OpenSearch found (it needs Java {JAVA_MIN}+) under {jvm_root}; "
                           "install one (e.g. Temurin 25) or set EVIDENT_JAVA_HOME")

    def rank(item: tuple[Path, int]) -> tuple[int, int]:
        return (JAVA_PREFERRED.index(item[1]) if item[1] in JAVA_PREFERRED else len(JAVA_PREFERRED), -item[1])

    return min(found.items(), key=rank)[0]


def _java_env(java_home: Path) -> dict[str, str]:
    """OpenSearch's launcher reads these; the caller's OPENSEARCH_JAVA_OPTS are not passed on."""
    return {"OPENSEARCH_JAVA_HOME": str(java_home), "OPENSEARCH_JAVA_OPTS": ""}


# ------------------------------------------------------------------- install (cache)


def _extract_zip(archive: Path, target: Path) -> None:
    """Unzip keeping the Unix permission bits (zipfile drops them), world-readable for the service user."""
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            if info.filename.startswith("/") or ".." in Path(info.filename).parts:
                raise ServiceError(f"unsafe path {info.filename!r} in {archive}")
            path = target / info.filename
            mode = (info.external_attr >> 16) & 0o777
            if info.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                os.chmod(path, (mode or 0o755) | 0o755)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, path.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            os.chmod(path, (mode or 0o644) | 0o644)


def _installed(home: Path) -> bool:
    try:
        marker = json.loads((home / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    return set(OPENSEARCH_PLUGINS) <= set(marker.get("plugins", []))


def _fetch(version: str, vdir: Path, progress: bool) -> tuple[Path, list[Path]]:
    def get(group: str, artifact: str, artifact_version: str) -> Path:
        pinned = PINNED_SHA256.get(f"{artifact}-{artifact_version}.zip")
        return download_artifact(group, artifact, artifact_version, "zip", vdir, progress=progress,
                                 pinned_sha256=pinned)

    core = get(DISTRIBUTION_GROUP, DISTRIBUTION_ARTIFACT, version)
    return core, [get(PLUGIN_GROUP, name, f"{version}.0") for name in OPENSEARCH_PLUGINS]


def _unpack(archive: Path, plugin_zips: list[Path], partial: Path, version: str, java: Path) -> Path:
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    _extract_zip(archive, partial)
    unpacked = partial / f"opensearch-{version}"
    if not (unpacked / "bin" / "opensearch").is_file():
        raise ServiceError(f"{archive} does not look like an OpenSearch distribution (no bin/opensearch)")
    missing = [m for m in REQUIRED_MODULES if not (unpacked / "modules" / m).is_dir()]
    if missing:
        raise ServiceError(f"the OpenSearch {version} integ-test zip lacks the modules {', '.join(missing)}; "
                           f"set OPENSEARCH_VERSION in {ENV_FILE} to a 3.x release")
    env = {**os.environ, **_java_env(java), "OPENSEARCH_PATH_CONF": str(unpacked / "config")}
    for plugin_zip in plugin_zips:
        command = [str(unpacked / "bin" / "opensearch-plugin"), "install", "--batch", plugin_zip.as_uri()]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=PLUGIN_INSTALL_TIMEOUT)
        if result.returncode != 0:
            output = (result.stdout + result.stderr).strip().splitlines()[-LOG_TAIL_LINES:]
            raise ServiceError(f"installing plugin {plugin_zip.name} failed (exit {result.returncode}):\n"
                               + "\n".join(output))
    for path in [unpacked, *unpacked.rglob("*")]:  # plugins unpack 0700 dirs: open them to the service user
        if not path.is_symlink():
            mode = stat.S_IMODE(path.lstat().st_mode)
            extra = 0o755 if path.is_dir() or mode & 0o100 else 0o644
            if mode | extra != mode:
                os.chmod(path, mode | extra)
    return unpacked


def ensure_opensearch(version: str, cache_dir: str | os.PathLike | None, java: Path, *,
                      progress: bool = True) -> Path:
    """Download, verify, unpack and equip OpenSearch ``version`` with :data:`OPENSEARCH_PLUGINS`;
    return its home. Idempotent (a complete home is returned at once); one installer at a time."""
    vdir = version_dir(version, cache_dir)
    home = vdir / f"opensearch-{version}"
    if _installed(home):
        return home
    with locked(vdir / ".lock"):
        if _installed(home):
            return home
        started = time.monotonic()
        say(f"installing OpenSearch {version} with plugins {', '.join(OPENSEARCH_PLUGINS)} into {home}")
        archive, plugin_zips = _fetch(version, vdir, progress)
        partial = vdir / f"opensearch-{version}.partial"
        unpacked = _unpack(archive, plugin_zips, partial, version, java)
        (unpacked / _MARKER).write_text(json.dumps(
            {"version": version, "plugins": list(OPENSEARCH_PLUGINS), "java_home": str(java),
             "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, indent=1) + "\n")
        shutil.rmtree(home, ignore_errors=True)
        unpacked.rename(home)
        shutil.rmtree(partial, ignore_errors=True)
        for path in (vdir.parent.parent, vdir.parent, vdir, home):
            os.chmod(path, stat.S_IMODE(path.stat().st_mode) | 0o755)
        say(f"OpenSearch {version} ready in {home} ({time.monotonic() - started:.0f}s)")
    return home


# ----------------------------------------------------------------- service user


def ensure_service_user() -> tuple[int, int]:
    """uid and gid of :data:`SERVICE_USER`, created as a system user when missing."""
    try:
        entry = pwd.getpwnam(SERVICE_USER)
    except KeyError:
        if not shutil.which("useradd"):
            raise ServiceError(f"cannot create system user {SERVICE_USER!r}: useradd not found") from None
        result = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                                 "/nonexistent", "--shell", "/usr/sbin/nologin", SERVICE_USER],
                                capture_output=True, text=True)
        if result.returncode not in (0, 9):  # 9: already exists (a concurrent call)
            raise ServiceError(f"useradd {SERVICE_USER} failed: {result.stderr.strip()}")
        say(f"created system user {SERVICE_USER!r} to run OpenSearch (it refuses to run as root)")
        entry = pwd.getpwnam(SERVICE_USER)
    return entry.pw_uid, entry.pw_gid


def closed_to(path: Path, uid: int, gid: int) -> Path | None:
    """The first existing one of ``path`` and its ancestors that user ``uid`` may not enter (or run); None."""
    for parent in [path, *path.parents]:
        try:
            st = parent.stat()
        except FileNotFoundError:
            continue
        bit = stat.S_IXUSR if st.st_uid == uid else stat.S_IXGRP if st.st_gid == gid else stat.S_IXOTH
        if not st.st_mode & bit:
            return parent
    return None


def check_traversable(path: Path, uid: int, gid: int) -> None:
    """Raise unless user ``uid`` can enter every existing ancestor of ``path``."""
    if (parent := closed_to(path, uid, gid)) is not None:
        raise ServiceError(
            f"user {SERVICE_USER!r} (which runs OpenSearch, since it refuses root) cannot enter {parent}, "
            f"so it cannot use {path}; choose cache/state dirs outside it (EVIDENT_SERVICES_CACHE_DIR, "
            "EVIDENT_SERVICES_STATE_DIR, e.g. /var/cache/evident and /var/lib/evident)")


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            st = os.lstat(name)
            if st.st_uid != uid or st.st_gid != gid:
                os.lchown(name, uid, gid)


# ----------------------------------------------------------------------- configure


def cluster_config(node: int, nodes: int, first_port: int, bootstrap: bool) -> str:
    """The opensearch.yml lines that name node ``node`` of ``nodes`` and make them a cluster (HTTP ports from
    ``first_port``).
    ``bootstrap``: the cluster's first start, when ``cluster.initial_cluster_manager_nodes`` names who may
    form it (OpenSearch ignores it later, and warns while it stays set)."""
    if nodes == 1:
        return f"node.name: {node_name(node)}\ndiscovery.type: single-node\n"
    transport = [first_port + i + TRANSPORT_PORT_OFFSET for i in range(nodes)]
    lines = [f"node.name: {node_name(node)}", f"transport.port: {transport[node]}",
             f"discovery.seed_hosts: [{', '.join(f'{HOST}:{port}' for port in transport)}]"]
    if bootstrap:
        lines.append(f"cluster.initial_cluster_manager_nodes: [{', '.join(node_name(i) for i in range(nodes))}]")
    return "\n".join(lines) + "\n"


def _data_exists(state_dir: Path) -> bool:
    """Whether any node dir of the state dir holds data (a cluster was formed there)."""
    return any(any(data.iterdir()) for data in state_dir.glob("opensearch*/data") if data.is_dir())


def check_node_count(state_dir: Path, nodes: int) -> bool:
    """Raise unless data in ``state_dir`` can start as ``nodes`` nodes: formed by as many, or a cluster of
    several that grows (fewer could lose the voting majority; a single node never takes others in). True
    when there is no data yet (a first start: the count is recorded and the cluster bootstraps). Data from
    before the count was recorded was formed by a single node."""
    record = node_paths(state_dir)["root"] / NODE_COUNT_FILE
    if not _data_exists(state_dir):
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(f"{nodes}\n")
        return True
    try:
        formed = int(record.read_text())
    except (OSError, ValueError):
        formed = 1
    if 1 < formed < nodes:  # a cluster grows: the new nodes join through discovery.seed_hosts
        record.write_text(f"{nodes}\n")
    elif formed != nodes:
        raise ServiceError(
            f"the OpenSearch data in {state_dir} was formed by {formed} node(s) and cannot be started as "
            f"{nodes}: a node started alone (single-node discovery) never joins another, and a cluster keeps the "
            f"voting nodes it was formed with. Keep {formed} (`--nodes {formed}`, EVIDENT_SERVICES_OPENSEARCH_NODES), or start "
            f"{nodes} on a fresh state dir (EVIDENT_SERVICES_STATE_DIR), or run `evident services down` and delete "
            f"{state_dir}/opensearch*/data (the index is lost: ingest again)")
    return False


def write_config(home: Path, paths: dict[str, Path], port: int, heap: str, cluster: str) -> None:
    """opensearch.yml and the JVM options in the node's own config dir (rewritten on every start);
    ``cluster``: :func:`cluster_config`'s lines."""
    config, source, logs = paths["config"], home / "config", str(paths["logs"])
    config.mkdir(parents=True, exist_ok=True)
    for name in ("log4j2.properties", "fips_java.security"):
        if (source / name).exists():
            shutil.copyfile(source / name, config / name)
    # The node's working dir is not the home: point relative log and dump paths at our logs dir.
    jvm_options = (source / "jvm.options").read_text()
    jvm_options = re.sub(r"(?m)^(.*-XX:HeapDumpPath=)data\s*$", rf"\g<1>{logs}", jvm_options)
    jvm_options = jvm_options.replace("-XX:ErrorFile=logs/", f"-XX:ErrorFile={logs}/")
    jvm_options = jvm_options.replace("file=logs/", f"file={logs}/")
    (config / "jvm.options").write_text(jvm_options)
    (config / "jvm.options.d").mkdir(exist_ok=True)
    (config / "jvm.options.d" / "evident.options").write_text(f"-Xms{heap}\n-Xmx{heap}\n")
    (config / "opensearch.yml").write_text(
        "# Written by evident.stack.opensearch on every start; edits are overwritten.\n"
        f"cluster.name: {CLUSTER_NAME}\n{cluster}"
        f"network.host: {HOST}\nhttp.port: {port}\npath.data: {paths['data']}\npath.logs: {logs}\n"
        "cluster.routing.allocation.disk.threshold_enabled: false\naction.auto_create_index: true\n")


def prepare(state_dir: Path, cache_dir: str | os.PathLike | None, *, port: int, heap: str,
            version: str | None = None, node: int = 0, nodes: int = 1, bootstrap: bool = True) -> Program:
    """Everything before the first start of node ``node`` of ``nodes`` (``port``: the first node's HTTP port;
    ``bootstrap``: what :func:`check_node_count` said): JDK, service user, install, config. Returns the program
    for supervisord. Raises :class:`ServiceError` for a missing JDK, a failed download or a busy transport port."""
    if not re.fullmatch(r"\d+[kmgKMG]?", heap):
        raise ServiceError(f"invalid heap size {heap!r} (use e.g. 1g or 1536m)")
    version = version or opensearch_version()
    java = find_java_home()
    paths = node_paths(state_dir, node)
    if nodes > 1 and port_open(transport := port + node + TRANSPORT_PORT_OFFSET):
        raise ServiceError(f"port {transport} on {HOST} (transport of OpenSearch node {node + 1}) is in use; "
                           "choose another EVIDENT_SERVICES_OPENSEARCH_PORT")
    user = ids = None
    if _is_root():
        user, ids = SERVICE_USER, ensure_service_user()
        check_traversable(version_dir(version, cache_dir), *ids)
        check_traversable(paths["root"], *ids)
    home = ensure_opensearch(version, cache_dir, java)
    for key in ("root", "data", "logs"):
        paths[key].mkdir(parents=True, exist_ok=True)
    write_config(home, paths, port + node, heap, cluster_config(node, nodes, port, bootstrap))
    if ids:
        for directory in (state_dir, paths["root"]):  # the service user must enter them
            os.chmod(directory, stat.S_IMODE(directory.stat().st_mode) | 0o711)
        check_traversable(paths["root"], *ids)
        _chown_tree(paths["root"], *ids)
    env = {**_java_env(java), "OPENSEARCH_PATH_CONF": str(paths["config"]), "HOME": str(paths["root"])}
    return Program(program_name(node), [str(home / "bin" / "opensearch")], directory=paths["root"], environment=env,
                   user=user, start_secs=START_SECS, stop_wait_secs=STOP_WAIT_SECS)


# ------------------------------------------------------------------------- asking


def _http_json(url: str) -> tuple[int, object]:
    """(status, parsed JSON or text); status 0 when nothing answered."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    except (urllib.error.URLError, OSError, ValueError):
        return 0, None
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body.decode(errors="replace")


def probe(port: int) -> tuple[str, dict | None]:
    """("opensearch", root info) | ("other", None) | ("free", None): what listens on ``port``."""
    status, body = _http_json(f"http://{HOST}:{port}/")
    if isinstance(body, dict) and isinstance(body.get("version"), dict) \
            and body["version"].get("distribution") == "opensearch":
        return "opensearch", body
    if status or port_open(port):
        return "other", None
    return "free", None


def cluster_health(port: int) -> dict | None:
    """``_cluster/health`` as the node on ``port`` sees it (``status``, ``number_of_nodes``, ...), or None when
    it does not answer (yet) or has no elected cluster manager."""
    status, body = _http_json(f"http://{HOST}:{port}/_cluster/health")
    return body if status == 200 and isinstance(body, dict) else None


def health(port: int) -> str | None:
    """The cluster health colour, or None when the node does not answer (yet)."""
    return (cluster_health(port) or {}).get("status")


def ready(port: int) -> bool:
    return health(port) in ("green", "yellow")
