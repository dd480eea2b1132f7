"""Queueing files for the worker and following the job: what ``evident ingest``, the admin's retry and the
tests use.

A task carries a file's bytes, never a path: the worker may run on another machine that has only the broker,
Redis and OpenSearch. The submitting side reads each file with its side information (``workers.folder.load``:
URL, title, language, ACL from the manifest, the users it mentions) and ``pack`` puts it in the task: bytes up to
``[transfer] inline_max_bytes`` inline (base64 in the task's JSON), larger ones under a Redis key with an
expiry that the worker reads and deletes (``unpack``, ``content_tokens``). A file over ``max_file_bytes`` or
one that cannot be read is recorded as failed on its job, not sent; what the folder's side files or the walk
of the folder got wrong is recorded on the job too. A back-of-book index travels with the files it points to
(``workers.grounding.index_targets``). A file's registry key names its source (``CorpusFile.key``); a file
registered under a key it had before (``CorpusFile.former_keys``: its name alone, or its folder's absolute path
as its source) is moved to its key when queued, so the worker writes it under its new document id and deletes
the old one's evidence: ids move at the next ingest. A folder source's name is held by one folder at a time
(``claim_sources``).
"""
from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Callable

from celery import Celery
from opensearchpy import OpenSearch

from core.index import delete_documents
from core.jobs import JobStatus, JobStore, Settled
from core.settings import Settings, TransferConfig
from ingest.sources import SourceFile
from workers.folder import CorpusError, CorpusFile, FolderNotes, load, vanished
from workers.grounding import index_targets

POLL_SECONDS = 0.5  # how often a followed job is read: a progress bar that moves, little load on Redis
INDEX_SUFFIXES = (".pdf", ".csv")  # the files that may be a back-of-book index (workers.grounding)


def pack(file: SourceFile, jobs: JobStore, transfer: TransferConfig) -> dict:
    """A file as task JSON: its side information, and its bytes inline or as the token of a Redis key.

    Raises ValueError naming the file and the limit when it is larger than ``transfer.max_file_bytes``.
    """
    size = len(file.data)
    if size > transfer.max_file_bytes:
        raise ValueError(f"{file.name}: {size} bytes, over the limit of {transfer.max_file_bytes} "
                         f"([transfer] max_file_bytes, EVIDENT_TRANSFER_MAX_FILE_BYTES); not sent to the worker")
    message = file.side_information()
    if size <= transfer.inline_max_bytes:
        message["inline"] = base64.b64encode(file.data).decode("ascii")
    else:
        message["token"] = jobs.put_content(file.data, transfer.redis_ttl_seconds)
    return message


def unpack(message: dict, jobs: JobStore) -> SourceFile:
    """The file a task carries; ValueError naming it when its bytes expired in Redis before a worker came."""
    side = {key: value for key, value in message.items() if key not in ("inline", "token")}
    if "token" not in message:
        return SourceFile(**side, data=base64.b64decode(message["inline"]))
    data = jobs.content(message["token"])
    if data is None:
        raise ValueError(f"{message['name']}: its bytes expired in Redis before a worker took the task "
                         f"([transfer] redis_ttl_seconds); ingest it again")
    return SourceFile(**side, data=data)


def content_tokens(messages: list[dict]) -> list[str]:
    """The Redis keys (tokens) of the messages' bytes, for the worker to delete once it has used them."""
    return [m["token"] for m in messages if "token" in m]


def file_task(item: CorpusFile, jobs: JobStore, settings: Settings,
              notes: FolderNotes | None = None) -> tuple[dict, list[str]]:
    """The task arguments of one file (the file and, for an index, its targets), and the problems of targets
    that could not be sent; raises OSError or ValueError naming the file when the file itself cannot be."""
    try:
        file = load(item, settings.ingest.files_base_url, notes)
    except OSError as exc:
        raise OSError(f"{item.name}: cannot read ({exc.strerror or exc})") from exc
    targets, problems = (index_targets(item, file, settings.ingest.files_base_url, notes)
                         if item.path.suffix.lower() in INDEX_SUFFIXES else ([], []))
    packed = pack(file, jobs, settings.transfer)  # before the targets: a file not sent leaves no bytes in Redis
    packed_targets = []
    for target in targets:
        try:
            packed_targets.append(pack(target, jobs, settings.transfer))
        except ValueError as exc:
            problems.append(f"index target {exc}")
    return {"file": packed, "targets": packed_targets}, problems


def queue_files(app: Celery, jobs: JobStore, files: list[CorpusFile], force: bool = False,
                problems: list[CorpusError] | None = None) -> str:
    """One job, one task per file carrying its bytes; returns the job id.

    A file that cannot be read or is over the size limit is recorded as failed on the job (with its path, for
    a retry), so the job still finishes and says why; the others go on. ``problems`` (what ``discover`` could
    not take: a missing path, a symlink out of the folder) and what is wrong in a folder's manifest.json or
    users.json are recorded on the job as errors of their paths, outside its count of files.
    """
    settings: Settings = app.evident_settings
    job_id = jobs.create(len(files))
    jobs.remember_origins(job_id, {item.name: str(item.path) for item in files})
    notes = FolderNotes()
    for problem in problems or []:  # no path to retry from: not a file of the job
        jobs.record_error(job_id, problem.path, problem.reason)
    for item in sorted(files, key=size_of, reverse=True):
        move_former_keys(jobs, item)
        try:
            arguments, target_problems = file_task(item, jobs, settings, notes)
        except (OSError, ValueError) as exc:
            jobs.record_error(job_id, item.name, str(exc), str(item.path))
            if jobs.count(job_id, "failed") == Settled.KEYWORDS_DUE:  # the others were written meanwhile
                app.send_task("evident.refresh_keywords", kwargs={"job": job_id})
            continue
        finally:
            for problem in notes.take_problems():
                jobs.record_error(job_id, problem.path, f"warning: {problem.reason}")
        _send(app, jobs, job_id, item, arguments, target_problems, force)
    return job_id


