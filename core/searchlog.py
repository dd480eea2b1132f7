"""The search log at the edge: one document per search, written in the background, and the clicks on it.

Each search is a document of ``evident-searchlog`` under its own ``search_id`` (query, language, hits, the
answer's verdict, took, mode, the caller's anonymised id, the session, and the answer card shown: its evidence id
and page title). A zero-hit query is one that found no page or whose answer's verdict is ``none``
(``search.verdict``: pages were found, but none matches well). A click (``POST /api/click``) updates that
document in place: ``clicks`` and ``first_click_rank``, so the Dashboards and the admin summary read
no-click queries and click-through by rank straight from one index, without joining events. So does the asker's
word on the answer card (``POST /api/feedback``): ``feedback``, helpful or not, the last word kept; the console
lists the cards marked not helpful, the wrong answers an admin can act on.

Searches are queued and written by a daemon thread with ``helpers.bulk`` in batches of what has arrived within
``WRITE_EVERY`` of a line, so a slow or absent OpenSearch never slows an answer; a batch that fails is logged
and dropped (the log is statistics, not data).
"""
from __future__ import annotations

import functools
import hashlib
import logging
import queue
import threading
import time
import uuid
from datetime import datetime, timezone

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import NotFoundError, OpenSearchException

QUEUE_LIMIT = 10_000  # searches held while OpenSearch is away; past it new lines are dropped, not the answers
BATCH_LIMIT = 500  # lines per bulk request: one request even when the API is busiest
# How long the writer waits after a line for more to join it: a request per search cost the API about 1 ms a
# search and OpenSearch an indexing request each; a click comes later than this after its search.
WRITE_EVERY = 0.2
CLICK_RETRIES = 3  # two clicks on one search at once: the second is applied again, not lost
ERROR_CHARS = 300  # of a refused line's error: the reason, not the whole line
QUERIES_LISTED = 20  # rows of each query table in the console: the head of the distribution, not its tail
CALLER_ID_BYTES = 8  # enough to count distinct callers, too short to be a directory of who searched
CLICK_SCRIPT = ("ctx._source.clicks = (ctx._source.clicks == null ? 0 : ctx._source.clicks) + 1; "
                "if (ctx._source.first_click_rank == null) { ctx._source.first_click_rank = params.rank; "
                "ctx._source.clicked_url = params.url; }")
# The asker's word on a search's answer card; none on a search without a card (the update does nothing then).
FEEDBACK_SCRIPT = ("if (ctx._source.answer_id == null) { ctx.op = 'noop' } "
                   "else { ctx._source.feedback = params.feedback }")
HELPFUL, NOT_HELPFUL = "helpful", "not_helpful"
# A query that found nothing: no page, or pages of which none matches well (the answer's verdict ``none``).
ZERO_HIT = {"bool": {"should": [{"term": {"hits": 0}}, {"term": {"verdict": "none"}}], "minimum_should_match": 1}}
log = logging.getLogger(__name__)


def anonymised(principal: str | None, salt: str) -> str:
    """A stable pseudonym of a caller (keyed hash); '' for an anonymous one."""
    if not principal:
        return ""
    return hashlib.blake2b(principal.encode(), key=salt.encode()[:64], digest_size=CALLER_ID_BYTES).hexdigest()


