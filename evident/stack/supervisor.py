"""supervisord, the kept process supervisor that runs the local stack: its config and its control.

supervisord (the ``supervisor`` package from PyPI) does the process keeping: it starts each program
(OpenSearch as the ``evident`` user), restarts it when it dies unexpectedly, captures and rotates its
output, raises the open-files limit (``minfds``) for its children, and stops them with SIGTERM, then
SIGKILL after ``stopwaitsecs``. Our code only writes its config and talks to it over its XML-RPC
interface on a unix socket in the state dir: no pid files or process scans of our own.

Layout under the state dir: ``supervisord.conf``; ``programs/<name>.conf``, one per program we
started (the main config includes them, so a later ``up`` can add a program to a running
supervisord); ``run/supervisor.sock`` and ``run/supervisord.pid``; ``logs/<name>.log`` and
``logs/supervisord.log``. By hand: ``.venv/bin/supervisorctl -c <state dir>/supervisord.conf status``.
"""
from __future__ import annotations

import os
import resource
import shlex
import subprocess
import sys
import time
import xmlrpc.client
from dataclasses import dataclass, field
from pathlib import Path

from supervisor.xmlrpc import SupervisorTransport

from evident.stack import ServiceError, say, tail

# supervisord writes its socket and answers within a second or two; 30 s allows for a loaded machine.
SUPERVISORD_START_TIMEOUT = 30.0
# After shutdown, supervisord has already stopped every program (each within its stopwaitsecs);
# 30 s is for its own exit.
SUPERVISORD_EXIT_TIMEOUT = 30.0
POLL_INTERVAL = 0.2  # how often we look again while supervisord starts or exits
KILL_WAIT = 10.0  # a SIGKILLed process is gone at once; this only bounds the wait for supervisord to see it
# OpenSearch wants 65535 open files (its bootstrap check); supervisord raises its children's limit
# to this, or to the hard limit when that is lower and we may not raise it.
WANTED_NOFILE = 65535
LOG_MAX_BYTES = "20MB"  # each program's captured output is rotated at this size ...
LOG_BACKUPS = 3  # ... keeping this many old files
TAIL_BYTES = 32768  # how much of a program's log we fetch to show its last lines
SOCKET_PATH_MAX = 107  # AF_UNIX path limit on Linux (108 bytes with the NUL)
# supervisord's states for a program that is not (or no longer) on its way up.
DOWN_STATES = ("STOPPED", "STOPPING", "EXITED", "BACKOFF", "FATAL", "UNKNOWN")


@dataclass
class Program:
    """One process for supervisord to keep."""

    name: str
    command: list[str]
    directory: Path
    environment: dict[str, str] = field(default_factory=dict)
    user: str | None = None  # run as this user (supervisord runs as root then)
    start_secs: int = 1  # up this long counts as started
    stop_wait_secs: int = 10  # SIGTERM, then SIGKILL after this long


def _value(text: str) -> str:
    """A config value: supervisord expands %(name)s in every value, so % is doubled."""
    if "\n" in text:
        raise ServiceError(f"a line break cannot go into supervisord.conf: {text!r}")
    return text.replace("%", "%%")


def _environment(env: dict[str, str]) -> str:
    for key, value in env.items():
        if '"' in value or "'" in value:
            raise ServiceError(f"environment value for {key} holds a quote, which supervisord cannot take")
    return ",".join(f'{key}="{_value(value)}"' for key, value in env.items())


