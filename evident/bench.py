"""``evident bench``: how fast this machine ingests and searches, measured through the real worker and HTTP API.

Ingest: a worker is started for the run (``evident worker``, as the stack runs it), the corpus is queued to it
with ``force`` once to warm up (untimed, its time printed) and again, timed from queueing to the job's end; then
the bench embeds the same texts the worker embedded (the views ``workers.tasks`` chooses, read back from the
index) in one call to the same embedder, which gives the embedder's own time and its share of the ingest.

Search: an API is started for the run (``evident serve`` on a free loopback port, or ``--api URL`` for one
already running) and asked ``GET /api/search`` by 1 and 4 concurrent clients, in BM25 and in hybrid mode,
after each question was asked once (``measure_search``); each client goes through the questions file in its own
order. Each row also gives the CPU a search took in the
OpenSearch node and in the API, read from /proc when they run on this machine (the API: one the bench started):
on a machine the two share, their sum is what the latency budget buys. ``--scale N`` copies the evidence under new
ids, doc ids and URLs into a throwaway alias of about N evidence, merged into one segment as ``evident
reindex`` leaves an index, measures search there through an API of its own, then deletes it.

The bench works on the settings' alias and Redis database: give it its own
(``EVIDENT_OPENSEARCH_INDEX_ALIAS=bench EVIDENT_REDIS_URL=redis://127.0.0.1:6379/7``), since it re-ingests
the corpus there. The searches it sends are logged to a throwaway search log, deleted at the end.
Written by hand because no kept library drives our worker and API together; the HTTP load itself is
``requests`` in threads, which is all 4 clients need.
"""
from __future__ import annotations

import json
import math
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import requests

from core.profile import StageFigures, parse_server_timing
from core.settings import PROJECT_ROOT, Settings
from evident.processes import local_node_pid, process_minutes, process_tree_cpu_seconds

SHARED_BENCH = PROJECT_ROOT.parent / "shared" / "bench"
DEFAULT_CORPUS = [SHARED_BENCH / "wiki" / "pages", SHARED_BENCH / "pdf"]
DEFAULT_QUESTIONS = SHARED_BENCH / "questions.jsonl"
QUESTION_FIELDS = ("completed_question", "question")  # the question as it stands alone, else as asked
CLIENTS = (1, 4)  # one user at a time, and four at once (the load)
MODES = ("bm25", "hybrid")  # BM25 alone shows what the dense half of hybrid costs
SEARCHES = 200  # per measurement: enough for a stable p95, p99 is indicative only at this count
RESULTS_K = 10  # hits asked per search: the search page's first page
INGEST_TIMEOUT = 3600  # seconds the bench follows its ingest job: the bench corpus takes minutes
START_TIMEOUT = 300  # seconds a started worker or API may take to answer: models load on 2 busy cores
POLL_SECONDS = 0.5  # while a started worker or API comes up
PING_SECONDS = 1.0  # a live Celery worker answers a ping in milliseconds
HTTP_TIMEOUT = 60  # one search under load; far above any latency worth measuring
STOP_TIMEOUT = 60  # a started worker finishes the file in hand before it exits
SCROLL_SIZE = 500  # evidence read back per scroll page (texts only, no vectors)
SCROLL_KEEP = "2m"  # the scroll context lives between two pages read back
REINDEX_TIMEOUT = 3600  # seconds one copy of the evidence may take into the scale index
SCALE_SUFFIX = "_scale"  # the scale alias: not "<alias>-...", which the alias's own template would claim
PERCENTILES = (50, 95, 99)
# A node started this many minutes before the searches still compiles its search code (its JIT): on 2 cores a search
# cost a node 4 minutes old 2 to 4 times the CPU it cost the same node 20 minutes later.
SETTLED_NODE_MINUTES = 15


@dataclass
class IngestFigures:
    files: int
    pages: int
    evidence: int
    failed: int
    wall_seconds: float
    warm_up_seconds: float  # the untimed first pass: the worker's models loading and the node's JIT warming up
    embedded_texts: int
    views: tuple[str, ...]
    embedder_seconds: float
    multilingual_texts: int  # leaf evidence the multilingual model embedded (none with the stage off)
    multilingual_seconds: float


