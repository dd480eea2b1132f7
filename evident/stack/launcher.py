"""``evident services up|down|status``: OpenSearch and Redis (evident.stack.opensearch), plus the worker and the API.

The worker and the API run as background processes of this checkout's Python,
with pid files and logs under the state dir, so ``down`` stops exactly them.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from evident.stack import opensearch as services
from core.settings import Settings

PROCESSES = {
    "worker": ["worker"],
    "api": ["serve"],
}


def state_dir(settings: Settings) -> Path:
    return Path(settings.services.state_dir or services.default_state_dir())


def _run_dir(settings: Settings) -> Path:
    path = state_dir(settings) / "run"
    path.mkdir(parents=True, exist_ok=True)
    return path


def log_dir(settings: Settings) -> Path:
    path = state_dir(settings) / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pid(settings: Settings, name: str) -> int | None:
    pid_file = _run_dir(settings) / f"{name}.pid"
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def start_process(settings: Settings, name: str) -> int:
    """Start ``evident <command>`` in the background unless it already runs; returns its pid."""
    pid = _pid(settings, name)
    if pid:
        return pid
    log = (log_dir(settings) / f"{name}.log").open("ab")
    argv = [sys.executable, "-m", "evident.cli", *PROCESSES[name]]
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    (_run_dir(settings) / f"{name}.pid").write_text(str(proc.pid))
    return proc.pid


def stop_process(settings: Settings, name: str, timeout: float = 30.0) -> None:
    pid = _pid(settings, name)
    if not pid:
        return
    os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _pid(settings, name):
        time.sleep(0.3)
    if _pid(settings, name):
        os.killpg(pid, signal.SIGKILL)
    (_run_dir(settings) / f"{name}.pid").unlink(missing_ok=True)


def wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except Exception as exc:  # noqa: BLE001 - any failure means: not up yet
            last = exc
            time.sleep(1)
    raise services.ServiceError(f"{url} did not answer within {timeout:.0f}s ({last})")


def up_stores(settings: Settings) -> None:
    """OpenSearch and Redis only: what the tests and ``evident init`` need."""
    s = settings.services
    services.start_redis(s.state_dir or None, port=s.redis_port)
    services.start_opensearch(cache_dir=s.cache_dir or None, state_dir=s.state_dir or None,
                              port=s.opensearch_port, heap=s.opensearch_heap)


def up(settings: Settings, processes: tuple[str, ...] = ("worker", "api")) -> None:
    up_stores(settings)
    for name in processes:
        start_process(settings, name)


def down(settings: Settings) -> None:
    s = settings.services
    for name in PROCESSES:
        stop_process(settings, name)
    services.stop_opensearch(s.state_dir or None, port=s.opensearch_port)
    services.stop_redis(s.state_dir or None, port=s.redis_port)


def status(settings: Settings) -> dict[str, tuple[bool, str]]:
    """Each service: whether it runs, and a line that says where and how."""
    s = settings.services
    stores = [services.opensearch_status(s.state_dir or None, port=s.opensearch_port),
              services.redis_status(s.state_dir or None, port=s.redis_port)]
    report = {st.service: (st.running, str(st)) for st in stores}
    for name in PROCESSES:
        pid = _pid(settings, name)
        report[name] = (bool(pid), f"{name}: running, pid {pid}" if pid else f"{name}: stopped")
    return report
