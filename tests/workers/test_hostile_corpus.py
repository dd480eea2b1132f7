"""The hostile corpus (``tests.workers.hostile_corpus``) ingested as a user would, through a real ``evident
worker`` process with its default limits but a lower cap on a document's text (``CAPS_ENV``): each file gets the
outcome a user should see, every record is a sentence naming its file, nothing outside the corpus is read or
indexed, the jobs finish, the worker's memory stays bounded, and a worker killed mid-job loses and repeats
nothing."""
from __future__ import annotations

import os
import re
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import TEST_ALIAS, TEST_REDIS_DB
from tests.workers.hostile_corpus import (ACL_GROUP, CANARY, EITHER, INDEXED, PAIRED, Case, html, restrict_acl_site,
                                          write_big_file, write_corpus)
from tests.workers.worker_process import WorkerProcess, isolated_settings

HOSTILE_ALIAS = f"hostile-{TEST_ALIAS}"  # not under TEST_ALIAS-*: index templates may not overlap
# Its own database: the session's in-thread worker (when other tests started it) must not take these tasks.
HOSTILE_REDIS_DB = int(os.environ.get("EVIDENT_TEST_HOSTILE_REDIS_DB", (TEST_REDIS_DB + 5) % 16))
SOURCES = ("hostile", "c1/site", "c2/site", "acl-site")  # each given to the ingest on its own, as a user would


def source_name(folder: str) -> str:
    """The ``--source`` a user gives each folder: ``c1/site`` and ``c2/site`` share a folder name, which
    ``evident ingest`` refuses to give two folders."""
    return folder.replace("/", "-")
# Seconds a job may go without any file finishing before it counts as stalled: no task outlives the worker's
# hard time limit, and a killed one is recorded within the visibility margin the app adds to it.
QUIET_MARGIN = 120
# The most the worker's process group (main process and its two pool children) may hold while ingesting the
# corpus: each child holds the embedder and lemmatizer (1.1-1.7 GB here) and parses and embeds one capped large
# file at a time (up to 0.9 GB measured in process), the main process 0.1-0.3 GB: at most about 5 GB. Peaks
# measured here: 3.8-4.1 GB; without the caps the 20 MB page alone took one process from 1.4 to 4.1 GB
# and went on growing until killed, which would pass this bound by far.
RSS_PEAK_BOUND = 5 * 1024 ** 3
MIN_SENTENCE_WORDS = 5  # "<file>: <what> ; <what was done>" has at least this many words; "KeyError: 'file'" has 2
RAW_EXCEPTION = re.compile(r"^\s*(?:warning:\s*)?[\w.]*(?:Error|Exception|Exit|Interrupt)\b\s*[:(]|Traceback")
DONE_WORDS = re.compile(r"skip|not indexed|refus|not sent|ignor|left out|truncat|cut|clip|flatten|partial|"
                        r"dropped|removed|kept|instead|stopped", re.IGNORECASE)
SEARCHED_FIELDS = ["text", "title", "context", "summary", "heading_path", "breadcrumb", "keywords", "lemmas"]
# The cap a document's text is cut at, lowered from the default (1,000,000 characters): a capped file is cut and
# said so by the same code at any cap (the default's value is held in tests/ingest/test_limits.py), and the 20 MB
# page and the 4 MB line then embed 20,000 characters, not the 1,000,000 that took the worker's two processes
# minutes of embedding. Every other file of the corpus holds less text than that. The page is still read whole
# first, so the memory bound below still measures what 20 MB of HTML costs.
CAPS_ENV = {"EVIDENT_INGEST_MAX_DOCUMENT_CHARS": "20000"}
# A lost task comes back 25 s after it was taken; a file of the killed job (none of the big pages) takes under a
# second of one core, so even on busy cores none reaches the soft limit. No sentence view: the test is about what
# a kill loses or repeats.
CRASH_ENV = {"EVIDENT_WORKER_SOFT_TIME_LIMIT": "15", "EVIDENT_WORKER_TIME_LIMIT": "20",
             "EVIDENT_WORKER_VISIBILITY_TIMEOUT": "25", "EVIDENT_SEARCH_SENTENCE_WEIGHT": "0"}
