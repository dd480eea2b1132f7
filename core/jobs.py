"""The Redis edge: ingest jobs, recorded errors, fingerprints for resuming, task metrics, the ingest queue's
length and the corpus keyword statistics. Only this module holds a Redis client.

Keys (``evident`` is the default prefix): ``evident:job:<id>`` (hash: total, done, skipped, failed, cancelled,
created, and ``cancel_requested`` once asked to), ``evident:job:<id>:outcomes`` (hash: file name -> its outcome,
so a redelivered task never counts twice), ``evident:job:<id>:deliveries`` (hash: file name -> times a worker
took its task),
``evident:job:<id>:errors`` (list of JSON {file, reason}), ``evident:jobs`` (sorted set of job ids by time),
``evident:fingerprint`` (hash: document name -> content+config fingerprint of its last successful ingest),
``evident:documents`` (hash: file name -> JSON list of the doc ids its evidence was written under; the names
are registry keys, ``<source>:<name>``), ``evident:document-owner`` (hash: doc id -> the key of the file whose
evidence it is: a second file of a source with the same page id is refused), ``evident:folder-sources`` (hash:
a folder source's name -> the absolute path of the folder that holds it), ``evident:evidence`` (hash: doc id ->
JSON list of the evidence ids its last write wrote, so the next write deletes the ones it no longer writes by id,
without searching for them); these five are the file registry of the default index alias, another alias has its
own under ``evident:alias:<alias>:`` (``JobStore.alias``),
``evident:errors`` (the last 1000 errors of any job), ``evident:metrics:<task>`` (hash: outcome -> count,
``seconds``), the keyword statistics of the alias's corpus (kept per alias as the file registry is):
``evident:keyword-df`` (hash: lemma -> evidence counted with it), ``evident:keyword-docs`` (the number of evidence
counted) and ``evident:keyword-counted`` (hash: doc id -> what its evidence counted into those two, zlib-compressed
JSON: a re-ingest replaces it, a deletion takes it back), ``evident:job:<id>:documents`` (set: the doc ids the
job's files wrote, for its keyword refresh; expires), ``evident:activity:<minute>`` (sorted set: ``finished``
tasks and the longest ``waiting`` ingest queue seen in that minute; expires by itself),
``evident:job:<id>:origins`` (hash: file name -> where the submitter read it, for errors and the admin's retry;
expires) and ``evident:content:<token>`` (a file's bytes on their way to a worker; expires). The Celery queue
``ingest`` is Celery's own list.
"""
from __future__ import annotations

import json
import time
import uuid
import zlib
from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Iterable

import redis
from redis.client import NEVER_DECODE

from core.settings import OpenSearchConfig, Settings
from core.urls import redact
from ingest.views import KeywordStats

PREFIX = "evident"
INGEST_QUEUE = "ingest"  # the Celery queue the worker consumes and the admin view measures
RECENT_ERRORS = 1000  # errors kept across jobs: a few runs' worth for the admin view, a bounded list
JOBS_LISTED = 20  # jobs the admin view lists: the last few runs at a glance
ERRORS_LISTED = 100  # errors the admin view lists at once, of the RECENT_ERRORS kept
JOB_ID_LENGTH = 12  # hex digits of a uuid4: unique enough for the jobs one Redis keeps, short to type
# A retry from the admin console comes within days of the failure; kept longer, the paths of every run of a
# big folder would pile up in Redis.
ORIGINS_KEPT_SECONDS = 30 * 24 * 3600
# Delete a hash field only while it holds the given value: a check and a delete in one step, which no command does.
RELEASE_OWNED = ("if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) "
                 "end return 0")
# Give a hash field to another value only while it holds the given one (ARGV: field, held value, new value).
MOVE_OWNED = ("if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HSET', KEYS[1], ARGV[1], "
              "ARGV[3]) end return 0")