def render_program(program: Program, log_dir: Path) -> str:
    lines = [
        f"; Written by evident.stack.supervisor for `evident services up`.\n[program:{program.name}]",
        f"command={_value(shlex.join(program.command))}",
        f"directory={_value(str(program.directory))}",
        *([f"user={program.user}"] if program.user else []),
        *([f"environment={_environment(program.environment)}"] if program.environment else []),
        "autostart=false",  # started in order by the launcher, each once the one before answers
        "autorestart=true",  # supervisord brings back a program that dies once it is up
        f"startsecs={program.start_secs}",
        "stopsignal=TERM",
        f"stopwaitsecs={program.stop_wait_secs}",
        "stopasgroup=true",
        "killasgroup=true",
        "redirect_stderr=true",
        f"stdout_logfile={_value(str(log_dir / (program.name + '.log')))}",
        f"stdout_logfile_maxbytes={LOG_MAX_BYTES}",
        f"stdout_logfile_backups={LOG_BACKUPS}",
    ]
    return "\n".join(lines) + "\n"


def nofile_limit() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = WANTED_NOFILE if hard == resource.RLIM_INFINITY else min(hard, WANTED_NOFILE)
    return max(wanted, 1024)  # supervisord's own default


class Supervisor:
    """The supervisord of one state dir."""

    def __init__(self, state_dir: Path):
        self.state_dir = state_dir
        self.conf = state_dir / "supervisord.conf"
        self.programs_dir = state_dir / "programs"
        self.log_dir = state_dir / "logs"
        self.socket = state_dir / "run" / "supervisor.sock"
        self.pidfile = state_dir / "run" / "supervisord.pid"
        if len(str(self.socket)) > SOCKET_PATH_MAX:
            raise ServiceError(f"the state dir {state_dir} is too deep for supervisord's socket "
                               f"({self.socket}); choose a shorter EVIDENT_SERVICES_STATE_DIR")

    @property
    def rpc(self):
        transport = SupervisorTransport(None, None, f"unix://{self.socket}")
        return xmlrpc.client.ServerProxy("http://127.0.0.1", transport=transport)

    def running(self) -> bool:
        try:
            return self.rpc.supervisor.getState()["statename"] == "RUNNING"
        except (OSError, xmlrpc.client.Error):
            return False

    def pid(self) -> int | None:
        try:
            return int(self.rpc.supervisor.getPID())
        except (OSError, xmlrpc.client.Error):
            return None

    def _write_main_config(self) -> None:
        root_user = "user=root\n" if os.geteuid() == 0 else ""  # says we stay root (to run OpenSearch as evident)
        self.conf.write_text(
            "; Written by evident.stack.supervisor each time `evident services up` starts supervisord.\n"
            f"[unix_http_server]\nfile={_value(str(self.socket))}\nchmod=0700\n\n"
            f"[supervisord]\nidentifier=evident\n{root_user}"
            f"logfile={_value(str(self.log_dir / 'supervisord.log'))}\n"
            f"logfile_maxbytes={LOG_MAX_BYTES}\nlogfile_backups={LOG_BACKUPS}\n"
            f"pidfile={_value(str(self.pidfile))}\nchildlogdir={_value(str(self.log_dir))}\n"
            f"minfds={nofile_limit()}\n\n"
            "[rpcinterface:supervisor]\n"
            "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface\n\n"
            f"[supervisorctl]\nserverurl=unix://{_value(str(self.socket))}\n\n"
            f"[include]\nfiles = {_value(str(self.programs_dir))}/*.conf\n")

    def start(self, programs: list[Program]) -> None:
        """Start supervisord with exactly ``programs`` configured (none of them started yet)."""
        for directory in (self.programs_dir, self.log_dir, self.socket.parent):
            directory.mkdir(parents=True, exist_ok=True)
        for old in self.programs_dir.glob("*.conf"):
            old.unlink()
        for program in programs:
            self._write_program(program)
        self._write_main_config()
        self.socket.unlink(missing_ok=True)  # not answering (we were asked to start): a stale one
        out = self.log_dir / "supervisord.start.out"
        with out.open("wb") as handle:
            result = subprocess.run([sys.executable, "-m", "supervisor.supervisord", "-c", str(self.conf)],
                                    stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
                                    timeout=SUPERVISORD_START_TIMEOUT)
        deadline = time.monotonic() + SUPERVISORD_START_TIMEOUT
        while not self.running():
            if result.returncode != 0 or time.monotonic() > deadline:
                raise ServiceError(f"supervisord did not start (exit {result.returncode}):\n{tail(out, 20)}\n"
                                   f"{tail(self.log_dir / 'supervisord.log', 20)}")
            time.sleep(POLL_INTERVAL)
        say(f"supervisord is up (pid {self.pid()}, config {self.conf})")

    def _write_program(self, program: Program) -> None:
        (self.programs_dir / f"{program.name}.conf").write_text(render_program(program, self.log_dir))

    def add(self, programs: list[Program]) -> None:
        """Configure ``programs`` in the running supervisord; a running one is left as it runs."""
        for program in programs:
            self._write_program(program)
        added, changed, _removed = self.rpc.supervisor.reloadConfig()[0]
        for name in changed:
            if (self.info(name) or {}).get("statename") in DOWN_STATES:
                self.rpc.supervisor.removeProcessGroup(name)
                added.append(name)
        for name in added:
            self.rpc.supervisor.addProcessGroup(name)

    def info(self, name: str) -> dict | None:
        try:
            return self.rpc.supervisor.getProcessInfo(name)
        except xmlrpc.client.Fault:  # BAD_NAME: not configured
            return None

    def all_info(self) -> dict[str, dict]:
        if not self.running():
            return {}
        return {info["name"]: info for info in self.rpc.supervisor.getAllProcessInfo()}

    def start_program(self, name: str) -> dict:
        """Ask supervisord to start ``name`` without waiting; returns its process info."""
        if (self.info(name) or {}).get("statename") == "BACKOFF":  # between retries: counts as started
            self.kill_program(name)
        self.rpc.supervisor.startProcess(name, False)
        return self.info(name)

    def stop_program(self, name: str) -> None:
        """Stop ``name`` and wait for it (supervisord SIGKILLs it after its stopwaitsecs)."""
        try:
            self.rpc.supervisor.stopProcess(name, True)
        except xmlrpc.client.Fault as fault:
            if "NOT_RUNNING" not in fault.faultString and "BAD_NAME" not in fault.faultString:
                raise ServiceError(f"supervisord could not stop {name}: {fault.faultString}") from fault

    def kill_program(self, name: str) -> None:
        """Stop ``name`` at once (SIGKILL): for a start that failed, with nothing to save. A JVM still
        starting may not act on SIGTERM until its start-up is over."""
        try:
            self.rpc.supervisor.stopProcess(name, False)
            self.rpc.supervisor.signalProcess(name, "KILL")
        except xmlrpc.client.Fault:  # already down (FATAL, EXITED), or it went down meanwhile
            pass
        deadline = time.monotonic() + KILL_WAIT
        while (self.info(name) or {}).get("statename") == "STOPPING" and time.monotonic() < deadline:
            time.sleep(POLL_INTERVAL)

    def log_tail(self, name: str, lines: int) -> str:
        try:
            text = self.rpc.supervisor.tailProcessStdoutLog(name, 0, TAIL_BYTES)[0]
        except (OSError, xmlrpc.client.Error):
            text = tail(self.log_dir / f"{name}.log", lines)
        return "\n".join(text.splitlines()[-lines:])

    def shutdown(self) -> None:
        """Stop every program, then supervisord itself, and wait until it is gone."""
        if not self.running():
            return
        say(f"stopping supervisord (pid {self.pid()}) and whatever it still runs")
        self.rpc.supervisor.stopAllProcesses(True)
        self.rpc.supervisor.shutdown()
        deadline = time.monotonic() + SUPERVISORD_EXIT_TIMEOUT
        while self.pidfile.exists() or self.running():  # it removes its pid file as it exits
            if time.monotonic() > deadline:
                raise ServiceError(f"supervisord did not exit; see {self.log_dir / 'supervisord.log'}")
            time.sleep(POLL_INTERVAL)
        for old in self.programs_dir.glob("*.conf"):
            old.unlink()
