"""``evident services up|down|status``: which parts to start, in which order, and how they are.

supervisord keeps the processes (``supervisor.py``); this module decides. ``up`` looks at each
part's port first: an OpenSearch, Redis or Evident API already answering there is reused and simply
not started by us; a port held by something else is an error, raised before anything is fetched or
started. The rest is prepared (fetched, verified, configured), handed to supervisord, and started
one after the other, each once the one before answers; a process that dies on the way up is
stopped and reported with the tail of its log. ``[services] opensearch_nodes`` and ``workers`` make
several programs of one part (``opensearch``, ``opensearch-2``, ...; ``worker``, ``worker-2``, ...): they
start together (a cluster's first nodes can only elect a manager together) and are waited for one by one.
``down`` stops the supervisord of the state dir and
with it exactly what we started. Nothing here tracks pids: supervisord knows its processes.
"""
from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import xmlrpc.client
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from core.settings import PROJECT_ROOT, Settings
from evident.stack import HOST, ServiceError, locked, port_open, say, tail
from evident.stack import opensearch, redis
from evident.stack.supervisor import DOWN_STATES, Program, Supervisor

PARTS = ("opensearch", "redis", "worker", "beat", "api", "flower")  # also the start order: stores before their users
STORES = ("opensearch", "redis")
LABELS = {"opensearch": "OpenSearch", "redis": "Redis", "worker": "the worker", "beat": "the scheduler",
          "api": "the API", "flower": "Flower"}
# How long each part may take to answer after supervisord started it:
READY_TIMEOUT = {
    "opensearch": 300.0,  # a first start on 2 busy cores: JVM, modules and plugins take 40-120 s
    "redis": 30.0,  # redis-server answers within a second unless it loads a large dump
    "worker": 60.0,  # up once supervisord sees it alive past its startsecs
    "beat": 60.0,  # the same: Celery beat has no port to answer on
    "api": 300.0,  # each of `serve`'s gunicorn workers loads and warms up the embedding model before it answers
    "flower": 60.0,  # Celery's imports, then a Tornado server that binds at once
}
POLL_INTERVAL = 1.0  # how often we look again while a part comes up
HTTP_TIMEOUT = 5.0  # one request to a local HTTP service that may still be starting
WORKER_START_SECS = 10  # a worker alive 10 s is past its imports (Celery, torch) and broker connection
API_START_SECS = 5  # the API counts as up once it answers on its port; this only rules out instant exits
WORKER_STOP_WAIT_SECS = 60  # Celery's warm shutdown lets the file in hand finish
API_STOP_WAIT_SECS = 15  # gunicorn lets its workers finish their searches for 10 s, then stops them
LOG_TAIL_LINES = 40  # what a crash report shows of each log
SUPERVISORD_LOG_LINES = 400  # how far back a crash report looks in supervisord's log for the program's runs
SCALED = ("opensearch", "worker")  # the parts of which `up` may run several programs


def part_of(name: str) -> str:
    """The part a program belongs to: ``opensearch-2`` -> ``opensearch``."""
    base, _, number = name.rpartition("-")
    return base if base in SCALED and number.isdigit() else name


def number_of(name: str) -> int:
    """A program's 0-based place among its part's: ``opensearch`` 0, ``opensearch-2`` 1."""
    return int(name.rpartition("-")[2]) - 1 if part_of(name) != name else 0


def program_names(settings: Settings, parts) -> list[str]:
    """``parts`` with each scaled part as its [services] count of programs, in start order."""
    counts = {"opensearch": settings.services.opensearch_nodes, "worker": settings.services.workers}
    for part, count in counts.items():
        if count < 1:
            raise ServiceError(f"[services] {'opensearch_nodes' if part == 'opensearch' else 'workers'} is {count}; "
                               "it must be at least 1")
    return [name if i == 0 else f"{name}-{i + 1}" for name in parts for i in range(counts.get(name, 1))]


def label(name: str) -> str:
    number = number_of(name)
    return LABELS[part_of(name)] + (f" {number + 1}" if number else "")


def state_dir(settings: Settings) -> Path:
    return Path(settings.services.state_dir or opensearch.default_state_dir()).expanduser().resolve()


def log_dir(settings: Settings) -> Path:
    path = state_dir(settings) / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _port(settings: Settings, name: str) -> int | None:
    s = settings.services
    port = {"opensearch": s.opensearch_port, "redis": s.redis_port, "api": s.api_port,
            "flower": s.flower_port}.get(part_of(name))
    return port + number_of(name) if port else None


