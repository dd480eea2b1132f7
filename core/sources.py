"""The Redis edge for live sources: their registrations, the state of what each has indexed, the
checkpoint of a sync under way, the sync lock and the record of past syncs.

Keys (``evident`` is the default prefix):
``evident:sources`` (hash: name -> JSON registration: kind, options; never a secret, only the name of
the environment variable or file that holds it), and per source ``evident:source:<name>:``
``items`` (hash: item id -> JSON of what was indexed: version, ACL levels, doc ids, attachments),
``checkpoint`` (hash: the sync under way: phase, next listing link, cursor it started from, counts),
``pending`` (hash: item id -> JSON listing record still to index), ``scope`` (set: ids the scope listing
found this sync), ``queue`` (list: the URLs a site crawl has still to visit, in order) and ``seen`` (set:
every URL it queued), ``state`` (hash: cursor, syncs run, last sync as JSON), ``lock`` (redis-py's lock),
``cancel`` (a string: the source is being removed, and a sync of it under way stops at its next request).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Iterator

from redis.lock import Lock

from core.jobs import RedisStore

SOURCE_KINDS = ("confluence", "site")
PENDING_BATCH = 500  # listing records read back from Redis at once: a few hundred KB per round trip
SYNC_PARTS = ("checkpoint", "pending", "scope", "queue", "seen")  # what a sync under way keeps, gone when it ends


@dataclass
class SourceEntry:
    """A registered source: its name, kind, interval and the kind's options (URL, scope, env names)."""

    name: str
    kind: str
    every_seconds: int = 0  # 0: synced only when asked
    options: dict = field(default_factory=dict)
    created: float = 0.0


