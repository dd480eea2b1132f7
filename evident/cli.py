"""The ``evident`` command: services, index set-up, parsing, ingest, worker, API, search, evaluation, demo."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import asdict
from typing import get_args

from opensearchpy.exceptions import OpenSearchException

from core.embedding import limit_native_threads
from core.settings import PROJECT_ROOT, FusionMethod, PageGrouping, SearchMode, Settings, SortOrder, load_settings
from evident import bench, dashboards_cli, jobs_cli, sources_cli

SAMPLE_CORPUS = PROJECT_ROOT / "samples"
INGEST_TIMEOUT = 3600  # seconds `evident ingest` follows a job by default: the samples take a minute, a wiki hours
PREVIEW_CHARS = 200  # of each evidence's text in `evident parse`: two lines of a terminal
SKIPPED_EXAMPLES = 3  # file names shown of those left out: enough to recognize what they are
PROGRESS_REDRAW = 1  # seconds between redraws of the ingest progress bar: moving, yet quiet in a log
API_SEARCH_TIMEOUT = 30  # seconds `evident search` waits for the running API: a search takes well under one
SOURCE_NAME = re.compile(r"[\w.-]+")  # what `--source` may be: a word of a document id, no ':' or '/' of a path
GATE_MARGIN = 0.01  # P@1 `reindex --gate` lets fall: one question in a hundred, what a tie broken otherwise moves


def _fail(message: str, code: int = 1) -> int:
    print(f"evident: {message}", file=sys.stderr)
    return code


def opensearch_reason(exc: OpenSearchException) -> str:
    """What OpenSearch said, as it said it (``error.reason`` of its answer), else the exception itself: a
    refused request's own words name the cause ("index template [x] has index patterns ... matching ...")."""
    info = getattr(exc, "info", None)
    error = info.get("error") if isinstance(info, dict) else None
    return error["reason"] if isinstance(error, dict) and error.get("reason") else str(exc)


# -- services --------------------------------------------------------------------------------------
def cmd_services(args, settings: Settings) -> int:
    from evident.stack import ServiceError, launcher

    if args.nodes is not None:
        settings.services.opensearch_nodes = args.nodes
    if args.workers is not None:
        settings.services.workers = args.workers
    try:
        if args.action == "up":
            launcher.up(settings)
        elif args.action == "down":
            launcher.down(settings)
        report = launcher.status(settings)
        for _running, line in report.values():
            print(line)
        print(launcher.supervisor_line(settings))
    except ServiceError as exc:
        return _fail(str(exc))
    return 0 if args.action == "down" or all(running for running, _ in report.values()) else 1


def ensure_index(settings: Settings) -> dict:
    """The template, alias and pipelines, created or updated (idempotent) once OpenSearch answers."""
    from core.index import answering, init_index

    return init_index(answering(settings), settings)


def cmd_init(args, settings: Settings) -> int:
    print(json.dumps(ensure_index(settings), indent=2))
    return 0


def cmd_reindex(args, settings: Settings) -> int:
    from core.index import answering, reindex
    from evident.evaluation import load_questions, reindex_gate

    try:
        questions = load_questions(args.gate) if args.gate else []
        gate = reindex_gate(make_searcher(settings), questions, args.gate_margin) if args.gate else None
    except (OSError, ValueError) as exc:
        return _fail(f"--gate {args.gate}: {exc}")
    report = reindex(answering(settings), settings, gate)
    print(json.dumps(report, indent=2))
    return 0 if report["swapped"] else _fail(f"reindex refused: P@1 of the new index {report['gate']['p_at_1_new']} "
                                             f"against {report['gate']['p_at_1_current']} now (margin "
                                             f"{args.gate_margin}); the alias stays on {', '.join(report['from'])}")


def report_skipped(skipped) -> None:
    if skipped:
        examples = ", ".join(p.name for p in skipped[:SKIPPED_EXAMPLES])
        print(f"note: {len(skipped)} files are not JSON, HTML, PDF or CSV and were left out ({examples}"
              f"{', ...' if len(skipped) > SKIPPED_EXAMPLES else ''})", file=sys.stderr)


