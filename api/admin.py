"""Admin endpoints: ingest jobs (and their cancelling), recorded errors (and their retry), queue length and task metrics, and the
console's summary (index, queue, jobs, errors, search analytics); the console page itself at ``/admin``.

The endpoints are only for admins (``api.identity``: a member of ``[auth] admin_group`` or the bearer of the admin
token): an anonymous or unverified caller gets 401, any other caller 403. Nothing here returns a
secret or a token.
"""
from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request
from spectree import Response

from api.admin_schema import Job, Jobs, Queue, RecordedErrors, Retried, Summary
from api.errors import refusal_answer
from api.schema import ADMINS, ANYONE, Error, Retry, SummaryParams, spec
from api.search import current_caller
from core.index import evidence_stats
from core.jobs import INGEST_QUEUE
from workers.folder import CorpusFile
from workers.submit import queue_again

admin = Blueprint("admin", __name__)
REFUSED = {"HTTP_401": Error, "HTTP_403": Error}


@admin.before_request
def admins_only():
    if request.endpoint == "admin.console":
        return None  # the page is static; every figure on it comes from the endpoints below
    caller = current_caller()
    if current_app.extensions["evident"]["auth"].is_admin(caller):
        return None
    if caller.anonymous:
        reason = f"identity not accepted: {caller.refused}" if caller.refused else "sign in as an admin"
        return refusal_answer(401, f"admin endpoints need an admin identity ({reason})")
    return refusal_answer(403, "admin endpoints need the admin role")


def _jobs():
    return current_app.extensions["evident"]["jobs"]


def _job_record(status) -> dict:
    return asdict(status) | {"finished": status.finished, "state": status.state}


def _no_job(job_id: str):
    return refusal_answer(404, f"no ingest job {job_id!r}")


@admin.get("/api/ingest/jobs")
@spec.validate(resp=Response(HTTP_200=Jobs, **REFUSED), tags=["admin"],
               operation_id="listJobs", security=ADMINS)
def jobs():
    """Recent ingest jobs with their counts."""
    return jsonify([_job_record(j) for j in _jobs().recent_jobs()])


@admin.get("/api/ingest/jobs/<job_id>")
@spec.validate(resp=Response(HTTP_200=Job, HTTP_404=Error, **REFUSED), tags=["admin"],
               operation_id="getJob", security=ADMINS)
def job(job_id: str):
    """One ingest job, with its recorded errors (file and reason)."""
    status = _jobs().status(job_id)
    return _no_job(job_id) if status is None else jsonify(_job_record(status))


@admin.post("/api/admin/jobs/<job_id>/cancel")
@spec.validate(resp=Response(HTTP_200=Job, HTTP_404=Error, **REFUSED), tags=["admin"],
               operation_id="cancelJob", security=ADMINS)
def cancel_job(job_id: str):
    """Cancel an ingest job: its files no worker has taken yet are skipped and counted as cancelled; the ones in
    hand finish. Answers the job (``state`` cancelling, then cancelled); cancelling again changes nothing."""
    status = _jobs().cancel(job_id)
    return _no_job(job_id) if status is None else jsonify(_job_record(status))


@admin.get("/api/ingest/errors")
@spec.validate(resp=Response(HTTP_200=RecordedErrors, **REFUSED), tags=["admin"],
               operation_id="listErrors", security=ADMINS)
def errors():
    """The last recorded ingest errors of any job."""
    return jsonify(_jobs().recent_errors())


@admin.get("/api/ingest/queue")
@spec.validate(resp=Response(HTTP_200=Queue, **REFUSED), tags=["admin"],
               operation_id="getQueue", security=ADMINS)
def queue():
    """Files waiting in the ingest queue and per-task metrics."""
    store = _jobs()
    return jsonify({"queue": INGEST_QUEUE, "waiting": store.queue_length(), "metrics": store.metrics()})


@admin.post("/api/ingest/retry")
@spec.validate(json=Retry, resp=Response(HTTP_200=Retried, HTTP_404=Error, HTTP_410=Error, HTTP_422=Error, **REFUSED),
               tags=["admin"],
               operation_id="retryFile", security=ADMINS)
def retry():
    """Queue a file again that a job recorded an error for: read here, on the API's machine, from the path it
    was submitted from, through the same checks as its first ingest (a regular file inside its folder, not
    reached through a symlink out of it), and sent with its bytes. 404: no such error recorded; 410: the file is
    no longer there; 422: it is refused, cannot be read or cannot be sent (over the size limit), recorded as an
    error of the job naming the file and the reason."""
    body: Retry = request.context.json
    store = _jobs()
    failed = next((e for e in store.recent_errors() if e.get("job") == body.job and e.get("file") == body.file), None)
    if failed is None:
        return refusal_answer(404, f"no recorded error of {body.file!r} in job {body.job!r} to retry")
    origin = failed.get("path") or store.origin(body.job, body.file)
    if not origin or not os.path.lexists(origin):  # a symlink there now is the gate's to judge, below
        where = f"at {origin}" if origin else "where it was submitted from (no longer recorded)"
        return refusal_answer(410, f"cannot retry {body.file!r}: the file is no longer {where} on the API's machine; "
                                   "ingest its folder again from where it is now")
    try:
        job_id = queue_again(current_app.extensions["evident"]["celery"], store, CorpusFile(Path(origin), body.file))
    except (OSError, ValueError) as exc:  # each names the file and the reason
        store.record_error(body.job, body.file, f"retry refused: {exc}", origin)
        return refusal_answer(422, f"cannot retry {body.file!r}: {exc}")
    return jsonify({"job_id": job_id, "file": body.file})


@admin.get("/api/admin/summary")
@spec.validate(query=SummaryParams, resp=Response(HTTP_200=Summary, **REFUSED), tags=["admin"],
               operation_id="getSummary", security=ADMINS)
def summary():
    """Everything the console shows: the index, the queue (now, and per minute over the last hours), recent jobs
    and errors, search analytics."""
    ev, store = current_app.extensions["evident"], _jobs()
    store.record_activity()  # the queue is sampled when an admin looks, not only when a task ends
    return jsonify({"index": evidence_stats(ev["opensearch"], ev["settings"]),
                    "alias": ev["settings"].opensearch.index_alias,  # which index this console serves
                    "queue": {"queue": INGEST_QUEUE, "waiting": store.queue_length(), "minutes": store.activity()},
                    "jobs": [_job_record(j) for j in store.recent_jobs()],
                    "errors": store.recent_errors(),
                    "searches": ev["searchlog"].summary(request.context.query.days),
                    # Celery's own monitor, run beside the API by `evident services up` (on that host's loopback)
                    "flower": f"http://127.0.0.1:{ev['settings'].services.flower_port}/"})


@admin.get("/admin")
@spec.validate(resp=Response("HTTP_200"), tags=["admin"],
               operation_id="adminConsole", security=ANYONE)
def console():
    """The admin console (HTML); it asks the endpoints above for its figures."""
    with open(f"{current_app.static_folder}/admin.html", "rb") as page_file:
        return current_app.response_class(page_file.read(), mimetype="text/html")
