"""``evident jobs …``: the ingest jobs (list, show one with its errors, cancel one), and what ``evident ingest``
prints when it stops following a job it leaves running (Ctrl-C)."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from core.settings import Settings


def _jobs(settings: Settings):
    from core.jobs import JobStore

    return JobStore.from_settings(settings)


def job_url(settings: Settings, job_id: str) -> str:
    """The admin API's address of a job, on the API ``evident services up`` runs."""
    return f"http://{settings.services.api_host}:{settings.services.api_port}/api/ingest/jobs/{job_id}"


def left_running(settings: Settings, job_id: str) -> str:
    """What to tell a user who stopped following a job: it goes on, and how to follow or cancel it."""
    return (f"job {job_id} goes on in the background: follow it with `evident jobs show {job_id}` "
            f"(or GET {job_url(settings, job_id)} as an admin), cancel it with `evident jobs cancel {job_id}`")


def line(status) -> str:
    counts = (f"{status.done + status.skipped + status.failed + status.cancelled}/{status.total} files: "
              f"{status.done} indexed, {status.skipped} unchanged, {status.failed} failed, "
              f"{status.cancelled} cancelled")
    return f"{status.job_id}  {status.state:<10}  {counts}"


def cmd_jobs(args, settings: Settings) -> int:
    jobs = _jobs(settings)
    if args.action == "list":
        listed = jobs.recent_jobs()
        if args.json:
            print(json.dumps([asdict(s) | {"state": s.state} for s in listed], indent=2))
        for status in [] if args.json else listed:
            print(line(status))
        return 0
    status = jobs.cancel(args.job_id) if args.action == "cancel" else jobs.status(args.job_id)
    if status is None:
        print(f"evident: no ingest job {args.job_id!r} (see `evident jobs list`)", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(asdict(status) | {"state": status.state}, indent=2))
        return 0
    print(line(status))
    for error in status.errors:
        print(f"error: {error['reason']}" if error["reason"].startswith(f"{error['file']}: ")
              else f"error: {error['file']}: {error['reason']}")
    if args.action == "cancel" and not status.finished:
        print(f"cancelled: files not yet taken by a worker are skipped; the ones in hand finish "
              f"(follow with `evident jobs show {status.job_id}`)", file=sys.stderr)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("jobs", help="ingest jobs: list them, show one with its errors, or cancel one")
    actions = p.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="the recent jobs and their counts")
    listing.add_argument("--json", action="store_true")
    for action, text in (("show", "one job, its counts and its recorded errors"),
                         ("cancel", "skip the files of a job that no worker took yet")):
        one = actions.add_parser(action, help=text)
        one.add_argument("job_id", metavar="ID")
        one.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_jobs)