def move_former_keys(jobs: JobStore, item: CorpusFile) -> None:
    """The file's registry entries under the keys it had before moved to its key (see the module's docstring)."""
    for former in item.former_keys:
        jobs.rename_file(former, item.key)


def claim_sources(jobs: JobStore, paths: list[str], files: list[CorpusFile], source: str = "",
                  taken: frozenset[str] = frozenset()) -> list[str]:
    """Each source root of an ingest (the given folders, the folders of the given files) made the holder of
    its source's name; returns a sentence for each root that may not have it, and nothing is to be ingested or
    pruned then.

    A name is held by one folder: a second folder of the same name (another ``docs``) would overwrite the
    first one's files of the same relative names and prune its others, so it is refused unless the name is given
    (``source``, ``--source``: the folder takes the name over) or the folder holding it is gone from this disk (a
    folder moved). ``taken`` are names no folder may have (the live sources').
    """
    roots = {item.root: item.source for item in files}
    roots |= {Path(raw).resolve(): source or Path(raw).resolve().name for raw in paths if Path(raw).is_dir()}
    refused, named_by = [], {}
    for root, name in sorted(roots.items()):
        if name in taken:
            refused.append(f"{root}: its source name {name!r} is that of a live source (evident sources list); "
                           f"give the folder another with --source NAME")
            continue
        if name in named_by:
            refused.append(f"{root}: its source name {name!r} is that of {named_by[name]} in the same run; "
                           f"ingest each folder of that name on its own with --source NAME")
            continue
        named_by[name] = root
        holder = jobs.claim_source(name, str(root), take=bool(source))
        if holder != str(root) and not Path(holder).is_dir():
            holder = jobs.claim_source(name, str(root), take=True)  # the folder holding it moved or is gone
        if holder != str(root):
            refused.append(f"{root}: its source name {name!r} is that of the folder {holder} already, whose "
                           f"documents it would overwrite; ingest it with --source NAME, a name of its own")
    return refused


def size_of(item: CorpusFile) -> int:
    """A file's bytes, the order ``queue_files`` sends files in, biggest first: a file's work grows with its size
    (a scanned PDF's OCR most), and the one sent last finished alone on one core while the others had nothing
    left. The bench's ingest on 2 cores: 20.3 -> 18.5 s. A file that cannot be read sorts last (its error is
    recorded as it is sent)."""
    try:
        return item.path.stat().st_size
    except OSError:
        return -1


def queue_again(app: Celery, jobs: JobStore, item: CorpusFile) -> str:
    """One file read again and queued in a job of its own, forced (the admin's retry); returns the job id. It is
    read through the same gate as at its first ingest (``workers.path_gate``), as it is now on the disk, as a file
    of the source its folder holds (``claim_sources``), so it keeps its document id.

    Raises OSError or ValueError (``PathRefused`` when the gate refuses it) naming the file when it cannot be
    read or sent, before any job exists.
    """
    item.source = jobs.source_of(str(item.root)) or item.source
    move_former_keys(jobs, item)
    arguments, problems = file_task(item, jobs, app.evident_settings)
    job_id = jobs.create(1)
    jobs.remember_origins(job_id, {item.name: str(item.path)})
    _send(app, jobs, job_id, item, arguments, problems, force=True)
    return job_id


def _send(app: Celery, jobs: JobStore, job_id: str, item: CorpusFile, arguments: dict, problems: list[str],
          force: bool) -> None:
    for problem in problems:
        jobs.record_error(job_id, item.name, f"warning: index term: {problem}", str(item.path))
    app.send_task("evident.ingest_file", kwargs={"job_id": job_id, "name": item.name, "force": force, **arguments})


def prune(jobs: JobStore, client: OpenSearch, settings: Settings, paths: list[str],
          found: list[CorpusFile], source: str = "") -> dict[str, int]:
    """Remove from the index the files once ingested from these folders (of the source ``source``, by default
    each folder's own name) that are gone from them; the files of other sources (another folder, even with files
    of the same names) are not touched.

    Returns each removed file's name (the folder's name + its relative path) with the number of evidence removed.
    """
    ingested = jobs.ingested_files()
    removed = {}
    for key, name in vanished(list(ingested), paths, found, source).items():
        removed[name] = delete_documents(client, settings, ingested[key])
        jobs.documents_deleted(ingested[key])
        jobs.forget_file(key)
    return removed


def wait_for_job(jobs: JobStore, job_id: str, timeout: float,
                 on_progress: Callable[[JobStatus], None] | None = None) -> JobStatus:
    deadline = time.monotonic() + timeout
    while True:
        status = jobs.status(job_id)
        if status is None:
            raise KeyError(f"no ingest job {job_id!r}")
        if on_progress:
            on_progress(status)
        if status.finished or time.monotonic() > deadline:
            return status
        time.sleep(POLL_SECONDS)
