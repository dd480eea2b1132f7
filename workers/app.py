"""The Celery app, configured from the one settings object."""
from __future__ import annotations

from celery import Celery

from core.jobs import INGEST_QUEUE
from core.settings import Settings, load_settings

# Longer than the slowest file takes (a large scanned PDF through OCR), so Redis does not hand a task that
# is still running to a second worker.
VISIBILITY_TIMEOUT = 6 * 3600
RESULT_EXPIRES = 24 * 3600  # task results are only looked at while a job is followed; a day is plenty


def create_app(settings: Settings | None = None) -> Celery:
    settings = settings or load_settings()
    app = Celery("evident", broker=settings.redis.url, backend=settings.redis.url,
                 include=["workers.tasks", "workers.sync.tasks"])
    app.conf.update(
        task_default_queue=INGEST_QUEUE,
        # Long tasks: acknowledge after the work, fetch one at a time, and keep Redis from
        # re-delivering a task that is still running.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        broker_connection_retry_on_startup=True,
        task_track_started=True,
        result_expires=RESULT_EXPIRES,
        worker_hijack_root_logger=False,
        worker_send_task_events=True,
        task_send_sent_event=True,
        # Beat only looks for due sources; each source's own interval is in its registration (core.sources).
        beat_schedule={"evident-schedule-sources": {"task": "evident.schedule_sources",
                                                    "schedule": settings.sources.schedule_seconds}},
    )
    app.evident_settings = settings
    return app