PIPE_LOOK_SECONDS = 1  # how often the named pipes are looked at: a blocked submitter is freed within a second
KILL_AFTER = 5  # files finished before the worker is killed: mid-job, with tasks taken and not acknowledged
# Left out of the job whose worker is killed: the big pages' embedding takes minutes and tells nothing of a kill.
NOT_KILLED_IN = "hostile/html/"
OLD = 3 * 24 * 3600  # an access time this far back is updated by any read, also on a relatime mount


class Stalled(Exception):
    """A followed job went ``quiet`` seconds without a file finishing."""


def follow(jobs, job_id: str, quiet: float):
    """The job's status once it finished, or as it was after ``quiet`` seconds without a file finishing."""
    from workers.submit import wait_for_job

    seen: list = [None, time.monotonic(), None]

    def watch(status):
        progress = settled(status)
        if progress != seen[0]:
            seen[0], seen[1] = progress, time.monotonic()
        seen[2] = status
        if time.monotonic() - seen[1] > quiet:
            raise Stalled()

    try:
        return wait_for_job(jobs, job_id, float("inf"), on_progress=watch)
    except Stalled:
        return seen[2]


class PipeWatch:
    """Notices the submitter blocking on a named pipe of the corpus and frees it.

    Opening a pipe to read waits for a writer; a submitter that opens one stalls forever. A thread tries to open
    each pipe for writing without waiting, which succeeds only while a reader waits on it; it then closes it at
    once, so the reader sees an empty file and goes on, and the pipe is noted in ``blocked``.
    """

    def __init__(self, pipes: list[Path]):
        self.pipes = pipes
        self.blocked: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "PipeWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(PIPE_LOOK_SECONDS):
            for pipe in self.pipes:
                try:
                    os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:  # ENXIO: nobody reads it
                    continue
                self.blocked.add(str(pipe))


def pipes_in(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if stat.S_ISFIFO(path.lstat().st_mode)]


def settled(status) -> int:
    """Files of the job with an outcome."""
    return status.done + status.skipped + status.failed + status.cancelled


@dataclass
class Run:
    root: Path
    cases: list[Case]
    statuses: dict = field(default_factory=dict)  # source -> its job's JobStatus
    records: list[dict] = field(default_factory=list)  # {file, reason, path}: the jobs' and discover's
    outside_atimes: dict = field(default_factory=dict)  # outside file -> access time before the ingest
    outcomes: dict = field(default_factory=dict)  # path of a queued file -> its outcome on its job
    blocked: set = field(default_factory=set)  # named pipes the submitter blocked on (``PipeWatch``)


def suffix_of(case: Case, cases: list[Case]) -> str:
    """The shortest tail of the case's path no other case's path ends with: what a record names it by."""
    parts = case.path.split("/")
    for n in range(1, len(parts) + 1):
        tail = "/".join(parts[-n:])
        if not any(o.path != case.path and ("/" + o.path).endswith("/" + tail) for o in cases):
            return tail
    return case.path


def names(record: dict, tail: str) -> bool:
    """True when the record's file name or path is ``tail`` or ends with it after a ``/`` or ``:``."""
    values = (str(record.get("file") or ""), str(record.get("path") or ""))
    return any(value == tail or value.endswith(("/" + tail, ":" + tail)) for value in values)


def ingest_sources(worker: WorkerProcess, jobs, run: Run, sources, quiet: float, force: bool = False) -> None:
    """Each source discovered, queued and followed as ``evident ingest <source>`` does; what it says goes into
    ``run``."""
    with PipeWatch(pipes_in(run.root)) as watch:
        for source in sources:
            queue_source(worker, jobs, run, source, quiet, force)
    run.blocked |= watch.blocked


def queue_source(worker: WorkerProcess, jobs, run: Run, source: str, quiet: float, force: bool) -> None:
    from workers.folder import discover
    from workers.submit import queue_files

    found, errors, skipped = discover([str(run.root / source)], source_name(source))
    run.records += [{"file": str(e.path), "path": str(e.path), "reason": e.reason} for e in errors]
    run.records += [{"file": str(p), "path": str(p), "reason": ""} for p in skipped]
    job_id = queue_files(worker.app, jobs, found, force=force)
    run.statuses[source] = follow(jobs, job_id, quiet)
    run.records += run.statuses[source].errors
    run.outcomes.update({str(item.path): jobs.outcome(job_id, item.name) for item in found})