# -- parse -----------------------------------------------------------------------------------------
def cmd_parse(args, settings: Settings) -> int:
    from workers.folder import CorpusError, discover, load
    from ingest.blocks import ParseError
    from text.lemmas import Lemmatizer
    from ingest.pipeline import evidence_for
    from ingest.views import KeywordStats

    files, errors, skipped = discover(args.paths)
    report_skipped(skipped)
    lemmatizer, stats = Lemmatizer(), KeywordStats()
    counts: dict[str, int] = {}
    for item in files:
        try:
            parsed, evidence = evidence_for(load(item, settings.ingest.files_base_url), settings.ingest,
                                            lemmatizer, stats)
        except (ParseError, OSError, ValueError) as exc:
            errors.append(CorpusError(item.name, str(exc)))
            continue
        for warning in parsed.errors:
            print(f"warning: {item.name}: {warning}", file=sys.stderr)
        for e in evidence:
            counts[e.kind] = counts.get(e.kind, 0) + 1
            if args.json:
                print(json.dumps(e.to_dict(), ensure_ascii=False))
            else:
                print(f"[{e.kind}] {e.url} | {' > '.join(e.heading_path)}\n    {e.text[:PREVIEW_CHARS]}")
    for err in errors:
        print(f"error: {err.path}: {err.reason}", file=sys.stderr)
    print(f"{len(files) - len(errors)} files, {sum(counts.values())} evidence: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)
    return 1 if errors else 0


# -- ingest ----------------------------------------------------------------------------------------
def source_name(text: str) -> str:
    """``--source``: a name that reads in a document id (``html:<source>:<file>``), never a path."""
    if not SOURCE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: a source name is letters, digits, '.', '_' and '-' "
                                         f"(it is part of each document's id)")
    return text


def cmd_ingest(args, settings: Settings) -> int:
    from tqdm import tqdm

    from core.jobs import JobStore
    from core.sources import SourceStore
    from workers.app import create_app
    from workers.folder import discover
    from workers.submit import claim_sources, queue_files, wait_for_job

    files, missing, skipped = discover(args.paths, args.source or "")
    report_skipped(skipped)
    for err in missing if not files else []:  # with files, they are recorded on the job and listed with its errors
        print(f"error: {err.path}: {err.reason}", file=sys.stderr)
    if not files and not args.prune:
        return _fail("nothing to ingest")
    jobs = JobStore.from_settings(settings)
    live = frozenset(entry.name for entry in SourceStore.from_url(settings.redis.url).all())
    refused = claim_sources(jobs, args.paths, files, args.source or "", live)
    if refused:  # nothing queued or pruned: a folder of another's name would overwrite the other's documents
        for sentence in refused:
            print(f"error: {sentence}", file=sys.stderr)
        return _fail("nothing ingested")
    created = ensure_index(settings)["created_index"]  # the worker writes only through the alias
    if created:
        print(f"created index {created} behind alias {settings.opensearch.index_alias}", file=sys.stderr)
    if args.prune:
        from core.index import connect
        from workers.submit import prune

        removed = prune(jobs, connect(settings), settings, args.paths, files, args.source or "")
        for name, count in removed.items():
            print(f"removed {name}: gone from its folder ({count} evidence)", file=sys.stderr)
        print(f"pruned {len(removed)} files no longer in {', '.join(args.paths)}", file=sys.stderr)
        if not files:
            return 1 if missing else 0
    job_id = queue_files(create_app(settings), jobs, files, force=args.force, problems=missing)
    try:  # from here on Ctrl-C stops only the following, wherever it lands: the worker has the job
        print(f"job {job_id}: {len(files)} files queued", file=sys.stderr)
        if args.no_wait:
            print(job_id)
            return 0
        with tqdm(total=len(files), unit="file", desc=f"ingest {job_id}", file=sys.stderr,
                  mininterval=PROGRESS_REDRAW) as bar:
            def show(status):
                progressed = status.done + status.skipped + status.failed + status.cancelled
                if progressed != bar.n:
                    bar.set_postfix(failed=status.failed, refresh=False)
                    bar.update(progressed - bar.n)

            status = wait_for_job(jobs, job_id, args.timeout, on_progress=show)
    except KeyboardInterrupt:
        print(jobs_cli.left_running(settings, job_id), file=sys.stderr)
        return 130
    for error in status.errors:
        print(f"error: {error['file']}: {error['reason']}", file=sys.stderr)
    print(f"job {job_id}: {status.done} indexed, {status.skipped} unchanged, {status.failed} failed"
          + (f", {status.cancelled} cancelled" if status.cancelled else "")
          + ("" if status.finished else f" (still running; {jobs_cli.left_running(settings, job_id)})"),
          file=sys.stderr)
    return 0 if status.finished and not status.failed and not missing else 1