@dataclass
class SearchFigures:
    index: str  # "bench" or "scale"
    evidence: int
    mode: str
    clients: int
    searches: int
    errors: int
    latencies_ms: list[float]
    wall_seconds: float
    stages: list[dict[str, StageFigures]] = field(default_factory=list)  # per search, from its Server-Timing
    # CPU per search of the OpenSearch node and of the API, when they run on this machine (the API: when the bench
    # started it); NaN when not measured. On a machine the two share, the search budget is their sum.
    opensearch_cpu_ms: float = math.nan
    api_cpu_ms: float = math.nan
    first_asked_ms: list[float] = field(default_factory=list)  # the mode's warm-up (its first row only)
    node_minutes: float = math.nan  # how long the OpenSearch node had run when the row began (NaN: not on this machine)


    def percentile(self, p: int) -> float:
        return percentile(self.latencies_ms, p)


def percentile(values: list[float], p: int) -> float:
    """The ``p``-th percentile (NaN of none)."""
    if len(values) < 2:
        return values[0] if values else math.nan
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def load_queries(path: Path) -> list[str]:
    """The questions of a JSONL file (``completed_question``, else ``question``), or a plain text file's lines."""
    try:
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the questions ({exc})") from exc
    queries = []
    for number, line in enumerate(lines, start=1):
        if not line.startswith("{"):
            queries.append(line)
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc})") from exc
        text = next((record[f] for f in QUESTION_FIELDS if isinstance(record.get(f), str) and record[f]), "")
        if not text:
            raise ValueError(f"{path}:{number}: no {' or '.join(QUESTION_FIELDS)} field")
        queries.append(text)
    if not queries:
        raise ValueError(f"{path}: no questions")
    return queries


def count_pages(files) -> int:
    """Source pages: a PDF's pages, one for any other file."""
    import pymupdf

    pages = 0
    for item in files:
        if item.path.suffix.lower() == ".pdf":
            with pymupdf.open(item.path) as pdf:
                pages += pdf.page_count
        else:
            pages += 1
    return pages


# -- child processes -------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def child_env(settings: Settings, **overrides: str) -> dict[str, str]:
    """This process's environment with the settings a started worker or API must share with the bench."""
    from evident.stack.launcher import child_environment

    return {**os.environ, **child_environment(settings), **overrides}


@contextmanager
def child(command: list[str], env: dict[str, str], log: Path):
    """``python -m evident.cli COMMAND`` for the run, stopped (SIGTERM, then SIGKILL) when the block ends."""
    with log.open("ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "evident.cli", *command], env=env, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=PROJECT_ROOT)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_until(ready, process: subprocess.Popen, what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up (exit {process.poll()}); see {log}")
        time.sleep(POLL_SECONDS)


@contextmanager
def worker_for(settings: Settings, log: Path):
    """A worker started for the run on the settings' Redis, alone there: a worker already consuming that
    queue may write to another alias, and would share the files with ours."""
    from workers.app import create_app

    app = create_app(settings)
    if app.control.ping(timeout=PING_SECONDS):
        raise ValueError(f"a worker already consumes {settings.redis.url}: stop it, or give the bench a Redis "
                         "database of its own (EVIDENT_REDIS_URL)")
    say(f"starting a worker (log {log})")
    with child(["worker", "--loglevel", "WARNING"], child_env(settings), log) as process:
        wait_until(lambda: bool(app.control.ping(timeout=PING_SECONDS)), process, "the worker", log)
        yield app


@contextmanager
def api_for(settings: Settings, url: str | None, log: Path, **env: str):
    """The base URL of an API on the settings' alias and its process id: ``url`` (no process id) when given,
    else `evident serve` for the run."""
    if url:
        yield url.rstrip("/"), None
        return
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with child(["serve", "--host", "127.0.0.1", "--port", str(port)], child_env(settings, **env), log) as process:
        wait_until(lambda: _answers(base), process, "the API", log)
        yield base, process.pid


def _answers(base: str) -> bool:
    try:
        requests.get(f"{base}/api/health", timeout=HTTP_TIMEOUT)  # 503 (no worker) still answers
        return True
    except requests.RequestException:
        return False


def say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


