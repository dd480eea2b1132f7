"""Ingest jobs in Redis: counts for progress bars, recorded errors, fingerprints for resuming.

Keys: ``evident:job:<id>`` (hash: total, done, skipped, failed, created), ``evident:job:<id>:errors``
(list of JSON {file, reason}), ``evident:jobs`` (sorted set of job ids by time),
``evident:fingerprint`` (hash: document name -> content+config fingerprint of its last successful ingest),
``evident:documents`` (hash: file name -> JSON list of the doc ids its evidence was written under),
``evident:errors`` (the last 1000 errors of any job).
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field

import redis

PREFIX = "evident"
RECENT_ERRORS = 1000


@dataclass
class JobStatus:
    job_id: str
    total: int
    done: int
    skipped: int
    failed: int
    created: float
    errors: list[dict] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.done + self.skipped + self.failed >= self.total


class JobStore:
    def __init__(self, client: redis.Redis):
        self.redis = client

    @classmethod
    def from_url(cls, url: str) -> "JobStore":
        return cls(redis.Redis.from_url(url, decode_responses=True))

    def create(self, total: int) -> str:
        job_id = uuid.uuid4().hex[:12]
        now = time.time()
        self.redis.hset(f"{PREFIX}:job:{job_id}", mapping={"total": total, "done": 0, "skipped": 0, "failed": 0,
                                                          "created": now})
        self.redis.zadd(f"{PREFIX}:jobs", {job_id: now})
        return job_id

    def count(self, job_id: str, outcome: str) -> None:
        if job_id:
            self.redis.hincrby(f"{PREFIX}:job:{job_id}", outcome, 1)

    def record_error(self, job_id: str, file: str, reason: str) -> None:
        entry = json.dumps({"job": job_id, "file": file, "reason": reason, "at": time.time()})
        pipe = self.redis.pipeline()
        if job_id:
            pipe.rpush(f"{PREFIX}:job:{job_id}:errors", entry)
        pipe.lpush(f"{PREFIX}:errors", entry)
        pipe.ltrim(f"{PREFIX}:errors", 0, RECENT_ERRORS - 1)
        pipe.execute()

    def status(self, job_id: str) -> JobStatus | None:
        data = self.redis.hgetall(f"{PREFIX}:job:{job_id}")
        if not data:
            return None
        errors = [json.loads(e) for e in self.redis.lrange(f"{PREFIX}:job:{job_id}:errors", 0, -1)]
        return JobStatus(job_id, int(data["total"]), int(data["done"]), int(data["skipped"]), int(data["failed"]),
                         float(data["created"]), errors)

    def recent_jobs(self, limit: int = 20) -> list[JobStatus]:
        ids = self.redis.zrevrange(f"{PREFIX}:jobs", 0, limit - 1)
        return [s for s in (self.status(i) for i in ids) if s]

    def recent_errors(self, limit: int = 100) -> list[dict]:
        return [json.loads(e) for e in self.redis.lrange(f"{PREFIX}:errors", 0, limit - 1)]

    def fingerprint(self, name: str) -> str | None:
        return self.redis.hget(f"{PREFIX}:fingerprint", name)

    def set_fingerprint(self, name: str, value: str) -> None:
        self.redis.hset(f"{PREFIX}:fingerprint", name, value)

    def remember_documents(self, name: str, doc_ids: list[str]) -> None:
        self.redis.hset(f"{PREFIX}:documents", name, json.dumps(sorted(set(doc_ids))))

    def documents(self, name: str) -> list[str] | None:
        value = self.redis.hget(f"{PREFIX}:documents", name)
        return None if value is None else json.loads(value)

    def ingested_files(self) -> dict[str, list[str]]:
        """Every file name ingested so far, with the doc ids of its evidence."""
        return {name: json.loads(ids) for name, ids in self.redis.hgetall(f"{PREFIX}:documents").items()}

    def forget_file(self, name: str) -> None:
        pipe = self.redis.pipeline()
        pipe.hdel(f"{PREFIX}:fingerprint", name)
        pipe.hdel(f"{PREFIX}:documents", name)
        pipe.execute()

    def metric(self, task: str, name: str, amount: float = 1) -> None:
        self.redis.hincrbyfloat(f"{PREFIX}:metrics:{task}", name, amount)

    def metrics(self) -> dict[str, dict[str, float]]:
        out = {}
        for key in self.redis.scan_iter(f"{PREFIX}:metrics:*"):
            out[key.split(":", 2)[2]] = {k: float(v) for k, v in self.redis.hgetall(key).items()}
        return out
