"""Admin endpoints: ingest jobs, recorded errors, queue length and task metrics.

Only for admins (``api.identity``: a member of ``[auth] admin_group`` or the bearer of the admin
token): an anonymous or unverified caller gets 401, any other caller 403. Nothing here returns a
secret or a token.
"""
from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, current_app, jsonify
from spectree import Response

from api.schema import Error, Listing, Record, spec
from api.search import current_caller
from core.jobs import INGEST_QUEUE

admin = Blueprint("admin", __name__, url_prefix="/api/ingest")
REFUSED = {"HTTP_401": Error, "HTTP_403": Error}


@admin.before_request
def admins_only():
    caller = current_caller()
    if current_app.extensions["evident"]["auth"].is_admin(caller):
        return None
    if caller.anonymous:
        reason = f"identity not accepted: {caller.refused}" if caller.refused else "sign in as an admin"
        return jsonify({"error": f"admin endpoints need an admin identity ({reason})", "errors": []}), 401
    return jsonify({"error": "admin endpoints need the admin role", "errors": []}), 403


def _jobs():
    return current_app.extensions["evident"]["jobs"]


@admin.get("/jobs")
@spec.validate(resp=Response(HTTP_200=Listing, **REFUSED), tags=["admin"])
def jobs():
    """Recent ingest jobs with their counts."""
    return jsonify([asdict(j) | {"finished": j.finished} for j in _jobs().recent_jobs()])


@admin.get("/jobs/<job_id>")
@spec.validate(resp=Response(HTTP_200=Record, HTTP_404=Error, **REFUSED), tags=["admin"])
def job(job_id: str):
    """One ingest job, with its recorded errors (file and reason)."""
    status = _jobs().status(job_id)
    if status is None:
        return jsonify({"error": f"no ingest job {job_id!r}", "errors": []}), 404
    return jsonify(asdict(status) | {"finished": status.finished})


@admin.get("/errors")
@spec.validate(resp=Response(HTTP_200=Listing, **REFUSED), tags=["admin"])
def errors():
    """The last recorded ingest errors of any job."""
    return jsonify(_jobs().recent_errors())


@admin.get("/queue")
@spec.validate(resp=Response(HTTP_200=Record, **REFUSED), tags=["admin"])
def queue():
    """Files waiting in the ingest queue and per-task metrics."""
    store = _jobs()
    return jsonify({"queue": INGEST_QUEUE, "waiting": store.queue_length(), "metrics": store.metrics()})