# -- ingest ----------------------------------------------------------------------------------------
def indexed_evidence(client, alias: str) -> list:
    """Every evidence of the alias as the worker wrote it (without its vectors; its sentence view as the texts
    the worker embedded)."""
    from core.index import SENTENCE_FIELD
    from ingest.evidence import Evidence

    names = {f.name for f in fields(Evidence)}
    items = []
    page = client.search(index=alias, scroll=SCROLL_KEEP, size=SCROLL_SIZE, body={"query": {"match_all": {}}},
                         _source_excludes=["vec_*", f"{SENTENCE_FIELD}.vec"])
    try:
        while page["hits"]["hits"]:
            for hit in page["hits"]["hits"]:
                source = {k: v for k, v in hit["_source"].items() if k in names}
                source[SENTENCE_FIELD] = [s["text"] for s in source.get(SENTENCE_FIELD, [])]
                items.append(Evidence(**source))
            page = client.scroll(scroll_id=page["_scroll_id"], scroll=SCROLL_KEEP)
    finally:
        client.clear_scroll(scroll_id=page["_scroll_id"])
    return items


def measure_ingest(settings: Settings, client, corpus: list[str], log_dir: Path) -> IngestFigures:
    """Ingest ``corpus`` through the worker (timed), then the embedder alone on the texts it embedded."""
    from core.embedding import Embedder
    from core.jobs import JobStore
    from core.index import init_index, merge_deleted_away
    from core.multilingual import MultilingualEmbedder, passage_text
    from workers.folder import discover
    from workers.submit import queue_files, wait_for_job
    from workers.tasks import embedded_views, view_texts

    files, missing, _skipped = discover(corpus)
    if missing or not files:
        raise ValueError("corpus: " + ("; ".join(f"{e.path}: {e.reason}" for e in missing) or "no files to ingest"))
    init_index(client, settings)
    jobs = JobStore.from_settings(settings)
    with worker_for(settings, log_dir / "bench-worker.log") as app:
        # The first pass is not timed: the worker loads its models with its first file, and a node started
        # minutes before compiles its indexing code as it goes (its JIT), which took a third of a first ingest.
        say(f"ingesting {len(files)} files into {settings.opensearch.index_alias} to warm up (not timed)")
        started = time.perf_counter()
        wait_for_job(jobs, queue_files(app, jobs, files, force=True), INGEST_TIMEOUT)
        warm_up = time.perf_counter() - started
        say(f"ingesting {len(files)} files into {settings.opensearch.index_alias} again, timed")
        started = time.perf_counter()
        job_id = queue_files(app, jobs, files, force=True)
        status = wait_for_job(jobs, job_id, INGEST_TIMEOUT)
        wall = time.perf_counter() - started
    if not status.finished:
        raise RuntimeError(f"ingest job {job_id} did not finish within {INGEST_TIMEOUT} s")
    for error in status.errors:
        say(f"ingest error: {error['file']}: {error['reason']}")
    # The re-ingest's old evidence merged away before any search, as the stack's beat does in the background
    # (``workers.maintenance``): the searches then meet the index as it serves, not the merges that follow an ingest.
    started = time.perf_counter()
    left = merge_deleted_away(client, settings.opensearch.index_alias)
    kept = f"{left} left (the shard's retention lease held them)" if left else "none left"
    say(f"the merge after the re-ingest took {time.perf_counter() - started:.0f} s; deleted evidence: {kept}")
    items = indexed_evidence(client, settings.opensearch.index_alias)
    views = embedded_views(settings)
    texts = [text for _i, _view, text in view_texts(items, views)]
    embedder = Embedder(settings.embedding)
    embedder.embed(["warm up"])  # loading the model is not the embedder's work on the texts
    say(f"embedding the {len(texts)} texts the worker embedded, in this process")
    started = time.perf_counter()
    embedder.embed(texts)
    embedder_seconds = time.perf_counter() - started
    leaves = ([passage_text(e.title, e.heading_path, e.text) for e in items if e.sentences]
              if settings.search.multilingual else [])
    multilingual = MultilingualEmbedder(settings.embedding.threads)  # as the worker runs it
    if leaves:
        multilingual.question("warm up")  # loading the model is not its work on the leaves
    started = time.perf_counter()
    multilingual.passages(leaves)
    return IngestFigures(files=len(files), pages=count_pages(files), evidence=len(items), failed=status.failed,
                         wall_seconds=wall, warm_up_seconds=warm_up, embedded_texts=len(texts), views=views,
                         embedder_seconds=embedder_seconds,
                         multilingual_texts=len(leaves), multilingual_seconds=time.perf_counter() - started)