def _url(settings: Settings, name: str) -> str:
    port = _port(settings, name)
    return {"opensearch": f"http://{HOST}:{port}", "redis": f"redis://{HOST}:{port}",
            "api": f"http://{settings.services.api_host}:{port}", "flower": f"http://{HOST}:{port}"}.get(part_of(name), "")


def _probe_api(port: int) -> str:
    """"api" when an Evident API answers /api/health there, else "other" or "free"."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/api/health", timeout=HTTP_TIMEOUT) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:  # 503: an Evident API that finds a part down
        body = exc.read()
    except (urllib.error.URLError, OSError, ValueError):
        return "other" if port_open(port) else "free"
    try:
        return "api" if isinstance(json.loads(body), dict) else "other"
    except ValueError:
        return "other"


def _probe_flower(port: int) -> str:
    """"flower" when Flower's health check answers there, else "other" or "free"."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/healthcheck", timeout=HTTP_TIMEOUT) as response:
            return "flower" if response.read().strip() == b"OK" else "other"
    except (urllib.error.URLError, OSError, ValueError):
        return "other" if port_open(port) else "free"


def _probe(settings: Settings, name: str) -> tuple[str, dict]:
    """(what answers on the part's port: its name, "other", "auth" or "free"; facts about it)."""
    port = _port(settings, name)
    if part_of(name) == "opensearch":
        kind, info = opensearch.probe(port)
        if kind == "opensearch":
            cluster = opensearch.cluster_health(port) or {}
            return name, {"version": info["version"].get("number"), "health": cluster.get("status"),
                          "nodes": cluster.get("number_of_nodes")}
        return kind, {}
    if name == "redis":
        kind, version = redis.probe(port)
        return kind, ({"version": version} if version else {})
    if name == "api":
        return _probe_api(port), {}
    if name == "flower":
        return _probe_flower(port), {}
    return "free", {}  # the worker has no port


def _answers(settings: Settings, name: str) -> bool:
    """Does the part answer on its port (the worker and beat have none: supervisord's word is all there is)?"""
    if part_of(name) == "opensearch":
        return opensearch.ready(_port(settings, name))
    if name == "redis":
        return redis.ready(settings.services.redis_port)
    if name == "api":  # gunicorn's master binds the port at once; the API answers once a worker has loaded
        return _probe_api(settings.services.api_port) == "api"
    if name == "flower":
        return port_open(settings.services.flower_port)
    return True


def _plan(settings: Settings, running: dict[str, dict], parts) -> tuple[list[str], list[str]]:
    """(parts to start, parts already running under our supervisord); raises for a busy port."""
    to_start, ours = [], []
    for name in parts:
        if name in running and running[name]["statename"] not in DOWN_STATES:
            ours.append(name)
            continue
        kind, facts = _probe(settings, name)
        port, part_label = _port(settings, name), label(name)
        if kind == "free":
            to_start.append(name)
        elif kind == name:
            version = f" {facts['version']}" if facts.get("version") else ""
            say(f"reusing {part_label}{version} already answering on port {port} (not started by evident)")
        elif kind == "auth":
            raise ServiceError(f"a Redis that requires a password already listens on port {port}; "
                               "stop it or choose another port (EVIDENT_SERVICES_REDIS_PORT)")
        else:
            raise ServiceError(f"port {port} on {HOST} is in use by something that is not {part_label}; "
                               f"stop it or choose another port (EVIDENT_SERVICES_{part_of(name).upper()}_PORT)")
    return to_start, ours


def _check_urls(settings: Settings) -> None:
    """The worker and the API must talk to this stack's OpenSearch and Redis, not to another one's."""
    for name, url in (("opensearch", settings.opensearch.url), ("redis", settings.redis.url)):
        parsed = urllib.parse.urlsplit(url)
        if parsed.hostname in (HOST, "localhost") and parsed.port != _port(settings, name):
            raise ServiceError(
                f"{name}.url is {url}, but the stack's {LABELS[name]} is on port {_port(settings, name)}: "
                f"the worker and the API would use another {LABELS[name]}; set EVIDENT_{name.upper()}_URL "
                f"to match (e.g. {_url(settings, name)}{'/0' if name == 'redis' else ''})")