def cmd_worker(args, settings: Settings) -> int:
    from core.jobs import INGEST_QUEUE
    from workers.app import create_app

    app = create_app(settings)
    processes = settings.services.worker_concurrency or os.cpu_count() or 1
    # prefork even for one process: only a child process can be stopped at [worker] time limits, and one that
    # dies (out of memory) leaves the worker running and its task queued again.
    pool = ["--pool", "prefork", "--concurrency", str(processes)]
    argv = ["worker", "--loglevel", args.loglevel, *pool, "--queues", INGEST_QUEUE, "--hostname", args.hostname]
    app.worker_main(argv)
    return 0


def cmd_serve(args, settings: Settings) -> int:
    from evident.server import EvidentServer

    host = args.host or settings.services.api_host
    port = args.port or settings.services.api_port
    print(f"Evident search page: http://{host}:{port}/", file=sys.stderr)
    EvidentServer(settings, host, port).run()
    return 0


def cmd_bench(args, settings: Settings) -> int:
    from pathlib import Path

    from evident.stack.launcher import log_dir

    from evident.bench_check import format_profile, over_budget

    try:
        ingest, searches = bench.run(settings, args.corpus, Path(args.questions), args.searches, args.scale, args.api,
                                     not args.no_ingest, log_dir(settings))
    except (OSError, ValueError, RuntimeError) as exc:
        return _fail(f"bench: {exc}")
    print("\n".join([bench.format_report(ingest, searches), *([format_profile(searches)] if args.profile else [])]))
    over = over_budget(ingest, searches, settings.bench) if args.check else []
    for figure in over:
        print(f"bench: over budget: {figure}", file=sys.stderr)
    return 1 if over else 0


# -- search and eval -------------------------------------------------------------------------------
def make_searcher(settings: Settings):
    from core.index import connect
    from search.searcher import Searcher

    return Searcher.from_settings(settings, connect(settings))


def _overrides(args) -> dict:
    out = {}
    for name in ("mode", "fusion", "group"):
        if getattr(args, name, None):
            out[name] = getattr(args, name)
    if getattr(args, "views", None):
        out["views"] = tuple(v for v in args.views.split(",") if v)
    if getattr(args, "no_history", False):
        out["use_history"] = False
    return out


def api_search(args, settings: Settings) -> dict:
    """The answer of the API on [services] api_host/api_port, whose models are loaded already: a second,
    against ~10 s of loading them here. It searches the alias it was started with."""
    import requests

    url = f"http://{settings.services.api_host}:{settings.services.api_port}/api/search"
    params = {"q": args.query, "k": args.k, **{name: getattr(args, name) for name in ("mode", "group", "sort")
                                               if getattr(args, name)}}
    try:
        answer = requests.get(url, params=params, timeout=API_SEARCH_TIMEOUT)
    except requests.RequestException as exc:
        raise ValueError(f"no answer from the API at {url} ({exc}); start it (evident services up) or "
                         "search without --api") from None
    if answer.status_code != 200:
        raise ValueError(f"{url} answered {answer.status_code}: {answer.text[:PREVIEW_CHARS]}")
    return answer.json()


def cmd_search(args, settings: Settings) -> int:
    from ingest.principals import principals
    from search.searcher import SearchRequest

    groups = [g for g in (args.groups or "").split(",") if g]
    if args.api and (groups or args.fusion or args.views or args.no_history):
        # The API serves what the caller's identity may read and has no switches for single stages.
        return _fail("--api: --groups, --fusion, --views and --no-history search here, not through the API")
    if args.api:
        try:
            response = api_search(args, settings)
        except ValueError as exc:
            return _fail(str(exc))
    else:
        response = asdict(make_searcher(settings).search(SearchRequest(query=args.query, k=args.k, sort=args.sort,
                                                                       groups=principals(groups), **_overrides(args))))
    if args.json:
        print(json.dumps(response, ensure_ascii=False, indent=2))
        return 0
    for n, hit in enumerate(response["hits"], start=1):
        print(f"{n:2}. {hit['title']}  [{hit['kind']}]  {hit['score']:.4f}\n    {hit['url']}\n"
              f"    {' > '.join(hit['heading_path'])}")
    print(f"{response['total']} pages in {response['took_ms']} ms", file=sys.stderr)
    return 0