# -- search ----------------------------------------------------------------------------------------
def run_clients(base: str, queries: list[str], mode: str, clients: int,
                searches: int) -> tuple[list[float], int, float, list[dict[str, StageFigures]]]:
    """``searches`` searches shared by ``clients`` threads; (latencies in ms, errors, wall seconds, each search's
    stages as its ``Server-Timing`` header gives them)."""
    latencies: list[float] = []
    stages: list[dict[str, StageFigures]] = []
    errors = [0]
    lock = threading.Lock()

    def client(number: int) -> None:
        session = requests.Session()
        for n in range(number, searches, clients):
            query = queries[(n * (number + 1)) % len(queries)]  # each client its own order through the questions
            started = time.perf_counter()
            try:
                answer = session.get(f"{base}/api/search", params={"q": query, "mode": mode, "k": RESULTS_K},
                                     timeout=HTTP_TIMEOUT)
                ok = answer.status_code == 200
            except requests.RequestException:
                ok = False
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                if ok:
                    latencies.append(elapsed)
                    stages.append(parse_server_timing(answer.headers.get("Server-Timing", "")))
                else:
                    errors[0] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0], time.perf_counter() - started, stages


def measure_search(base: str, api_pid: int | None, node_pid: int | None, index: str, evidence: int,
                   queries: list[str], searches: int) -> list[SearchFigures]:
    """Each mode's rows, after a warm-up that asks each question once at one client: the rows measure a node and
    an API in service, not the node's first minutes on a new index (its compiler and caches) or an API's first
    sight of a question (its embedding and word look-ups). The warm-up's own latencies are kept and printed."""
    out = []
    for mode in MODES:
        first, _errors, _wall, _stages = run_clients(base, queries, mode, 1, len(queries))
        for clients in CLIENTS:
            node, api, node_minutes = (process_tree_cpu_seconds(node_pid), process_tree_cpu_seconds(api_pid),
                                       process_minutes(node_pid))
            latencies, errors, wall, stages = run_clients(base, queries, mode, clients, searches)
            done = max(len(latencies), 1)
            out.append(SearchFigures(index, evidence, mode, clients, searches, errors, latencies, wall, stages,
                                     (process_tree_cpu_seconds(node_pid) - node) * 1000 / done,
                                     (process_tree_cpu_seconds(api_pid) - api) * 1000 / done,
                                     first if clients == CLIENTS[0] else [], node_minutes))
            say(f"{index} {mode} x{clients}: p95 {out[-1].percentile(95):.0f} ms")
    return out


def build_scale_index(client, settings: Settings, target: int) -> tuple[Settings, int]:
    """A throwaway alias of about ``target`` evidence: the alias's evidence, then copies of it under new ids,
    doc ids and URLs and without their near-duplicate signature (so grouping, ranking and the fold of
    near-duplicates see distinct pages, as a real corpus mostly has); returns its settings and its size."""
    from core.index import init_index, merge_segments

    source_alias = settings.opensearch.index_alias
    scale = replace(settings, opensearch=replace(settings.opensearch, index_alias=source_alias + SCALE_SUFFIX))
    drop_scale_index(client, scale)
    init_index(client, scale)
    have = client.count(index=source_alias)["count"]
    if not have:
        raise ValueError(f"--scale: the alias {source_alias} holds no evidence to copy")
    copies = max(1, math.ceil(target / have))
    say(f"building {scale.opensearch.index_alias}: {copies} copies of {have} evidence")
    script = ("if (params.n > 0) { String s = '-' + params.n; ctx._id = ctx._id + s; ctx._source.id = ctx._id; "
              "ctx._source.doc_id = ctx._source.doc_id + s; ctx._source.url = ctx._source.url + '#copy' + s; "
              "ctx._source.page_url = ctx._source.url; ctx._source.remove('page_simhash'); }")
    for n in range(copies):
        done = client.reindex(body={"source": {"index": source_alias}, "dest": {"index": scale.opensearch.index_alias},
                                    "script": {"lang": "painless", "source": script, "params": {"n": n}}},
                              wait_for_completion=True, request_timeout=REINDEX_TIMEOUT)
        if done.get("failures"):
            raise RuntimeError(f"copying into {scale.opensearch.index_alias} failed: {done['failures'][:1]}")
    merge_segments(client, scale.opensearch.index_alias)  # as ``evident reindex`` leaves an index
    return scale, client.count(index=scale.opensearch.index_alias)["count"]


def drop_scale_index(client, scale: Settings) -> None:
    alias = scale.opensearch.index_alias
    client.indices.delete(index=f"{alias}-*", ignore_unavailable=True)
    client.indices.delete_index_template(name=alias, ignore=404)


