"""``evident serve``: the API under gunicorn, the kept production WSGI server.

gunicorn's master binds the port and keeps ``workers`` processes (one per two cores by default), each with
``threads`` threads (the gthread worker): a search spends most of its time waiting on OpenSearch, so a few
threads per process keep the cores busy. Each worker builds the app and warms the searcher up after the
fork: the embedding model, the lemmatizer and the word list are loaded once per worker process, never per
request, and never in the master (torch's thread pools do not survive a fork). What the warm-up loaded is then
frozen out of the garbage collector (``gc.freeze``): it lives as long as the worker, and a full collection that
walked its hundreds of thousands of objects would hold every thread of the worker meanwhile, a stall that
lands on whichever searches are running then. A request gunicorn itself cannot read (a request line or a
header over the limits below, malformed HTTP) is answered with JSON like every other error of the API
(``JsonErrorWorker``).
"""
from __future__ import annotations

import gc
import json
import os

from gunicorn import util
from gunicorn.app.base import BaseApplication
from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import ThreadWorker

from api.errors import REASON_CHARS
from core.settings import Settings

# gunicorn restarts a worker silent this long; a worker is silent while it loads the models after the fork,
# which takes up to a minute or two on 2 busy cores.
WORKER_TIMEOUT = 300
# One API process per two cores: a search spends about a third of its CPU in the API and the rest in OpenSearch
# beside it, and one process's caches (question vectors, word look-ups) serve all its threads, where each process
# of several fills its own (2 cores, 50k evidence, 4 clients: the API's CPU 5.3-6.7 ms a search with one process,
# 5.9-9.0 with two; hybrid p95 69-79 ms against 68-87).
CORES_PER_WORKER = 2
GRACEFUL_TIMEOUT = 10  # seconds a stopping worker gets to finish the searches in hand: they take milliseconds
REQUEST_LINE_BYTES = 8190  # gunicorn's most: a GET question of a few thousand characters fits; longer ones go by POST
# a bearer token or a signed groups header of a user in a few hundred groups fits with room to spare
HEADER_FIELD_BYTES = 16384
HEADER_FIELDS = 100  # gunicorn's default: a browser behind a proxy sends a few dozen
# requests gunicorn cannot read that are the caller's doing, with the status they get; an invalid *response*
# header (a subclass of InvalidHeader) is the application's fault and keeps gunicorn's own 500
MALFORMED_REQUESTS = (http_errors.InvalidRequestLine, http_errors.InvalidRequestMethod, http_errors.InvalidHTTPVersion,
                      http_errors.InvalidHeader, http_errors.InvalidHeaderName, http_errors.ObsoleteFolding,
                      http_errors.InvalidChunkSize, http_errors.ChunkMissingTerminator,
                      http_errors.InvalidChunkExtension)
APPLICATION_FAULTS = (http_errors.InvalidResponseHeader, http_errors.InvalidResponseHeaderName)


def cores() -> int:
    """The processors this process may run on (what a container or `taskset` allows, not the machine's)."""
    return len(os.sched_getaffinity(0))


def default_workers() -> int:
    """gunicorn worker processes when ``[services] api_workers`` is 0: one per ``CORES_PER_WORKER`` cores."""
    return max(1, cores() // CORES_PER_WORKER)


def refusal(exc: Exception) -> tuple[int, str, str] | None:
    """gunicorn's error for a request it could not read as (status, reason phrase, what the caller is told), or
    None for an error that is not the caller's."""
    if isinstance(exc, http_errors.LimitRequestLine):
        return 414, "URI Too Long", (f"request line: over {REQUEST_LINE_BYTES} bytes; send a long question as JSON "
                                     "with POST /api/search")
    if isinstance(exc, http_errors.LimitRequestHeaders):
        return 431, "Request Header Fields Too Large", (f"headers: over the limits ({exc}): at most {HEADER_FIELDS} "
                                                        f"header fields of {HEADER_FIELD_BYTES} bytes each")
    if isinstance(exc, MALFORMED_REQUESTS) and not isinstance(exc, APPLICATION_FAULTS):
        return 400, "Bad Request", f"request: not valid HTTP/1.1 ({str(exc)[:REASON_CHARS]})"
    return None


class JsonErrorWorker(ThreadWorker):
    """gunicorn's threaded worker, answering a request it cannot read (a request line or a header over the
    limits, malformed HTTP) with JSON like every other error of the API, instead of gunicorn's HTML page;
    the refusal is logged as one warning line without a traceback, as gunicorn logs it."""

    def handle_error(self, req, client, addr, exc):
        refused = refusal(exc)
        if refused is None:
            return super().handle_error(req, client, addr, exc)
        status, phrase, message = refused
        # what was wrong, never what was sent: a header line can carry a token
        self.log.warning("Invalid request from ip=%s refused with %d: %s", (addr or ("",))[0], status,
                         type(exc).__name__)
        body = json.dumps({"error": message, "errors": []}).encode()
        head = (f"HTTP/1.1 {status} {phrase}\r\nConnection: close\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        try:
            util.write_nonblock(client, head + body)
        except OSError:
            self.log.debug("the refusal could not be sent: the caller has gone")
        return None


class EvidentServer(BaseApplication):
    """gunicorn configured from the settings instead of its command line."""

    def __init__(self, settings: Settings, host: str, port: int):
        workers = settings.services.api_workers or default_workers()
        self.settings = settings
        self.options = {"bind": f"{host}:{port}", "workers": workers, "threads": settings.services.api_threads,
                        "worker_class": JsonErrorWorker, "timeout": WORKER_TIMEOUT,
                        "graceful_timeout": GRACEFUL_TIMEOUT, "preload_app": False, "proc_name": "evident-api",
                        "limit_request_line": REQUEST_LINE_BYTES, "limit_request_field_size": HEADER_FIELD_BYTES,
                        "limit_request_fields": HEADER_FIELDS}
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        """In each worker, after the fork: the app with its searcher, the models loaded now."""
        from api.app import create_app

        app = create_app(self.settings)
        app.extensions["evident"]["searcher"].warm_up()
        gc.freeze()  # the models and word lists just loaded stay for the worker's life: no collection walks them
        return app