def cmd_eval(args, settings: Settings) -> int:
    from tqdm import tqdm

    from evident.evaluation import (format_misses, format_table, in_split, load_questions, misses, out_of_corpus,
                                    report, run)

    answered: list[str] = []
    try:
        questions = in_split(load_questions(args.questions), args.split)
        if args.out_of_corpus:
            from core.index import connect

            questions, answered = out_of_corpus(connect(settings), settings.opensearch.index_alias, questions)
    except (OSError, ValueError) as exc:  # a broken questions file, or a broken evalsets/answered-elsewhere.jsonl
        return _fail(str(exc))
    searcher = make_searcher(settings) if questions else None  # an empty split asks nothing: no model to load
    with tqdm(total=len(questions), unit="q", desc="eval", file=sys.stderr, disable=args.json) as bar:
        outcomes = run(searcher, questions, field_name=args.field, overrides=_overrides(args),
                       progress=lambda n: bar.update(1), conversation=args.conversation, explain=args.misses)
    result = report(outcomes)
    if args.out_of_corpus:
        result["gold_in_index"] = answered  # questions left out: the index holds a gold page of theirs
    if args.misses:
        result["misses"] = misses(outcomes)
    print(json.dumps(result, indent=2) if args.json else "\n".join(
        [format_table(result), *([format_misses(result["misses"])] if args.misses else [])]))
    return 0


# -- demo ------------------------------------------------------------------------------------------
def cmd_demo(args, settings: Settings) -> int:
    """Start everything, ingest the sample corpus, serve the page and print its URL."""
    from evident.stack import ServiceError, launcher

    try:
        launcher.up(settings)
    except ServiceError as exc:
        return _fail(str(exc))
    code = cmd_ingest(argparse.Namespace(paths=[str(args.corpus)], source="", force=False, prune=True,
                                         no_wait=False, timeout=INGEST_TIMEOUT), settings)
    url = f"http://{settings.services.api_host}:{settings.services.api_port}/"
    try:
        launcher.wait_http(url + "api/health", timeout=180)
    except ServiceError as exc:
        return _fail(f"{exc}; see the logs in {launcher.log_dir(settings)}")
    print(f"\nEvident is running. Search page: {url}\n(stop with: .venv/bin/evident services down)")
    return code


def retrieval_flags(p: argparse.ArgumentParser) -> None:
    """The switches of each retrieval stage, shared by ``search`` and ``eval``."""
    p.add_argument("--mode", choices=get_args(SearchMode),
                   help="baseline: plain BM25 over whole page text, for comparison")
    p.add_argument("--fusion", choices=get_args(FusionMethod),
                   help="merge: MC-indexing view merging (top 2/3 of each list, de-duplicated by section)")
    p.add_argument("--views", help="dense views, comma separated: context,summary,keywords")
    p.add_argument("--group", choices=get_args(PageGrouping))
    p.add_argument("--no-history", action="store_true", help="ignore earlier turns of a conversation")