def child_environment(settings: Settings) -> dict[str, str]:
    """What the worker and the API must share with the settings ``up`` was given."""
    return {"PYTHONUNBUFFERED": "1",
            "EVIDENT_OPENSEARCH_URL": settings.opensearch.url,
            "EVIDENT_OPENSEARCH_INDEX_ALIAS": settings.opensearch.index_alias,
            "EVIDENT_REDIS_URL": settings.redis.url,
            "EVIDENT_SERVICES_API_HOST": settings.services.api_host,
            "EVIDENT_SERVICES_API_PORT": str(settings.services.api_port)}


def unprivileged_user(sdir: Path) -> tuple[str | None, dict[str, str]]:
    """Who runs the worker, beat and API, and the environment that gives them a home: under root the service
    user (a file that breaks its parser, or a request that breaks the API, then runs with no more rights than
    OpenSearch), with its HOME and caches in ``<state dir>/celery``, which it owns; otherwise the user running
    ``up``, as it is.

    ``scripts/bootstrap.sh`` builds the virtualenv from a Python the service user can run. When it still cannot
    reach the Python, the virtualenv (models, spaCy data) or the checkout (a virtualenv kept with KEEP_VENV, a
    checkout under /root), they stay root, and a warning says why and what to change.
    """
    if os.geteuid() != 0:
        return None, {}
    uid, gid = opensearch.ensure_service_user()
    needed = (Path(sys.executable).resolve(), Path(sys.prefix), PROJECT_ROOT, Path.cwd())
    for path in needed:
        if (closed := opensearch.closed_to(path, uid, gid)) is not None:
            say(f"warning: the worker, beat and API run as root: user {opensearch.SERVICE_USER!r} cannot enter {closed}, "
                f"so it cannot use {path}; give it a Python, virtualenv and checkout it can reach (outside /root) "
                "to run them without root")
            return None, {}
    home = sdir / "celery"
    (home / ".cache").mkdir(parents=True, exist_ok=True)
    for path in (home, home / ".cache"):
        os.chown(path, uid, gid)
    return opensearch.SERVICE_USER, {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}


def _prepare(settings: Settings, sdir: Path, name: str, bootstrap: bool) -> Program:
    """The program for ``name``; ``bootstrap``: an OpenSearch cluster's first start (see opensearch.prepare)."""
    s = settings.services
    if part_of(name) == "opensearch":
        program = opensearch.prepare(sdir, s.cache_dir or None, port=s.opensearch_port, heap=s.opensearch_heap,
                                     node=number_of(name), nodes=s.opensearch_nodes, bootstrap=bootstrap)
        if opensearch.probe(_port(settings, name))[0] != "free":
            raise ServiceError(f"port {_port(settings, name)} on {HOST} was taken while OpenSearch was being "
                               "installed; run `evident services up` again")
        return program
    if name == "redis":
        return redis.prepare(sdir, port=s.redis_port)
    if name == "flower":
        return Program(name, [sys.executable, "-m", "celery", f"--broker={settings.redis.url}", "flower",
                              f"--port={s.flower_port}", f"--address={HOST}"], directory=Path.cwd(),
                       environment=child_environment(settings), start_secs=API_START_SECS,
                       stop_wait_secs=API_STOP_WAIT_SECS)
    part = part_of(name)
    user, home = unprivileged_user(sdir) if part in ("worker", "beat", "api") else (None, {})
    schedule = (sdir / "celery" if user else sdir / "run") / "celerybeat-schedule"  # where beat may write
    # Celery tells workers apart by node name: the second and later ones get their own
    worker = ["worker", *(["--hostname", f"evident-{number_of(name) + 1}@%h"] if number_of(name) else [])]
    command = {"worker": worker, "api": ["serve"], "beat": ["beat", "--schedule-file", str(schedule)]}[part]
    return Program(name, [sys.executable, "-m", "evident.cli", *command], directory=Path.cwd(),
                   environment={**child_environment(settings), **home}, user=user,
                   start_secs=WORKER_START_SECS if part in ("worker", "beat") else API_START_SECS,
                   stop_wait_secs=WORKER_STOP_WAIT_SECS if part == "worker" else API_STOP_WAIT_SECS)


def _supervisord_record(sv: Supervisor, name: str) -> str:
    """supervisord's own lines on ``name``: each spawn, and each exit with its status or signal. A run that died
    and was retried leaves its cause only here: the program's log ends with the retry's output."""
    lines = tail(sv.log_dir / "supervisord.log", SUPERVISORD_LOG_LINES).splitlines()
    return "\n".join(line for line in lines if f"'{name}'" in line or f": {name} " in line)


