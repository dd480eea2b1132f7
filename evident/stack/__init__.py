"""The local stack behind ``evident services``: OpenSearch, Redis, the worker and the API on one machine.

Who does what:

* supervisord (the ``supervisor`` package from PyPI) keeps the processes: it starts them, runs
  OpenSearch as the ``evident`` user, restarts a process that dies, rotates its output into
  ``<state dir>/logs/`` and stops it again (``supervisor.py`` writes its config and talks to it).
* Our own code does only what no process keeper does for us: fetch OpenSearch and its plugins
  from Maven Central and verify them (``maven.py``, ``opensearch.py``), find a JDK, configure the
  node and Redis, create the service user, and decide what to start: an OpenSearch or Redis that
  already answers on its port is reused, not started again (``launcher.py``).

This module holds the few pieces every part shares. May import: ``core`` (settings);
the package is called only by the CLI and the tests' session fixture.
"""
from __future__ import annotations

import contextlib
import fcntl
import socket
import sys
from pathlib import Path

HOST = "127.0.0.1"  # every part listens on loopback only
# How long a TCP connect may take on loopback before we call the port closed: 1 s is ample locally.
CONNECT_TIMEOUT = 1.0


class ServiceError(RuntimeError):
    """A part of the stack could not be fetched, started or stopped; the message says why."""


def say(message: str) -> None:
    """Progress for the person at the terminal (stderr, so ``status`` output stays clean)."""
    print(f"evident: {message}", file=sys.stderr, flush=True)


def port_open(port: int, host: str = HOST) -> bool:
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def locked(lock_path: Path):
    """An exclusive lock file: one installer per cache dir, one ``up``/``down`` per state dir."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def tail(path: Path, lines: int) -> str:
    """The last ``lines`` lines of a text file ('' when it is missing)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
