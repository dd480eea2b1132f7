"""``evident worker`` as a process of its own, for the tests that need one a test can SIGKILL or measure: the
sync tests, the lost-task tests and the hostile corpus.

The harness samples the worker's memory itself (``/proc/<pid>/status`` VmRSS of every process in the worker's
process group, summed) from a thread, because Celery reports no peak of its pool children and a test asserting
a memory bound needs the whole group's, the pool children included.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

WORKER_READY = 180  # seconds a new worker process may take to answer a ping: it loads the models first
STOP_WAIT = 60  # seconds a terminated worker may take to finish its task and exit before it is killed
RSS_SAMPLE_SECONDS = 0.2  # often enough to see a parse's peak (they last seconds), cheap on a 2-core machine
PROC = Path("/proc")


def group_rss_bytes(group: int) -> int:
    """The resident memory of every process in process group ``group``, summed (0 when none is left).

    A process that exits between the listing and the read is passed over: the group changes as pool
    children come and go.
    """
    total = 0
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # Fields after the command (which may hold spaces) in parentheses: state, ppid, pgrp, ...
            if int(stat[stat.rindex(")") + 2:].split()[2]) != group:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return total


class RssSampler:
    """The peak of ``group_rss_bytes`` while it runs, read by a thread every ``RSS_SAMPLE_SECONDS``."""

    def __init__(self, group: int):
        self.group = group
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(RSS_SAMPLE_SECONDS):
            self.peak = max(self.peak, group_rss_bytes(self.group))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class WorkerProcess:
    """``evident worker`` as its own process, started, killed with SIGKILL and started again by a test.

    ``env`` is added to the worker's environment (limits, a short visibility timeout, connector tokens); the
    index alias and Redis database are those of ``settings``. ``peak_rss_bytes`` is the highest memory the
    worker's process group held since ``start`` (over restarts too), ``idle_rss_bytes`` what it held once
    ready, before any task.
    """

    def __init__(self, settings, env: dict[str, str] | None = None):
        from workers.app import create_app

        self.settings = settings
        self.env = dict(env or {})
        self.process: subprocess.Popen | None = None
        self.app = create_app(settings)
        self._samplers: list[RssSampler] = []
        self.idle_rss_bytes = 0

    def start(self) -> None:
        env = {**os.environ, **self.env, "EVIDENT_OPENSEARCH_INDEX_ALIAS": self.settings.opensearch.index_alias,
               "EVIDENT_REDIS_URL": self.settings.redis.url}
        self.process = subprocess.Popen([sys.executable, "-m", "evident.cli", "worker", "--loglevel", "WARNING"],
                                        env=env, start_new_session=True)
        self._samplers.append(RssSampler(self.process.pid))  # start_new_session: its group id is its pid
        deadline = time.monotonic() + WORKER_READY
        # limit=1: the answer of the one worker on this broker ends the wait (without it, every ping waits its
        # whole timeout for others)
        while not self.app.control.ping(timeout=1, limit=1):
            assert self.process.poll() is None, "the worker process exited"
            assert time.monotonic() < deadline, "the worker did not answer in time"
        self.idle_rss_bytes = group_rss_bytes(self.process.pid)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def peak_rss_bytes(self) -> int:
        return max((sampler.peak for sampler in self._samplers), default=0)

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self._close_samplers()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_WAIT)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_samplers()

    def _close_samplers(self) -> None:
        for sampler in self._samplers:
            sampler.close()


class SharedWorkers:
    """The session's worker processes, one per broker (a Redis database), handed to every test that asks for
    the same settings and environment: a start loads the models in each pool process, which costs more than
    most tests that need a worker. A test may kill or stop the one it gets; the next that asks gets it started
    again. Asked for other settings or another environment on the same broker, the running one is stopped
    first: two workers on one broker would take each other's tasks."""

    def __init__(self):
        self._by_broker: dict[str, tuple[tuple, WorkerProcess]] = {}

    def get(self, settings, env: dict[str, str] | None = None) -> WorkerProcess:
        broker = settings.redis.url
        wanted = (settings.opensearch.index_alias, tuple(sorted((env or {}).items())))
        held, worker = self._by_broker.get(broker, (None, None))
        if held != wanted:
            if worker is not None:
                worker.stop()
            worker = WorkerProcess(settings, env)
            self._by_broker[broker] = (wanted, worker)
        if not worker.running:
            worker.start()
        return worker

    def stop(self) -> None:
        for _held, worker in self._by_broker.values():
            worker.stop()


def isolated_settings(settings, client, alias: str, redis_db: int | None):
    """``settings`` with an index alias and a Redis database of their own, both emptied and the index set up: a
    worker process on them can be killed without touching the session's worker, jobs or evidence. With
    ``redis_db`` None the alias alone is their own: the Redis database is that of ``settings``, left as it is."""
    import dataclasses

    from core.index import init_index
    from core.jobs import JobStore

    redis_url = settings.redis.url if redis_db is None else settings.redis.url.rsplit("/", 1)[0] + f"/{redis_db}"
    isolated = dataclasses.replace(
        settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias),
        redis=dataclasses.replace(settings.redis, url=redis_url))
    for index in client.indices.get(index=f"{alias}-*", ignore_unavailable=True) or {}:
        client.indices.delete(index=index)
    init_index(client, isolated)
    if redis_db is not None:
        JobStore.from_url(isolated.redis.url).clear_database()
    return isolated