@pytest.fixture(scope="module")
def hostile_settings(settings, stores):
    return isolated_settings(settings, stores, HOSTILE_ALIAS, HOSTILE_REDIS_DB)


@pytest.fixture(scope="module")
def hostile_jobs(hostile_settings):
    from core.jobs import JobStore

    return JobStore.from_settings(hostile_settings)


@pytest.fixture(scope="module")
def hostile_searcher(hostile_settings, stores):
    from search.searcher import Searcher

    return Searcher.from_settings(hostile_settings, stores)


@pytest.fixture(scope="module")
def hostile_worker(hostile_settings, stores, worker_processes) -> WorkerProcess:
    """The worker with its default limits but ``CAPS_ENV``, running."""
    return worker_processes.get(hostile_settings, CAPS_ENV)


@pytest.fixture(scope="module")
def hostile_run(hostile_worker, hostile_jobs, hostile_settings, stores, tmp_path_factory) -> Run:
    """The corpus written, its outside files' access times set far back, each source ingested once; the
    20 MB file is removed after."""
    root = tmp_path_factory.mktemp("hostile")
    run = Run(root, write_corpus(root))
    big = next(case for case in run.cases if case.path.endswith("huge.html"))
    write_big_file(root, big)
    now = time.time()
    for path in sorted((root / "outside").iterdir()):
        os.utime(path, (now - OLD, now - OLD / 3))  # older than the content: a read on relatime moves it
        run.outside_atimes[path] = path.stat().st_atime
    ingest_sources(hostile_worker, hostile_jobs, run, SOURCES, hostile_settings.worker.time_limit + QUIET_MARGIN)
    (root / big.path).unlink()
    stores.indices.refresh(index=hostile_settings.opensearch.index_alias)
    return run


def hits(stores, settings, word: str) -> list[dict]:
    """The evidence holding ``word`` in any searched text field."""
    result = stores.search(index=settings.opensearch.index_alias, body={
        "query": {"multi_match": {"query": word, "type": "phrase", "fields": SEARCHED_FIELDS}}, "size": 100,
        "_source": ["doc_id", "url", "acl"]})
    return [hit["_source"] for hit in result["hits"]["hits"]]


def problems(case: Case, run: Run, found_of) -> tuple[str, list[str]]:
    """What the ingest did with the case's file (a line for the report) and how that differs from what it
    expects; ``found_of(marker)`` tells whether a marker word is in the index."""
    found = found_of(case.marker)
    tail = suffix_of(case, run.cases)
    own = [r for r in run.records if names(r, tail)]
    if case.expect == INDEXED and case.reason:  # a warning about a side file may name the manifest instead
        manifest = "/".join([*case.path.split("/")[:-1], "manifest.json"])
        own += [r for r in run.records if names(r, manifest) or manifest in r.get("reason", "")]
    matching = [r for r in own if case.reason and re.search(case.reason, r.get("reason", ""), re.IGNORECASE)]
    outcome = [value for path, value in run.outcomes.items() if names({"path": path}, tail)]
    seen = (f"{'indexed' if found else 'not indexed'}, outcome {outcome[0] if outcome else 'not queued'}; records: "
            + (" | ".join(repr(r.get("reason", "")[:160]) for r in own) or "none"))
    wrong = ["the submitter blocked opening it, a named pipe"] if str(run.root / case.path) in run.blocked else []
    if case.expect == INDEXED:
        if not found:
            wrong.append("it is not searchable")
        if case.reason and not matching:
            wrong.append(f"no warning matching /{case.reason}/")
        if not case.reason and [r for r in own if not r.get("reason", "").startswith("warning:")]:
            wrong.append("an error was recorded for a file that should be indexed as it is")
    elif case.expect == PAIRED:
        pair = [other for other in run.cases if other.expect == PAIRED and other.reason == case.reason]
        if sum(found_of(other.marker) for other in pair) != 1:
            wrong.append(f"not exactly one of {[other.path for other in pair]} is in the index")
        if not found and not matching:
            wrong.append(f"no record matching /{case.reason}/")
    elif case.expect == EITHER:
        if not matching:
            wrong.append(f"no record matching /{case.reason}/ ({'indexed silently' if found else 'lost silently'})")
    else:
        if found:
            wrong.append("it is in the index")
        if not matching:
            wrong.append(f"no record matching /{case.reason}/")
    return seen, [f"expected {case.expect}: {'; '.join(wrong)} -- seen: {seen}"] if wrong else []