class SourceStore(RedisStore):
    """What Redis keeps about live sources."""

    def _source_key(self, name: str, part: str) -> str:
        return self._key("source", name, part)

    # registrations
    def add(self, entry: SourceEntry) -> None:
        if entry.kind not in SOURCE_KINDS:
            raise ValueError(f"source {entry.name!r}: unknown kind {entry.kind!r} (known: {', '.join(SOURCE_KINDS)})")
        entry.created = entry.created or time.time()
        pipe = self._redis.pipeline()
        pipe.hset(self._key("sources"), entry.name, json.dumps(asdict(entry)))
        pipe.delete(self._source_key(entry.name, "cancel"))  # a removal that failed half-way is called off
        pipe.execute()

    def get(self, name: str) -> SourceEntry | None:
        raw = self._redis.hget(self._key("sources"), name)
        return SourceEntry(**json.loads(raw)) if raw else None

    def all(self) -> list[SourceEntry]:
        return sorted((SourceEntry(**json.loads(v)) for v in self._redis.hgetall(self._key("sources")).values()),
                      key=lambda e: e.name)

    def remove(self, name: str) -> None:
        """Forget a source and everything kept about it (its evidence is the caller's to delete first)."""
        pipe = self._redis.pipeline()
        pipe.hdel(self._key("sources"), name)
        for part in ("items", *SYNC_PARTS, "state", "lock", "cancel"):
            pipe.delete(self._source_key(name, part))
        pipe.execute()

    def cancel(self, name: str) -> None:
        """Mark the source as being removed: a sync of it under way stops at its next request."""
        self._redis.set(self._source_key(name, "cancel"), "1")

    def cancelled(self, name: str) -> bool:
        """Whether the source is being removed, or gone already."""
        pipe = self._redis.pipeline()
        pipe.exists(self._source_key(name, "cancel"))
        pipe.hexists(self._key("sources"), name)
        marked, registered = pipe.execute()
        return bool(marked) or not registered

    # what has been indexed, item by item
    def item(self, name: str, item_id: str) -> dict | None:
        raw = self._redis.hget(self._source_key(name, "items"), item_id)
        return json.loads(raw) if raw else None

    def items(self, name: str) -> dict[str, dict]:
        return {k: json.loads(v) for k, v in self._redis.hgetall(self._source_key(name, "items")).items()}

    def item_count(self, name: str) -> int:
        return self._redis.hlen(self._source_key(name, "items"))

    def set_item(self, name: str, item_id: str, record: dict) -> None:
        """Record an item as indexed and take it off the pending list, in one transaction."""
        pipe = self._redis.pipeline()
        pipe.hset(self._source_key(name, "items"), item_id, json.dumps(record))
        pipe.hdel(self._source_key(name, "pending"), item_id)
        pipe.execute()

    def drop_item(self, name: str, item_id: str) -> None:
        pipe = self._redis.pipeline()
        pipe.hdel(self._source_key(name, "items"), item_id)
        pipe.hdel(self._source_key(name, "pending"), item_id)
        pipe.execute()

    # the sync under way
    def checkpoint(self, name: str) -> dict:
        raw = self._redis.hgetall(self._source_key(name, "checkpoint"))
        return {k: json.loads(v) for k, v in raw.items()}

    def save_checkpoint(self, name: str, **values) -> None:
        self._redis.hset(self._source_key(name, "checkpoint"), mapping={k: json.dumps(v) for k, v in values.items()})

    def count(self, name: str, outcome: str, amount: int = 1) -> None:
        """Add to one of the running sync's counts (added, updated, deleted, failed, ...)."""
        counts = self.checkpoint(name).get("counts", {})
        counts[outcome] = counts.get(outcome, 0) + amount
        self.save_checkpoint(name, counts=counts)

    def add_pending(self, name: str, records: dict[str, dict], in_scope: bool) -> None:
        """Listing records to index (``in_scope``: from the scope listing, so their ids are also in scope)."""
        pipe = self._redis.pipeline()
        if records:
            pipe.hset(self._source_key(name, "pending"), mapping={k: json.dumps(v) for k, v in records.items()})
            if in_scope:
                pipe.sadd(self._source_key(name, "scope"), *records)
        pipe.execute()

    def pending(self, name: str) -> Iterator[tuple[str, dict]]:
        for item_id, raw in self._redis.hscan_iter(self._source_key(name, "pending"), count=PENDING_BATCH):
            yield item_id, json.loads(raw)

    def pending_item(self, name: str, item_id: str) -> dict | None:
        raw = self._redis.hget(self._source_key(name, "pending"), item_id)
        return json.loads(raw) if raw else None

    def pending_count(self, name: str) -> int:
        return self._redis.hlen(self._source_key(name, "pending"))

    def skip_pending(self, name: str, item_ids: list[str]) -> None:
        if item_ids:
            self._redis.hdel(self._source_key(name, "pending"), *item_ids)

    def in_scope(self, name: str) -> set[str]:
        return self._redis.smembers(self._source_key(name, "scope"))

    # a site crawl's frontier
    def frontier(self, name: str) -> tuple[list[str], set[str]]:
        """(URLs still to visit in order, every URL queued) of the crawl under way."""
        pipe = self._redis.pipeline()
        pipe.lrange(self._source_key(name, "queue"), 0, -1)
        pipe.smembers(self._source_key(name, "seen"))
        queue, seen = pipe.execute()
        return queue, seen

    def advance_frontier(self, name: str, visited: bool, queued: list[str], pages_left: int) -> None:
        """In one transaction: the first URL off the queue (``visited``), the new ``queued`` ones on its end,
        and the pages the crawl may still request into the checkpoint."""
        pipe = self._redis.pipeline()
        if visited:
            pipe.lpop(self._source_key(name, "queue"))
        if queued:
            pipe.rpush(self._source_key(name, "queue"), *queued)
            pipe.sadd(self._source_key(name, "seen"), *queued)
        pipe.hset(self._source_key(name, "checkpoint"), "pages_left", json.dumps(pages_left))
        pipe.execute()

    def finish(self, name: str, cursor: str, summary: dict) -> None:
        """Close the sync under way: the new cursor and its summary become the source's state."""
        pipe = self._redis.pipeline()
        pipe.hset(self._source_key(name, "state"), mapping={"cursor": cursor, "last": json.dumps(summary)})
        pipe.hincrby(self._source_key(name, "state"), "syncs", 1)
        for part in SYNC_PARTS:
            pipe.delete(self._source_key(name, part))
        pipe.execute()

    def state(self, name: str) -> dict:
        raw = self._redis.hgetall(self._source_key(name, "state"))
        return {"cursor": raw.get("cursor", ""), "syncs": int(raw.get("syncs", 0)),
                "last": json.loads(raw["last"]) if raw.get("last") else None}

    def reset(self, name: str) -> None:
        """Forget the cursor and a sync under way: the next sync lists everything (``sync --full``)."""
        pipe = self._redis.pipeline()
        pipe.hdel(self._source_key(name, "state"), "cursor")
        for part in SYNC_PARTS:
            pipe.delete(self._source_key(name, part))
        pipe.execute()

    def lock(self, name: str, seconds: int) -> Lock:
        """The source's sync lock (redis-py's): one sync at a time; a dead holder's lock expires."""
        return self._redis.lock(self._source_key(name, "lock"), timeout=seconds, blocking=False,
                                thread_local=False)  # renewed by a heartbeat thread (workers.sync.run)