ACTIVITY_BUCKET_SECONDS = 60  # one bucket a minute: an ingest run's start, stalls and end show, the history stays small
ACTIVITY_KEEP_SECONDS = 3 * 3600  # the console's "last hours"; an older bucket expires by itself, Redis stays bounded
OUTCOMES = ("done", "skipped", "failed", "cancelled")  # what can become of a file of a job
# A file's outcome in a job, counted once however often its task is delivered, with the document it wrote: in
# one Lua script, so a worker killed between marking the file and counting it cannot leave the job one short. The
# count that settles the job's last file marks its key phrases due for a refresh when its files wrote documents.
# KEYS: the job, its outcomes, its documents; ARGV: file ('' for a file never sent), outcome, seconds kept, doc id
# ('' for none), then the outcome names.
SETTLE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] ~= '' then
  if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
if ARGV[4] ~= '' then
  redis.call('SADD', KEYS[3], ARGV[4])
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
local settled = 0
for i = 5, #ARGV do settled = settled + tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0') end
if settled == tonumber(redis.call('HGET', KEYS[1], 'total')) and redis.call('SCARD', KEYS[3]) > 0 then
  redis.call('HSET', KEYS[1], 'keywords_pending', 1)
  return 2
end
return 1
"""
# A document's keyword counts replaced, if its record is still the one the caller read (else 0: read it again):
# the record and the counts change together, so a redelivered task, or two workers writing one document, count it
# once. KEYS: records, df, evidence total; ARGV: doc id, record read ('' for none), new record ('' to drop),
# evidence delta, then lemma and delta pairs. A lemma no evidence counts any more leaves the df.
REPLACE_COUNTS_SCRIPT = """
local old = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if old ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
redis.call('INCRBY', KEYS[3], ARGV[4])
for i = 5, #ARGV, 2 do
  if redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]) <= 0 then redis.call('HDEL', KEYS[2], ARGV[i]) end
end
return 1
"""


class Settled(IntEnum):
    """What counting a file's outcome did (``JobStore.count``); true when it counted."""

    NOTHING = 0  # the file had its outcome already, or there is no such job
    COUNTED = 1
    KEYWORDS_DUE = 2  # counted the job's last file: the key phrases of its documents are to be refreshed


@dataclass
class JobStatus:
    job_id: str
    total: int
    done: int
    skipped: int
    failed: int
    created: float
    errors: list[dict] = field(default_factory=list)
    cancelled: int = 0  # files skipped because the job was cancelled before a worker took them
    cancel_requested: float = 0.0  # when someone cancelled the job (epoch seconds); 0: not cancelled
    keywords_pending: bool = False  # every file counted, the key phrases of its documents not yet refreshed

    @property
    def finished(self) -> bool:
        return self.done + self.skipped + self.failed + self.cancelled >= self.total and not self.keywords_pending

    @property
    def state(self) -> str:
        """running, cancelling (asked to, a file still in a worker's hands), cancelled or finished."""
        if self.cancel_requested:
            return "cancelled" if self.finished else "cancelling"
        return "finished" if self.finished else "running"


class RedisStore:
    """A store of keys under one prefix; ``prefix`` keeps one store's keys apart from another's in the same
    Redis database."""

    def __init__(self, client: redis.Redis, prefix: str = PREFIX):
        self._redis = client
        self.prefix = prefix

    @classmethod
    def from_url(cls, url: str, prefix: str = PREFIX):
        return cls(redis.Redis.from_url(url, decode_responses=True), prefix)

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))