def _crash_report(sv: Supervisor, name: str, why: str) -> ServiceError:
    """``why``, supervisord's record of the program's runs and the end of its output; OpenSearch's own log when it
    printed nothing."""
    log, output = sv.log_dir / f"{name}.log", sv.log_tail(name, LOG_TAIL_LINES)
    if not output.strip() and part_of(name) == "opensearch":
        log = opensearch.node_paths(sv.state_dir, number_of(name))["log"]
        output = tail(log, LOG_TAIL_LINES)
    return ServiceError(f"{why}\n--- supervisord on {name} ---\n{_supervisord_record(sv, name)}"
                        f"\n--- last lines of {log} ---\n{output}")


def _wait_ready(sv: Supervisor, settings: Settings, name: str, first: dict) -> None:
    """Until the part answers and supervisord counts it started (up past its startsecs: a node may answer before,
    and a crash in that window would be retried, not reported); a process that exits or is restarted on the
    way is a crash."""
    name_label, deadline = label(name), time.monotonic() + READY_TIMEOUT[part_of(name)]
    while True:
        info = sv.info(name) or {"statename": "UNKNOWN", "start": None, "exitstatus": None}
        down = info["statename"] in DOWN_STATES
        if down or info["start"] != first["start"]:
            sv.kill_program(name)
            how = (f"(supervisord: {info['statename']}, exit status {info['exitstatus']})" if down else
                   "and supervisord started it again (its exit is in supervisord's record below)")
            raise _crash_report(sv, name, f"{name_label} exited during start-up {how}; it was stopped")
        if info["statename"] == "RUNNING" and _answers(settings, name):
            return
        if time.monotonic() > deadline:
            raise _crash_report(sv, name, f"{name_label} did not answer within {READY_TIMEOUT[part_of(name)]:.0f}s; it is "
                                          "left running under supervisord (stop it with `evident services down`)")
        time.sleep(POLL_INTERVAL)


def _start(sv: Supervisor, settings: Settings, names: list[str]) -> None:
    """Start ``names`` (the programs of one part) together, then wait for each."""
    first = {}
    for name in names:
        say(f"starting {label(name)}" + (f" on port {_port(settings, name)}" if _port(settings, name) else ""))
        try:
            first[name] = sv.start_program(name)
        except xmlrpc.client.Fault as fault:  # SPAWN_ERROR: the command could not even be run
            raise _crash_report(sv, name, f"supervisord could not start {label(name)}: {fault.faultString}") from None
    for name in names:
        _wait_ready(sv, settings, name, first[name])
        info = sv.info(name)
        say(f"{label(name)} is up (pid {info['pid']}, log {sv.log_dir / (name + '.log')})")


def _shutdown_if_idle(sv: Supervisor) -> None:
    if sv.running() and all(info["statename"] in DOWN_STATES for info in sv.all_info().values()):
        sv.shutdown()


def up(settings: Settings, parts: tuple[str, ...] = PARTS) -> list[str]:
    """Start what is missing of ``parts`` under supervisord; idempotent. Returns what this call started."""
    sdir = state_dir(settings)
    sdir.mkdir(parents=True, exist_ok=True)
    sv = Supervisor(sdir)
    names = program_names(settings, parts)
    with locked(sdir / "run" / "launcher.lock"):
        to_start, ours = _plan(settings, sv.all_info(), names)
        if {"worker", "beat", "api", "flower"} & {part_of(name) for name in to_start}:
            _check_urls(settings)
        if "opensearch" not in to_start + ours and any(part_of(name) == "opensearch" for name in to_start):
            raise ServiceError(f"the OpenSearch on port {settings.services.opensearch_port} was not started by "
                               "evident, so its other nodes are not either: run the cluster's nodes yourself, or "
                               "choose a free EVIDENT_SERVICES_OPENSEARCH_PORT")
        bootstrap = any(part_of(name) == "opensearch" for name in to_start) \
            and opensearch.check_node_count(sdir, settings.services.opensearch_nodes)
        programs = [_prepare(settings, sdir, name, bootstrap) for name in to_start]
        if programs and sv.running():
            sv.add(programs)
        elif programs:
            sv.start(programs)
        started: list[str] = []
        try:
            for part in parts:
                group = [name for name in to_start if part_of(name) == part]
                if group:
                    _start(sv, settings, group)
                    started += group
                for name in ours:
                    if part_of(name) == part:
                        _wait_ready(sv, settings, name, sv.info(name))
        except ServiceError:
            _shutdown_if_idle(sv)
            raise
    return started


