"""Admin endpoints: ingest jobs, recorded errors, queue length and task metrics."""
from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, current_app, jsonify

from workers.app import INGEST_QUEUE

admin = Blueprint("admin", __name__, url_prefix="/api/ingest")


def _jobs():
    return current_app.extensions["evident"]["jobs"]


@admin.route("/jobs")
def jobs():
    return jsonify([asdict(j) | {"finished": j.finished} for j in _jobs().recent_jobs()])


@admin.route("/jobs/<job_id>")
def job(job_id: str):
    status = _jobs().status(job_id)
    if status is None:
        return jsonify({"error": f"no ingest job {job_id!r}"}), 404
    return jsonify(asdict(status) | {"finished": status.finished})


@admin.route("/errors")
def errors():
    return jsonify(_jobs().recent_errors())


@admin.route("/queue")
def queue():
    store = _jobs()
    return jsonify({"queue": INGEST_QUEUE, "waiting": store.redis.llen(INGEST_QUEUE), "metrics": store.metrics()})