def build_parser() -> argparse.ArgumentParser:
    """Every command with its options, in the order of ``evident --help``: one flat list (over 60 lines)
    reads more easily than the same declarations spread over helpers."""
    parser = argparse.ArgumentParser(prog="evident", description=__doc__)
    parser.add_argument("--config", help="TOML settings file (default: evident.toml or $EVIDENT_CONFIG)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("services", help="start, stop or show local OpenSearch, Redis, worker and API")
    p.add_argument("action", choices=["up", "down", "status"])
    p.add_argument("--nodes", type=int, help="OpenSearch nodes to run, a cluster on ports opensearch_port + 0..N-1 "
                                            "(default [services] opensearch_nodes)")
    p.add_argument("--workers", type=int, help="worker processes to run (default [services] workers)")
    p.set_defaults(func=cmd_services)

    p = sub.add_parser("init", help="create or update the index template, alias and search pipelines")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("reindex", help="rebuild the index from the current template and swap the alias (no downtime)")
    p.add_argument("--gate", metavar="QUESTIONS.jsonl",
                   help="ask these questions of the new index and of the alias before the swap: refuse it when P@1 falls")
    p.add_argument("--gate-margin", type=float, default=GATE_MARGIN,
                   help=f"the fall of P@1 the gate lets through (default {GATE_MARGIN})")
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("parse", help="print the evidence files would give (no services needed)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--json", action="store_true", help="one JSON object per evidence")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("ingest", help="queue files to the worker (their bytes go with the tasks: a worker needs "
                                      "no access to this disk) and follow the job")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--force", action="store_true", help="re-ingest files that did not change")
    p.add_argument("--source", type=source_name, default=None, metavar="NAME",
                   help="the source the files belong to, named in their document ids (default: each folder's own "
                        "name); a folder given a name another folder holds takes it over")
    p.add_argument("--prune", action="store_true",
                   help="also remove from the index the files once ingested from these folders that are gone")
    p.add_argument("--no-wait", action="store_true", help="print the job id and return")
    p.add_argument("--timeout", type=float, default=INGEST_TIMEOUT,
                   help=f"seconds to follow the job (default {INGEST_TIMEOUT})")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("worker", help="run an ingest worker")
    p.add_argument("--loglevel", default="INFO")
    p.add_argument("--hostname", default="evident@%h",
                   help="Celery node name, one per worker on a machine (default evident@%%h; %%h: the host name)")
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser("serve", help="run the API and search page (gunicorn: [services] api_workers, api_threads)")
    p.add_argument("--host")
    p.add_argument("--port", type=int)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("search", help="search like the API does")
    p.add_argument("query", help='the question; "an exact phrase" must match, -word leaves out pages that say it')
    p.add_argument("--sort", choices=get_args(SortOrder), default="relevance", help="newest matching pages first")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--groups", help="the caller's groups, comma separated")
    p.add_argument("--api", action="store_true",
                   help="ask the running API ([services] api_host, api_port): an answer in about a second, "
                        "from the alias that API was started with")
    p.add_argument("--json", action="store_true")
    retrieval_flags(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("eval", help="P@1, hit@5, MRR, verdicts and answer cards over a questions file, by slice")
    p.add_argument("questions", metavar="QUESTIONS.jsonl")
    p.add_argument("--field", default="completed_question",
                   help="question field (default completed_question; 'question' uses conversation history)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--misses", action="store_true",
                   help="say why each question's first result is wrong: the gold page and the first one, each "
                        "with what each ranked list and prior added to its score (in --json: a misses list)")
    p.add_argument("--split", choices=["tune", "holdout"],
                   help="only the conversations of one half (by a hash of conv_id): tune on one, report the other")
    p.add_argument("--out-of-corpus", action="store_true",
                   help="the questions are another corpus's: those whose gold page, or a page that answers them by "
                        "evalsets/answered-elsewhere.jsonl, this index holds are left out (--json: gold_in_index)")
    p.add_argument("--conversation", choices=["state", "prev-question", "none"], default="state",
                   help="how raw follow-ups meet earlier turns: the conversation state (default), the naive "
                        "baseline of the previous raw question prepended, or none")
    retrieval_flags(p)
    p.set_defaults(func=cmd_eval)

    sources_cli.add_parsers(sub)
    jobs_cli.add_parsers(sub)
    dashboards_cli.add_parsers(sub)

    p = sub.add_parser("bench", help="ingest (twice, timing the second) and search speed and CPU on this machine "
                                     "(re-ingests into the settings' alias: give it its own)")
    p.add_argument("--corpus", nargs="+", default=[str(c) for c in bench.DEFAULT_CORPUS], metavar="PATH",
                   help="files or folders to ingest (default: the shared bench's wiki pages and PDFs)")
    p.add_argument("--questions", default=str(bench.DEFAULT_QUESTIONS),
                   help="JSONL (completed_question or question) or one query a line (default: the bench's)")
    p.add_argument("--searches", type=int, default=bench.SEARCHES, help="searches per measurement")
    p.add_argument("--scale", type=int, default=0, metavar="N",
                   help="also measure search on a throwaway copy of about N evidence, removed afterwards")
    p.add_argument("--api", help="measure this running API (base URL) instead of starting one")
    p.add_argument("--no-ingest", action="store_true", help="search what the alias holds; ingest nothing")
    p.add_argument("--profile", action="store_true",
                   help="also print each search stage's median and p95 ms and OpenSearch round trips")
    p.add_argument("--check", action="store_true",
                   help="exit 1 naming each figure over its [bench] budget (the latencies: on the largest index)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("demo", help="start everything, ingest the sample corpus and serve the search page")
    p.add_argument("--corpus", default=str(SAMPLE_CORPUS), help="folder to ingest (default: samples/)")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings(args.config)
    except (OSError, ValueError) as exc:
        return _fail(f"settings: {exc}")
    limit_native_threads(settings.embedding.threads)  # before anything loads a model: its children inherit it
    try:
        return args.func(args, settings)
    except KeyboardInterrupt:
        return 130
    except OpenSearchException as exc:  # unreachable or refusing: one line naming the node and the cause
        from core.urls import redact  # a URL's user:password never reaches the terminal or a log
        return _fail(redact(f"OpenSearch at {settings.opensearch.url}: {opensearch_reason(exc)}"))


if __name__ == "__main__":
    sys.exit(main())