class SearchLog:
    """Writes search lines in the background; ``click`` records a result opened from a search."""

    def __init__(self, client: OpenSearch, index: str, alias: str = ""):
        """``alias``: the evidence index alias the searches are served from, written on each line, so a search
        log shared by several deployments (or a test run's) tells their searches apart."""
        self.client = client
        self.index = index
        self.alias = alias
        self._lines: queue.Queue[dict] = queue.Queue(maxsize=QUEUE_LIMIT)
        self._writer: threading.Thread | None = None
        self._lock = threading.Lock()

    def search(self, query: str, took_ms: int, hits: int, lang: str, mode: str, caller: str = "",
               session: str = "", verdict: str = "", answer: tuple[str, str] = ("", "")) -> str:
        """Queue one search line; returns its ``search_id`` for the clicks that follow. ``verdict``: the
        answer's (``search.verdict``); ``answer``: the card's evidence id and page title, empty without one."""
        search_id = uuid.uuid4().hex
        line = {"_index": self.index, "_id": search_id, "at": datetime.now(timezone.utc).isoformat(),
                "q": query, "took_ms": took_ms, "hits": hits, "verdict": verdict, "lang": lang, "mode": mode,
                "caller": caller, "session": session, "alias": self.alias,
                **({"answer_id": answer[0], "answer_title": answer[1]} if answer[0] else {})}
        self._start()
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            log.warning("search log queue full: a search line was dropped")
        return search_id

    def click(self, search_id: str, url: str, rank: int) -> bool:
        """Count a result opened from a search (the first click's rank and URL are kept); False when no
        search has that id."""
        return self._update(search_id, CLICK_SCRIPT, {"rank": rank, "url": url}) is not None

    def feedback(self, search_id: str, helpful: bool) -> bool | None:
        """Keep the asker's word on a search's answer card: True when kept, False when the search showed no card,
        None when no search has that id."""
        updated = self._update(search_id, FEEDBACK_SCRIPT, {"feedback": HELPFUL if helpful else NOT_HELPFUL})
        return None if updated is None else updated.get("result") != "noop"

    def _update(self, search_id: str, script: str, params: dict) -> dict | None:
        """Run ``script`` on a search's line; None when no search has that id. A line still queued (an answer
        acted on within ``WRITE_EVERY`` of its search) is written first."""
        update = functools.partial(self.client.update, index=self.index, id=search_id,
                                   retry_on_conflict=CLICK_RETRIES,
                                   body={"script": {"source": script, "lang": "painless", "params": params}})
        try:
            return update()
        except NotFoundError:
            if not self._lines.unfinished_tasks:
                return None
        self.flush()
        try:
            return update()
        except NotFoundError:
            return None

    def summary(self, days: int) -> dict:
        """What a search owner acts on, over the last ``days``: searches and clicked searches, the top,
        zero-hit (``ZERO_HIT``) and no-click queries, how many searches had their first click at each rank, and the
        answer cards: how many were shown and marked helpful or not, and the queries whose card was marked not
        helpful, each with its card's page (``query → page``)."""
        since = {"range": {"at": {"gte": f"now-{days}d"}}}
        if self.alias:  # one index's console shows that index's searches, whatever else shares the log
            since = {"bool": {"filter": [since, {"term": {"alias": self.alias}}]}}
        queries = {"terms": {"field": "q.raw", "size": QUERIES_LISTED}}
        aggs = {"top": queries,
                "zero_hit": {"filter": ZERO_HIT, "aggs": {"q": queries}},
                "no_click": {"filter": {"bool": {"must_not": [ZERO_HIT, {"range": {"clicks": {"gte": 1}}}]}},
                             "aggs": {"q": queries}},
                "clicked": {"filter": {"range": {"clicks": {"gte": 1}}},
                            "aggs": {"rank": {"terms": {"field": "first_click_rank", "size": QUERIES_LISTED,
                                                        "order": {"_key": "asc"}}}}},
                "cards": {"filter": {"exists": {"field": "answer_id"}},
                          "aggs": {"feedback": {"terms": {"field": "feedback"}}}},
                "not_helpful": {"filter": {"term": {"feedback": NOT_HELPFUL}}, "aggs": {"q": {
                    **queries, "aggs": {"page": {"terms": {"field": "answer_title", "size": 1}}}}}}}
        try:
            response = self.client.search(index=self.index, body={"size": 0, "track_total_hits": True,
                                                                       "query": since, "aggs": aggs})
        except NotFoundError:  # nobody has searched yet
            return {"days": days, "searches": 0, "clicked": 0, "top": [], "zero_hit": [], "no_click": [],
                    "first_click_by_rank": [], "cards": {"shown": 0, HELPFUL: 0, NOT_HELPFUL: 0}, "not_helpful": []}
        found = response["aggregations"]

        def counts(buckets: list[dict]) -> list[list]:
            return [[str(b["key"]), b["doc_count"]] for b in buckets]  # pairs: JSON objects lose the order

        return {"days": days, "searches": response["hits"]["total"]["value"],
                "clicked": found["clicked"]["doc_count"], "top": counts(found["top"]["buckets"]),
                "zero_hit": counts(found["zero_hit"]["q"]["buckets"]),
                "no_click": counts(found["no_click"]["q"]["buckets"]),
                "first_click_by_rank": counts(found["clicked"]["rank"]["buckets"]),
                "cards": {"shown": found["cards"]["doc_count"], HELPFUL: 0, NOT_HELPFUL: 0,
                          **dict(counts(found["cards"]["feedback"]["buckets"]))},
                "not_helpful": [[f"{b['key']} → {b['page']['buckets'][0]['key'] if b['page']['buckets'] else '?'}",
                                 b["doc_count"]] for b in found["not_helpful"]["q"]["buckets"]]}

    def flush(self) -> None:
        """Wait until every queued line has been written (tests, shutdown)."""
        self._lines.join()

    def _start(self) -> None:
        with self._lock:
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(target=self._write_forever, name="searchlog", daemon=True)
                self._writer.start()

    def _write_forever(self) -> None:
        while True:
            batch = [self._lines.get()]
            time.sleep(WRITE_EVERY)  # let the lines of the searches under way join this one's request
            while len(batch) < BATCH_LIMIT and not self._lines.empty():
                batch.append(self._lines.get_nowait())
            try:
                _, failed = helpers.bulk(self.client, batch, raise_on_error=False)
                if failed:
                    log.warning("search log: %d lines refused, e.g. %s", len(failed), str(failed[0])[:ERROR_CHARS])
            except OpenSearchException as exc:
                log.warning("search log: %d lines not written: %s", len(batch), exc)
            finally:
                for _ in batch:
                    self._lines.task_done()