class JobStore(RedisStore):
    """Ingest jobs, recorded errors, fingerprints, task metrics and the keyword statistics.

    The file registry (fingerprints, the documents of each file and their owners) is that of one index alias,
    ``alias``: an alias holds its own evidence, so the same files ingested into a second alias on the same Redis
    are written there, not skipped as unchanged. ``from_settings`` takes the alias of the settings.
    """

    def __init__(self, client: redis.Redis, prefix: str = PREFIX, alias: str = OpenSearchConfig.index_alias):
        super().__init__(client, prefix)
        self.alias = alias

    @classmethod
    def from_settings(cls, settings: Settings, prefix: str = PREFIX) -> JobStore:
        """The job store of ``settings``: their Redis, the file registry of their index alias."""
        return cls(redis.Redis.from_url(settings.redis.url, decode_responses=True), prefix,
                   settings.opensearch.index_alias)

    def _registry_key(self, part: str) -> str:
        """A key of the alias's file registry. The default alias keeps the keys the registry had before each
        alias had its own (``evident:fingerprint``), so an existing installation goes on without a migration."""
        if self.alias == OpenSearchConfig.index_alias:
            return self._key(part)
        return self._key("alias", self.alias, part)

    def clear_database(self) -> None:
        """Empty this store's whole Redis database: a test session starts from nothing."""
        self._redis.flushdb()

    def ping(self) -> None:
        """Raises a redis error when Redis does not answer."""
        self._redis.ping()

    def queue_length(self) -> int:
        """Tasks waiting in the ingest queue (not those a worker is running)."""
        return self._redis.llen(INGEST_QUEUE)

    def create(self, total: int) -> str:
        job_id = uuid.uuid4().hex[:JOB_ID_LENGTH]
        now = time.time()
        self._redis.hset(self._key("job", job_id), mapping={**dict.fromkeys(OUTCOMES, 0), "total": total,
                                                           "created": now})
        self._redis.zadd(self._key("jobs"), {job_id: now})
        return job_id

    def count(self, job_id: str, outcome: str, file: str = "", doc_id: str = "") -> Settled:
        """Count ``file``'s outcome in its job, once: a task delivered again after it counted (its worker
        died before acknowledging it) counts nothing. Without ``file`` (a file never sent) it simply counts.
        ``doc_id``: the document whose evidence the file wrote and counted into the keyword statistics, kept
        with the job for its keyword refresh (``document_ids``). ``KEYWORDS_DUE`` when this counted the job's
        last file and its files wrote documents: the job is finished once ``keywords_refreshed`` is called."""
        if not job_id:
            return Settled.NOTHING
        keys = [self._key("job", job_id), self._key("job", job_id, "outcomes"), self._key("job", job_id, "documents")]
        return Settled(self._redis.eval(SETTLE_SCRIPT, len(keys), *keys, file, outcome, ORIGINS_KEPT_SECONDS, doc_id,
                                        *OUTCOMES))

    def document_ids(self, job_id: str) -> list[str]:
        """The doc ids whose evidence the job's files wrote, sorted."""
        return sorted(self._redis.smembers(self._key("job", job_id, "documents")))

    def keywords_refreshed(self, job_id: str) -> None:
        """The key phrases of the job's documents are refreshed (or could not be): the job is finished."""
        self._redis.hdel(self._key("job", job_id), "keywords_pending")

    def outcome(self, job_id: str, file: str) -> str | None:
        """What became of ``file`` in the job; None while it has no outcome yet."""
        return self._redis.hget(self._key("job", job_id, "outcomes"), file) if job_id else None

    def delivered(self, job_id: str, file: str) -> int:
        """Count one more delivery of ``file``'s task to a worker; returns how many there were."""
        if not job_id:
            return 1
        key = self._key("job", job_id, "deliveries")
        pipe = self._redis.pipeline()
        pipe.hincrby(key, file, 1)
        pipe.expire(key, ORIGINS_KEPT_SECONDS)
        return pipe.execute()[0]

    def cancel(self, job_id: str) -> JobStatus | None:
        """Mark the job cancelled: its files not yet taken by a worker are skipped and counted as cancelled.
        Returns its status (None for an unknown job); cancelling twice keeps the first time."""
        if not self._redis.exists(self._key("job", job_id)):
            return None
        self._redis.hsetnx(self._key("job", job_id), "cancel_requested", time.time())
        return self.status(job_id)

    def cancel_requested(self, job_id: str) -> bool:
        return bool(job_id) and bool(self._redis.hexists(self._key("job", job_id), "cancel_requested"))

    def record_error(self, job_id: str, file: str, reason: str, path: str = "") -> None:
        """An error (or warning) of one file; ``path`` is where the worker read it, for a retry. The file and
        the reason are redacted (``core.urls.redact``): an exception quoting a URL keeps its credentials out."""
        entry = json.dumps({"job": job_id, "file": redact(file), "reason": redact(reason), "at": time.time(),
                            "path": path})
        pipe = self._redis.pipeline()
        if job_id:
            pipe.rpush(self._key("job", job_id, "errors"), entry)
        pipe.lpush(self._key("errors"), entry)
        pipe.ltrim(self._key("errors"), 0, RECENT_ERRORS - 1)
        pipe.execute()

    def status(self, job_id: str) -> JobStatus | None:
        data = self._redis.hgetall(self._key("job", job_id))
        if not data:
            return None
        errors = [json.loads(e) for e in self._redis.lrange(self._key("job", job_id, "errors"), 0, -1)]
        return JobStatus(job_id, int(data["total"]), int(data["done"]), int(data["skipped"]), int(data["failed"]),
                         float(data["created"]), errors, int(data.get("cancelled", 0)),
                         float(data.get("cancel_requested", 0)), "keywords_pending" in data)

    def recent_jobs(self, limit: int = JOBS_LISTED) -> list[JobStatus]:
        ids = self._redis.zrevrange(self._key("jobs"), 0, limit - 1)
        return [s for s in (self.status(i) for i in ids) if s]

    def recent_errors(self, limit: int = ERRORS_LISTED) -> list[dict]:
        return [json.loads(e) for e in self._redis.lrange(self._key("errors"), 0, limit - 1)]

    def fingerprint(self, name: str) -> str | None:
        return self._redis.hget(self._registry_key("fingerprint"), name)

    def set_fingerprint(self, name: str, value: str) -> None:
        self._redis.hset(self._registry_key("fingerprint"), name, value)

    def remember_documents(self, name: str, doc_ids: list[str]) -> None:
        self._redis.hset(self._registry_key("documents"), name, json.dumps(sorted(set(doc_ids))))

    def documents(self, name: str) -> list[str] | None:
        value = self._redis.hget(self._registry_key("documents"), name)
        return None if value is None else json.loads(value)

    def remember_evidence(self, doc_id: str, evidence_ids: Iterable[str]) -> None:
        self._redis.hset(self._registry_key("evidence"), doc_id, json.dumps(sorted(set(evidence_ids))))

    def evidence_of(self, doc_id: str) -> list[str] | None:
        """The evidence ids the document's last write wrote; None when none was recorded (a document not written
        yet, or written before its ids were kept)."""
        value = self._redis.hget(self._registry_key("evidence"), doc_id)
        return None if value is None else json.loads(value)

    def ingested_files(self) -> dict[str, list[str]]:
        """Every file name ingested so far, with the doc ids of its evidence."""
        return {name: json.loads(ids) for name, ids in self._redis.hgetall(self._registry_key("documents")).items()}

    def forget_file(self, name: str) -> None:
        """A file gone: its fingerprint, its documents and its claims on their ids."""
        self.release_documents(name, self.documents(name) or [])
        pipe = self._redis.pipeline()
        pipe.hdel(self._registry_key("fingerprint"), name)
        pipe.hdel(self._registry_key("documents"), name)
        pipe.execute()

    def rename_file(self, old: str, new: str) -> None:
        """Move a file's documents and its claims on their ids from its old registry name to ``new`` (added to
        those ``new`` has), without a fingerprint: ingested again under the new name, the old documents it no
        longer writes are deleted and their ids released."""
        old_documents = self.documents(old)
        if old_documents is None or old == new:
            return
        move = self._redis.register_script(MOVE_OWNED)
        for doc_id in old_documents:
            move(keys=[self._registry_key("document-owner")], args=[doc_id, old, new])
        pipe = self._redis.pipeline()
        documents = self._registry_key("documents")
        pipe.hset(documents, new, json.dumps(sorted({*old_documents, *(self.documents(new) or [])})))
        pipe.hdel(documents, old)
        pipe.hdel(self._registry_key("fingerprint"), old, new)
        pipe.execute()

    def claim_source(self, name: str, folder: str, take: bool = False) -> str:
        """Make ``folder`` (an absolute path) the holder of the folder source ``name`` unless another folder
        holds it, or whatever holds it when ``take``; returns the holder."""
        key = self._registry_key("folder-sources")
        if take:
            self._redis.hset(key, name, folder)
            return folder
        self._redis.hsetnx(key, name, folder)
        return self._redis.hget(key, name)

    def source_of(self, folder: str) -> str:
        """The name of the folder source ``folder`` holds; '' when it holds none."""
        held = self._redis.hgetall(self._registry_key("folder-sources"))
        return next((name for name, holder in sorted(held.items()) if holder == folder), "")

    def claim_document(self, doc_id: str, name: str) -> str:
        """Make file ``name`` the owner of ``doc_id`` unless another file is; returns the owner (atomic, so two
        workers with two files of the same id cannot both win)."""
        pipe = self._redis.pipeline()  # MULTI/EXEC
        pipe.hsetnx(self._registry_key("document-owner"), doc_id, name)
        pipe.hget(self._registry_key("document-owner"), doc_id)
        return pipe.execute()[1]

    def release_documents(self, name: str, doc_ids: list[str]) -> None:
        """Give up the claims of file ``name`` on these doc ids (only those it holds)."""
        release = self._redis.register_script(RELEASE_OWNED)
        for doc_id in doc_ids:
            release(keys=[self._registry_key("document-owner")], args=[doc_id, name])

    def remember_origins(self, job_id: str, origins: dict[str, str]) -> None:
        """Where the submitter read each file of a job (name -> path): named in the job's errors, for a retry."""
        if not origins:
            return
        key = self._key("job", job_id, "origins")
        pipe = self._redis.pipeline()
        pipe.hset(key, mapping=origins)
        pipe.expire(key, ORIGINS_KEPT_SECONDS)
        pipe.execute()

    def origin(self, job_id: str, name: str) -> str:
        """Where the submitter read a file of a job; empty when not known (or no longer)."""
        return (self._redis.hget(self._key("job", job_id, "origins"), name) or "") if job_id else ""

    def put_content(self, data: bytes, ttl_seconds: int) -> str:
        """Keep a file's bytes for a worker, expiring after ``ttl_seconds``; returns the token that names them."""
        token = uuid.uuid4().hex
        self._redis.set(self._key("content", token), data, ex=ttl_seconds)
        return token

    def content(self, token: str) -> bytes | None:
        """The bytes kept under ``token`` as they were put (not decoded); None once expired or dropped."""
        return self._redis.execute_command("GET", self._key("content", token), **{NEVER_DECODE: []})

    def drop_content(self, tokens: list[str]) -> None:
        if tokens:
            self._redis.delete(*(self._key("content", token) for token in tokens))

    def metric(self, task: str, name: str, amount: float = 1) -> None:
        self._redis.hincrbyfloat(self._key("metrics", task), name, amount)

    def metrics(self) -> dict[str, dict[str, float]]:
        """Outcome counts and seconds per task name."""
        head = self._key("metrics", "")
        return {key[len(head):]: {k: float(v) for k, v in self._redis.hgetall(key).items()}
                for key in self._redis.scan_iter(head + "*")}

    def keyword_stats(self) -> CorpusKeywordStats:
        """The corpus keyword statistics, read from Redis for the lemmas asked about; what a document adds to
        them stays in the object (``count_keywords`` counts what is written)."""
        return CorpusKeywordStats(self._redis, self._registry_key("keyword-df"),
                                  int(self._redis.get(self._registry_key("keyword-docs")) or 0))

    def count_keywords(self, doc_id: str, evidence_lemmas: list[Iterable[str]]) -> None:
        """Make ``doc_id``'s evidence, given as their lemmas, what the keyword statistics count of that document:
        each evidence once, with each of its distinct lemmas, in place of what the document counted before. So a
        document counts once however often it is ingested, and a redelivered task counts nothing twice."""
        counts: Counter[str] = Counter()
        for lemmas in evidence_lemmas:
            counts.update(set(lemmas) - {""})
        self._replace_counts(doc_id, counts, len(evidence_lemmas))

    def documents_deleted(self, doc_ids: Iterable[str]) -> None:
        """Documents whose evidence left the index: what they counted leaves the keyword statistics, and their
        evidence ids are forgotten (``evidence_of``)."""
        doc_ids = list(doc_ids)
        for doc_id in doc_ids:
            self._replace_counts(doc_id, Counter(), 0)
        if doc_ids:
            self._redis.hdel(self._registry_key("evidence"), *doc_ids)

    def _replace_counts(self, doc_id: str, counts: Counter[str], evidence: int) -> None:
        record = zlib.compress(json.dumps([evidence, dict(sorted(counts.items()))]).encode()) if evidence else b""
        replace = self._redis.register_script(REPLACE_COUNTS_SCRIPT)
        keys = [self._registry_key(part) for part in ("keyword-counted", "keyword-df", "keyword-docs")]
        while True:  # again only when another worker replaced the same document's counts meanwhile
            before = self._redis.execute_command("HGET", keys[0], doc_id, **{NEVER_DECODE: []}) or b""
            evidence_before, counts_before = json.loads(zlib.decompress(before)) if before else (0, {})
            delta = Counter(counts)
            delta.subtract(counts_before)
            pairs = [part for lemma, n in sorted(delta.items()) if n for part in (lemma, n)]
            if replace(keys=keys, args=[doc_id, before, record, evidence - evidence_before, *pairs]):
                return

    def record_activity(self, finished: int = 0) -> None:
        """Count ``finished`` files' tasks into this minute's bucket and sample the ingest queue's length into it.

        The bucket keeps the longest queue seen in its minute (ZADD GT). Workers call this as each task
        ends and the admin summary when it is read, so a minute in which the queue waits while nothing
        finishes is seen too.
        """
        key = self._key("activity", str(int(time.time() // ACTIVITY_BUCKET_SECONDS)))
        pipe = self._redis.pipeline()
        if finished:
            pipe.zincrby(key, finished, "finished")
        pipe.zadd(key, {"waiting": self.queue_length()}, gt=True)
        pipe.expire(key, ACTIVITY_KEEP_SECONDS)
        pipe.execute()

    def activity(self) -> list[dict]:
        """Every minute of the last ``ACTIVITY_KEEP_SECONDS``, oldest first: ``at`` (its start, epoch seconds),
        ``finished`` (files' tasks ended in it) and ``waiting`` (the longest ingest queue seen; None when unsampled)."""
        now = int(time.time() // ACTIVITY_BUCKET_SECONDS)
        buckets = range(now - ACTIVITY_KEEP_SECONDS // ACTIVITY_BUCKET_SECONDS + 1, now + 1)
        pipe = self._redis.pipeline()
        for bucket in buckets:
            pipe.zmscore(self._key("activity", str(bucket)), ["finished", "waiting"])
        return [{"at": bucket * ACTIVITY_BUCKET_SECONDS, "finished": int(finished or 0),
                 "waiting": None if waiting is None else int(waiting)}
                for bucket, (finished, waiting) in zip(buckets, pipe.execute())]


class CorpusKeywordStats(KeywordStats):
    """The corpus's keyword statistics as Redis holds them, read for the lemmas asked about: one HMGET for the
    lemmas of the evidence a document adds (they are most of those its key phrases ask about next, ``read``), one
    HGET for any other. Reading the whole table for each file grows with the corpus's vocabulary: measured here,
    7 ms a file at the bench's 2,600 lemmas and 157 ms at 50,000, against 2.6 ms for the 1,000 lemmas of a long
    page. What ``add`` counts stays in this object: Redis counts a document once its evidence is written
    (``JobStore.count_keywords``)."""

    def __init__(self, client: redis.Redis, df_key: str, n_docs: int):
        super().__init__(None, n_docs)
        self._redis, self._df_key = client, df_key
        self._read: set[str] = set()  # lemmas whose count in Redis is in ``df``

    def read(self, lemmas: Iterable[str]) -> None:
        """Read the counts of these lemmas at once (those not read yet)."""
        unread = [lemma for lemma in dict.fromkeys(lemmas) if lemma and lemma not in self._read]
        if unread:
            for lemma, count in zip(unread, self._redis.hmget(self._df_key, unread)):
                self.df[lemma] += int(count or 0)
            self._read.update(unread)

    def add(self, lemmas: Iterable[str] | str) -> None:
        distinct = set(lemmas.split() if isinstance(lemmas, str) else lemmas) - {""}
        self.read(distinct)
        super().add(distinct)

    def add_documents(self, documents: Iterable[Iterable[str] | str]) -> None:
        documents = [d.split() if isinstance(d, str) else list(d) for d in documents]
        self.read(lemma for lemmas in documents for lemma in lemmas)
        for lemmas in documents:
            self.add(lemmas)

    def frequency(self, lemma: str) -> int:
        self.read([lemma])
        return super().frequency(lemma)