def case_id(case: Case) -> str:
    return case.path


def corpus_cases() -> list[Case]:
    """The cases as the generator writes them, for parametrizing (written once into a throwaway folder)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        return write_corpus(Path(folder))


CASES = corpus_cases()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_each_file_gets_the_outcome_a_user_should_see(case, hostile_run, stores, hostile_settings):
    seen, wrong = problems(case, hostile_run, lambda marker: bool(hits(stores, hostile_settings, marker)))
    print(f"{case.path}: expected {case.expect} -- seen: {seen}")  # the per-case table of the run's report
    assert not wrong, f"{case.path} ({case.why}): {wrong}"


def test_every_record_names_its_file_and_says_what_was_wrong_and_done(hostile_run):
    bad = []
    for record in hostile_run.records:  # read as the CLI and the admin view show it: "<file>: <reason>"
        reason, name = record.get("reason", ""), Path(str(record.get("file") or "")).name
        if (not reason or not name or RAW_EXCEPTION.search(reason)
                or len(reason.split()) < MIN_SENTENCE_WORDS or not DONE_WORDS.search(reason)):
            bad.append(f"{record.get('file')}: {reason[:200]!r}")
    assert not bad, f"{len(bad)} of {len(hostile_run.records)} records are no sentence naming the file and " \
                    f"what was done:\n" + "\n".join(bad)


def test_nothing_outside_the_corpus_is_read_or_indexed(hostile_run, stores, hostile_settings, tmp_path):
    control = tmp_path / "control.txt"
    control.write_text("read me")
    now = time.time()
    os.utime(control, (now - OLD, now - OLD / 3))
    before = control.stat().st_atime
    control.read_bytes()
    assert control.stat().st_atime != before, "this filesystem does not record reads: the check below means nothing"
    moved = [str(path) for path, atime in hostile_run.outside_atimes.items() if path.stat().st_atime != atime]
    assert not moved, f"files outside the corpus were read by the ingest: {moved}"
    assert not hits(stores, hostile_settings, CANARY), "the outside canary is in the index"


def test_every_result_link_is_a_web_link(hostile_run, stores, hostile_settings):
    from opensearchpy import helpers

    links = {hit["_source"].get(key) for hit in helpers.scan(stores, index=hostile_settings.opensearch.index_alias,
                                                            _source=["url", "page_url"]) for key in ("url", "page_url")}
    assert not [link for link in links if link and not re.match(r"https?://[^/\s]+", link)]


def test_the_jobs_finish_and_the_worker_memory_stays_bounded(hostile_run, hostile_worker):
    unfinished = {source: status for source, status in hostile_run.statuses.items() if not status.finished}
    assert not unfinished, f"jobs stalled (no file finished in the hard time limit + {QUIET_MARGIN} s): {unfinished}"
    over = {s: st for s, st in hostile_run.statuses.items() if settled(st) != st.total}
    assert not over, f"files counted more than once: {over}"
    peak = hostile_worker.peak_rss_bytes
    print(f"worker RSS before any task {hostile_worker.idle_rss_bytes / 2**20:.0f} MiB, peak {peak / 2**20:.0f} MiB")
    assert peak <= RSS_PEAK_BOUND, f"the worker held {peak / 2**20:.0f} MiB while ingesting"


def test_good_files_are_found_by_search(hostile_run, hostile_searcher):
    from search.schema import SearchRequest

    good = [case for case in hostile_run.cases if case.path.startswith("hostile/good/")]
    missing = [case.path for case in good if not [
        hit for hit in hostile_searcher.search(SearchRequest(query=case.marker, mode="bm25")).hits
        if case.marker in hit.title + hit.snippet]]
    assert not missing, f"good files not found by searching their word: {missing}"


def test_a_manifest_acl_added_later_restricts_the_page(hostile_run, hostile_worker, hostile_jobs, hostile_searcher,
                                                        hostile_settings):
    from search.schema import SearchRequest

    page = next(case for case in hostile_run.cases if case.path == "acl-site/salaries.html")
    restrict_acl_site(hostile_run.root)
    ingest_sources(hostile_worker, hostile_jobs, Run(hostile_run.root, hostile_run.cases), ["acl-site"],
                   hostile_settings.worker.time_limit + QUIET_MARGIN)
    hostile_searcher.client.indices.refresh(index=hostile_settings.opensearch.index_alias)
    assert not hostile_searcher.search(SearchRequest(query=page.marker, mode="bm25")).hits, "still public"
    assert hostile_searcher.search(SearchRequest(query=page.marker, mode="bm25", groups=[ACL_GROUP])).hits


def test_pruning_one_source_leaves_the_other_alone(hostile_run, hostile_worker, hostile_jobs, stores,
                                                   hostile_settings):
    from workers.folder import discover
    from workers.submit import prune

    folder = hostile_run.root / "c2/site"
    (folder / "extra.html").write_bytes(html("hprunedword"))
    ingest_sources(hostile_worker, hostile_jobs, Run(hostile_run.root, hostile_run.cases), ["c2/site"],
                   hostile_settings.worker.time_limit + QUIET_MARGIN)
    stores.indices.refresh(index=hostile_settings.opensearch.index_alias)
    assert hits(stores, hostile_settings, "hprunedword"), "the extra page was not indexed"
    (folder / "extra.html").unlink()
    prune(hostile_jobs, stores, hostile_settings, [str(folder)], discover([str(folder)], "c2-site")[0], "c2-site")
    stores.indices.refresh(index=hostile_settings.opensearch.index_alias)
    assert not hits(stores, hostile_settings, "hprunedword"), "the page gone from c2/site stayed in the index"
    lost = [case.path for case in hostile_run.cases if case.path.startswith(("c1/", "c2/"))
            and not hits(stores, hostile_settings, case.marker)]
    assert not lost, f"pages of the sources gone from the index: {lost}"


def test_a_killed_worker_loses_and_repeats_nothing(hostile_run, worker_processes, hostile_jobs, stores,
                                                   hostile_settings):
    """The hostile source again (forced, but for its big pages), the worker SIGKILLed after a few files, a new
    one started: the job finishes, each file counted once, no record twice, the indexed files still found."""
    from workers.folder import discover
    from workers.submit import queue_files

    # In place of the worker with the default limits: its tasks would not come back on the short visibility timeout.
    crashing = worker_processes.get(hostile_settings, CRASH_ENV)
    found = [item for item in discover([str(hostile_run.root / "hostile")])[0]
             if not item.name.startswith(NOT_KILLED_IN)]
    with PipeWatch(pipes_in(hostile_run.root)):
        job_id = queue_files(crashing.app, hostile_jobs, found, force=True)
    while settled(status := hostile_jobs.status(job_id)) < KILL_AFTER and not status.finished:
        time.sleep(0.5)
    crashing.kill()
    try:
        crashing.start()
        status = follow(hostile_jobs, job_id, int(CRASH_ENV["EVIDENT_WORKER_VISIBILITY_TIMEOUT"]) + QUIET_MARGIN)
    finally:
        crashing.stop()
    assert status.finished, f"the job did not finish after the crash: {status}"
    assert settled(status) == status.total, f"files counted twice: {status}"
    reasons = [(r["file"], r["reason"]) for r in status.errors]
    assert len(reasons) == len(set(reasons)), "records repeated after the redelivery"
    stores.indices.refresh(index=hostile_settings.opensearch.index_alias)
    good = [case for case in hostile_run.cases if case.path.startswith("hostile/good/")]
    assert all(hits(stores, hostile_settings, case.marker) for case in good)
