"""``evident sources …`` (add, list, sync, remove live sources) and ``evident beat`` (the scheduler).

``sync`` queues the source's sync to the worker and, unless ``--no-wait``, follows it until it finishes,
printing the counts as they grow.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from core.settings import Settings

SYNC_TIMEOUT = 3600  # seconds `sources sync` follows a sync by default: minutes for a wiki, an hour for a big one
POLL_SECONDS = 1  # between looks at a followed sync: a moving count, little load on Redis


def _store(settings: Settings):
    from core.sources import SourceStore

    return SourceStore.from_url(settings.redis.url)


def _jobs(settings: Settings):
    from core.jobs import JobStore

    return JobStore.from_settings(settings)


def _fail(message: str) -> int:
    print(f"evident: {message}", file=sys.stderr)
    return 1


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def options_of(args) -> dict:
    """The registration options a ``sources add`` command line gives, by kind."""
    if args.kind == "confluence":
        return {"url": args.url, "deployment": "data-center" if args.data_center else "cloud",
                "token_env": args.token_env, "token_file": args.token_file, "user_env": args.user_env,
                "spaces": _split(args.spaces), "cql": args.cql, "attachments": _split(args.attachments),
                "space_groups": args.space_groups, "requests_per_second": args.rate}
    return {"start": args.start, "sitemap": args.sitemap, "max_pages": args.max_pages,
            "requests_per_second": args.rate}


def cmd_sources(args, settings: Settings) -> int:
    from workers.sync import registry

    store = _store(settings)
    if args.action == "add":
        try:
            registry.refuse_private_urls(options_of(args), settings.sources.allowed_private_hosts)
            entry = registry.register(store, args.name, args.kind, options_of(args), args.every or "")
        except ValueError as exc:
            return _fail(f"source {args.name}: {exc}")
        print(json.dumps(registry.describe(store, _jobs(settings), entry), indent=2))
        return 0
    if args.action == "list":
        described = [registry.describe(store, _jobs(settings), entry) for entry in store.all()]
        print(json.dumps(described, indent=2) if args.json else "\n".join(_line(d) for d in described)
              or "no sources (add one with: evident sources add confluence|site NAME ...)")
        return 0
    entry = store.get(args.name)
    if entry is None:
        return _fail(f"no source named {args.name!r} (see: evident sources list)")
    if args.action == "remove":
        from core.index import answering

        removed = registry.remove(store, answering(settings), settings, args.name)
        print(f"removed source {args.name} and its {removed} evidence")
        return 0
    return sync(settings, store, args)


def _line(described: dict) -> str:
    last = described["last_sync"] or {}
    counts = ", ".join(f"{k} {v}" for k, v in (last.get("counts") or {}).items())
    where = described["options"].get("url") or described["options"].get("start")
    return (f"{described['name']:<16} {described['kind']:<10} {where}  items {described['items']}  "
            f"last sync {last.get('finished', 'never')} ({counts or '-'})  next {described['next_sync'] or 'on demand'}")


def sync(settings: Settings, store, args) -> int:
    from workers.app import create_app

    app = create_app(settings)
    before = store.state(args.name)["syncs"]
    queued = app.send_task("evident.sync_source", kwargs={"name": args.name, "full": args.full})
    print(f"queued the sync of {args.name}{' (full)' if args.full else ''}")
    if args.no_wait:
        return 0
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        state, checkpoint = store.state(args.name), store.checkpoint(args.name)
        answer = queued.result if queued.ready() else None
        if queued.failed() or (isinstance(answer, dict) and answer.get("outcome") in ("failed", "busy", "cancelled")):
            reason = answer.get("reason", "another sync of it is running") if isinstance(answer, dict) else answer
            return _fail(f"sync of {args.name} {'failed' if queued.failed() else answer['outcome']}: {reason}")
        if state["syncs"] > before:
            print("\n" + json.dumps(state["last"], indent=2))
            return 0
        if checkpoint:
            counts = ", ".join(f"{k} {v}" for k, v in checkpoint.get("counts", {}).items())
            print(f"\r{checkpoint.get('phase', '')}: {counts}", end="", flush=True)
        time.sleep(POLL_SECONDS)
    return _fail(f"sync of {args.name} still running after {args.timeout:.0f} s (see: evident sources list)")


def cmd_beat(args, settings: Settings) -> int:
    """Celery beat with the schedule of ``workers.app``: it queues the syncs that are due."""
    from workers.app import create_app

    app = create_app(settings)
    argv = ["beat", "--loglevel", args.loglevel]
    if args.schedule_file:
        argv += ["--schedule", args.schedule_file]
    app.start(argv)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """``sources`` and ``beat`` with their options (one flat list of declarations, like ``evident.cli``)."""
    p = sub.add_parser("sources", help="live sources: add, list, sync or remove a Confluence or a web site")
    actions = p.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="register a source (checked, no secret stored)")
    kinds = add.add_subparsers(dest="kind", required=True)
    conf = kinds.add_parser("confluence", help="a Confluence Cloud or Data Center")
    conf.add_argument("name")
    conf.add_argument("--url", required=True, help="base URL, e.g. https://wiki.example.com or https://x.atlassian.net/wiki")
    deployment = conf.add_mutually_exclusive_group()
    deployment.add_argument("--cloud", action="store_true", help="Confluence Cloud: e-mail + API token (default)")
    deployment.add_argument("--data-center", action="store_true", help="Data Center: personal access token")
    conf.add_argument("--token-env", help="environment variable holding the token (read by the worker)")
    conf.add_argument("--token-file", help="file holding the token (read by the worker)")
    conf.add_argument("--user-env", help="Cloud: environment variable holding the account e-mail")
    scope = conf.add_mutually_exclusive_group(required=True)
    scope.add_argument("--spaces", help="space keys, comma separated")
    scope.add_argument("--cql", help="a CQL scope instead of spaces")
    conf.add_argument("--attachments", help="attachment types to index, e.g. pdf,html")
    conf.add_argument("--space-groups", help="groups of spaces not open to all: ENG=eng,contractors;HR=hr")
    site = kinds.add_parser("site", help="an intranet web site, crawled on its own host")
    site.add_argument("name")
    site.add_argument("--start", required=True, help="the first page; the crawl stays on its host")
    site.add_argument("--sitemap", help="a sitemap besides those robots.txt names")
    site.add_argument("--max-pages", type=int, help="pages per crawl at most")
    for kind in (conf, site):
        kind.add_argument("--every", help="sync interval, e.g. 10m or 1h (default: only when asked)")
        kind.add_argument("--rate", type=float, help="requests per second at most (default: the sources setting)")
    listing = actions.add_parser("list", help="the sources, their last and next sync")
    listing.add_argument("--json", action="store_true")
    run = actions.add_parser("sync", help="sync a source now and follow it")
    run.add_argument("name")
    run.add_argument("--full", action="store_true", help="list and fetch everything again, not only changes")
    run.add_argument("--no-wait", action="store_true", help="queue it and return")
    run.add_argument("--timeout", type=float, default=SYNC_TIMEOUT)
    gone = actions.add_parser("remove", help="forget a source; its documents leave the index, a sync of it stops")
    gone.add_argument("name")
    p.set_defaults(func=cmd_sources)

    p = sub.add_parser("beat", help="run the scheduler that starts the sources' syncs at their intervals")
    p.add_argument("--loglevel", default="INFO")
    p.add_argument("--schedule-file", help="where beat keeps its last run times")
    p.set_defaults(func=cmd_beat)