# -- the run ---------------------------------------------------------------------------------------
def format_report(ingest: IngestFigures | None, searches: list[SearchFigures]) -> str:
    cores = len(os.sched_getaffinity(0))
    lines = [f"evident bench on this machine: {cores} cores, Python {sys.version.split()[0]}"]
    if ingest:
        lines += [
            f"ingest: {ingest.files} files, {ingest.pages} pages, {ingest.evidence} evidence ({ingest.failed} files "
            f"failed) in {ingest.wall_seconds:.1f} s = {ingest.evidence / ingest.wall_seconds:.1f} evidence/s, "
            f"{ingest.pages / ingest.wall_seconds:.2f} pages/s (the untimed first pass before it: "
            f"{ingest.warm_up_seconds:.1f} s)",
            f"embedder: {ingest.embedded_texts} texts (views {', '.join(ingest.views)}) in "
            f"{ingest.embedder_seconds:.1f} s = {ingest.embedder_seconds / ingest.wall_seconds:.0%} of the ingest",
            f"multilingual embedder: {ingest.multilingual_texts} leaf evidence in {ingest.multilingual_seconds:.1f} s "
            f"= {ingest.multilingual_seconds / ingest.wall_seconds:.0%} of the ingest",
            f"ingest wall / the embedders' own time = "
            f"{ingest.wall_seconds / (ingest.embedder_seconds + ingest.multilingual_seconds):.2f}",
        ]
    header = ("index", "evidence", "mode", "clients", "searches", "errors", "p50 ms", "p95 ms", "p99 ms", "searches/s",
              "OpenSearch CPU ms", "API CPU ms")
    rows = [(s.index, str(s.evidence), s.mode, str(s.clients), str(s.searches), str(s.errors),
             *(f"{s.percentile(p):.0f}" for p in PERCENTILES), f"{len(s.latencies_ms) / s.wall_seconds:.1f}",
             *("–" if math.isnan(ms) else f"{ms:.1f}" for ms in (s.opensearch_cpu_ms, s.api_cpu_ms)))
            for s in searches]
    first = [f"{s.index} {s.mode} p50 {percentile(s.first_asked_ms, 50):.0f} ms, p95 "
             f"{percentile(s.first_asked_ms, 95):.0f} ms" for s in searches if s.first_asked_ms]
    if first:
        lines.append("each question asked once first, at 1 client (the warm-up, not in the rows): " + "; ".join(first))
    ages = [s.node_minutes for s in searches if not math.isnan(s.node_minutes)]
    if ages:
        young = min(ages) < SETTLED_NODE_MINUTES
        lines.append(f"the OpenSearch node had run {min(ages):.0f} minutes when the searches began" + (
            f" (in its first {SETTLED_NODE_MINUTES} minutes its JIT compiles the search code as it runs, and a search "
            "costs it up to several times the CPU)" if young else ""))
    return "\n".join(lines + [format_table(header, rows)])


def format_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A Markdown table, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(header, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    return "\n".join(lines + ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in rows])


def run(settings: Settings, corpus: list[str], questions: Path, searches: int, scale: int, api: str | None,
        ingest: bool, log_dir: Path) -> tuple[IngestFigures | None, list[SearchFigures]]:
    """Ingest (unless told not to), search the alias, then the scale index when asked; the figures of each."""
    from core.index import connect

    queries = load_queries(questions)
    client = connect(settings)
    figures = measure_ingest(settings, client, corpus, log_dir) if ingest else None
    node_pid = local_node_pid(client, settings)
    log_index = f"evident-searchlog-bench-{os.getpid()}"  # the bench's searches stay out of the real log
    searchlog_env = {"EVIDENT_OPENSEARCH_SEARCHLOG_INDEX": log_index}
    try:
        evidence = client.count(index=settings.opensearch.index_alias)["count"]
        with api_for(settings, api, log_dir / "bench-api.log", **searchlog_env) as (base, api_pid):
            results = measure_search(base, api_pid, node_pid, "bench", evidence, queries, searches)
        if scale:
            scaled, size = build_scale_index(client, settings, scale)
            try:
                with api_for(scaled, None, log_dir / "bench-api-scale.log", **searchlog_env) as (base, api_pid):
                    results += measure_search(base, api_pid, node_pid, "scale", size, queries, searches)
            finally:
                drop_scale_index(client, scaled)
    finally:
        client.indices.delete(index=log_index, ignore_unavailable=True)
    return figures, results
