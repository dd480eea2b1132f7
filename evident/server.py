"""``evident serve``: the API under gunicorn, the kept production WSGI server.

gunicorn's master binds the port and keeps ``workers`` processes (one per core by default), each with
``threads`` threads (the gthread worker): a search spends most of its time waiting on OpenSearch, so a few
threads per process keep the cores busy. Each worker builds the app and warms the searcher up after the
fork: the embedding model, the lemmatizer and the word list are loaded once per worker process, never per
request, and never in the master (torch's thread pools do not survive a fork).
"""
from __future__ import annotations

import os

from gunicorn.app.base import BaseApplication

from core.settings import Settings

# gunicorn restarts a worker silent this long; a worker is silent while it loads the models after the fork,
# which takes up to a minute or two on 2 busy cores.
WORKER_TIMEOUT = 300
GRACEFUL_TIMEOUT = 10  # seconds a stopping worker gets to finish the searches in hand: they take milliseconds


def cores() -> int:
    """The processors this process may run on (what a container or `taskset` allows, not the machine's)."""
    return len(os.sched_getaffinity(0))


class EvidentServer(BaseApplication):
    """gunicorn configured from the settings instead of its command line."""

    def __init__(self, settings: Settings, host: str, port: int):
        workers = settings.services.api_workers or cores()
        self.settings = settings
        self.options = {"bind": f"{host}:{port}", "workers": workers, "threads": settings.services.api_threads,
                        "worker_class": "gthread", "timeout": WORKER_TIMEOUT, "graceful_timeout": GRACEFUL_TIMEOUT,
                        "preload_app": False, "proc_name": "evident-api"}
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        """In each worker, after the fork: the app with its searcher, the models loaded now."""
        from api.app import create_app

        app = create_app(self.settings)
        app.extensions["evident"]["searcher"].warm_up()
        return app