def up_stores(settings: Settings) -> list[str]:
    """OpenSearch and Redis only (what the tests and ``evident init`` need); returns what it started."""
    return up(settings, STORES)


def _in_order(names) -> list[str]:
    """Program names in start order: by part, then by number."""
    return sorted(names, key=lambda name: (PARTS.index(part_of(name)), number_of(name)))


def _stop_in_order(sv: Supervisor, parts) -> None:
    """Users before the stores they use (the worker finishes its file while Redis is still there); ``parts``
    names programs or whole parts."""
    programs = sv.all_info()
    for name in reversed(_in_order(name for name in programs if part_of(name) in PARTS)):
        if (name in parts or part_of(name) in parts) and programs[name]["statename"] not in DOWN_STATES:
            say(f"stopping {label(name)}")
            sv.stop_program(name)


def stop(settings: Settings, parts) -> None:
    """Stop ``parts`` under our supervisord (e.g. what :func:`up` returned); supervisord goes when idle."""
    sv = Supervisor(state_dir(settings))
    with locked(state_dir(settings) / "run" / "launcher.lock"):
        _stop_in_order(sv, parts)
        _shutdown_if_idle(sv)


def down(settings: Settings) -> None:
    """Stop everything the state dir's supervisord runs, then supervisord; others' services stay."""
    sdir = state_dir(settings)
    sv = Supervisor(sdir)
    with locked(sdir / "run" / "launcher.lock"):
        if sv.running():
            _stop_in_order(sv, PARTS)
            sv.shutdown()
        else:
            say(f"no supervisord runs for {sdir}: nothing started by evident to stop")


@dataclass
class PartStatus:
    name: str
    running: bool  # answering (OpenSearch, Redis, API) or alive (worker)
    url: str = ""
    program: dict | None = None  # supervisord's process info, when it has this part
    facts: dict | None = None  # version, health
    detail: str = ""

    def __str__(self) -> str:
        parts = [f"{self.name}: {'running' if self.running else 'stopped'}" + (f" on {self.url}" if self.url else "")]
        parts += [f"{key} {value}" for key, value in (self.facts or {}).items() if value]
        program = self.program
        if program and program["statename"] not in ("STOPPED", "EXITED"):
            uptime = timedelta(seconds=max(0, program["now"] - program["start"]))
            pid = f" pid {program['pid']}, up {uptime}" if program["pid"] else ""
            parts.append(f"supervisord: {program['statename']}{pid}")
        elif self.running:
            parts.append("not started by evident")
        return ", ".join(parts + ([self.detail] if self.detail else []))


def part_status(settings: Settings, name: str, program: dict | None = None) -> PartStatus:
    if part_of(name) in ("worker", "beat"):
        alive = bool(program) and program["statename"] in ("RUNNING", "STARTING")
        return PartStatus(name, alive, program=program)
    kind, facts = _probe(settings, name)
    detail = f"port {_port(settings, name)} is used by something that is not {label(name)}" \
        if kind in ("other", "auth") else ""
    return PartStatus(name, kind == name, _url(settings, name), program, facts, detail)


def status(settings: Settings) -> dict[str, tuple[bool, str]]:
    """Each part: whether it runs, and a line that says where and how."""
    programs = Supervisor(state_dir(settings)).all_info()
    names = _in_order(set(program_names(settings, PARTS)) | {name for name in programs if part_of(name) in PARTS})
    report = {name: part_status(settings, name, programs.get(name)) for name in names}
    return {name: (st.running, str(st)) for name, st in report.items()}


def supervisor_line(settings: Settings) -> str:
    sv = Supervisor(state_dir(settings))
    if not sv.running():
        return f"supervisord: not running (state dir {sv.state_dir})"
    return (f"supervisord: running, pid {sv.pid()}; logs in {sv.log_dir}; "
            f"by hand: {Path(sys.executable).parent / 'supervisorctl'} -c {sv.conf} status")


def wait_http(url: str, timeout: float) -> None:
    """Until ``url`` answers with success, or :class:`ServiceError` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT):
                return
        except (urllib.error.URLError, OSError) as exc:  # an HTTP error status too: not ready yet
            last = exc
            time.sleep(POLL_INTERVAL)
    raise ServiceError(f"{url} did not answer within {timeout:.0f}s ({last})")
