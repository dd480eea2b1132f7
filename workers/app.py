"""The Celery app, configured from the one settings object."""
from __future__ import annotations

from celery import Celery

from core.jobs import INGEST_QUEUE
from core.settings import Settings, WorkerConfig, load_settings

# Redis hands an unacknowledged task to another worker this long after the hard time limit: by then the task
# was killed (and recorded) if its worker lived, so only a task of a dead worker comes back.
VISIBILITY_MARGIN = 60
# Seconds between a worker's looks for tasks whose visibility timeout passed (one cheap Redis range query; kombu's
# default is 100 s, longer than a short test timeout and than a user waits for a lost file to come back).
RESTORE_SWEEP_SECONDS = 5
RESULT_EXPIRES = 24 * 3600  # task results are only looked at while a job is followed; a day is plenty
# Seconds a new pool process may take to load its models (``tasks.load_models``) before Celery kills it as hung.
# Celery's 4 s killed every process that replaced one that died (a hard time limit, the kernel's OOM killer): it
# loads the embedder, the lemmatizer and the language detector, 10 s here, more on busy cores or while the first
# ONNX export runs, and its replacement was killed in turn, so the pool ran one process short from then on.
PROCESS_START_SECONDS = 300


def visibility_timeout(worker: WorkerConfig) -> int:
    """Seconds before Redis hands a taken, unacknowledged task to another worker.

    Raises ValueError naming the settings when the limits are out of order: a hard limit at or under the soft
    one never lets the task record its stop, a visibility timeout at or under the hard limit delivers a task
    that still runs to a second worker.
    """
    if worker.time_limit <= worker.soft_time_limit:
        raise ValueError(f"[worker] time_limit ({worker.time_limit} s) must be longer than soft_time_limit "
                         f"({worker.soft_time_limit} s): the task needs the time between to record its stop")
    if worker.visibility_timeout and worker.visibility_timeout <= worker.time_limit:
        raise ValueError(f"[worker] visibility_timeout ({worker.visibility_timeout} s) must be longer than "
                         f"time_limit ({worker.time_limit} s), or a task still running is delivered twice")
    return worker.visibility_timeout or worker.time_limit + VISIBILITY_MARGIN


def create_app(settings: Settings | None = None) -> Celery:
    settings = settings or load_settings()
    visibility = visibility_timeout(settings.worker)
    app = Celery("evident", broker=settings.redis.url, backend=settings.redis.url,
                 include=["workers.tasks", "workers.sync.tasks", "workers.maintenance", "workers.keywords"])
    app.conf.update(
        task_default_queue=INGEST_QUEUE,
        # Long tasks: acknowledge after the work (a task of a killed worker comes back, and one whose worker
        # process died is queued again at once), fetch one at a time, stop a task past its time limits.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_proc_alive_timeout=PROCESS_START_SECONDS,
        task_soft_time_limit=settings.worker.soft_time_limit,
        task_time_limit=settings.worker.time_limit,
        broker_transport_options={"visibility_timeout": visibility,
                                  "unacked_restore_interval": RESTORE_SWEEP_SECONDS,
                                  "unacked_restore_throttle": 1},
        broker_connection_retry_on_startup=True,
        task_track_started=True,
        result_expires=RESULT_EXPIRES,
        worker_hijack_root_logger=False,
        worker_send_task_events=True,
        task_send_sent_event=True,
        # Beat looks for due sources (each source's own interval is in its registration: core.sources) and has
        # OpenSearch drop deleted evidence from BM25's statistics (``workers.maintenance``).
        beat_schedule={"evident-schedule-sources": {"task": "evident.schedule_sources",
                                                    "schedule": settings.sources.schedule_seconds},
                       "evident-expunge-deleted": {"task": "evident.expunge_deleted",
                                                   "schedule": settings.worker.expunge_seconds}},
    )
    app.evident_settings = settings
    return app
