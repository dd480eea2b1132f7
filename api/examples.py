"""An example of each operation of the API, as the OpenAPI document shows it (``api.schema.EvidentSpecTree``):
what a request sends and what the answer holds, so a client generator or a reader sees the shapes at work.

Keyed by operation id (the names each route gives ``spec.validate``); ``request`` is a JSON body or query, the
rest are answers by status. A document id names its source, never a path of the server (``html:handbook:...``).
"""
from __future__ import annotations

HIT = {"url": "https://wiki.example.org/display/OPS/VPN", "title": "VPN setup", "heading_path": ["Reset a token"],
       "kind": "passage", "label": "Passage", "snippet": "Reset the <mark>VPN</mark> token from the portal.",
       "score": 0.8123, "doc_id": "confluence:ops-wiki:4521985", "evidence_id": "confluence:ops-wiki:4521985#s1",
       "space": "OPS", "space_name": "Operations", "lang": "en", "breadcrumb": ["Operations"], "updated": "2026-10-02", "author": "Ann Lee",
       "verdict": "strong", "confidence": 0.91}
SEARCH_ANSWER = {"query": "how do I reset the vpn token", "hits": [HIT], "took_ms": 84, "total": 1, "lang": "en",
                 "resolved_query": "how do I reset the vpn token", "facets": {"space": {"OPS": 1},
                                                                         "kind": {"passage": 1}},
                 "space_names": {"OPS": "Operations"},
                 "warnings": [], "verdict": "strong", "confidence": 0.91, "answer": None,
                 "search_id": "5f0c2a9e7b1d4c36", "new_topic": False}
JOB = {"job_id": "3fa2c1d09b7e", "total": 12, "done": 11, "skipped": 0, "failed": 1, "cancelled": 0,
       "state": "finished", "created": 1793000000.0, "errors": [
           {"file": "handbook/scan.pdf", "reason": "handbook/scan.pdf: stopped after 600 s; skipped"}]}
SOURCE = {"name": "ops-wiki", "kind": "confluence", "every": "1h",
          "options": {"url": "https://wiki.example.org", "spaces": ["OPS"]}}
ERROR_LIST = [{"job": "3fa2c1d09b7e", "file": "handbook/scan.pdf", "reason": "stopped after 600 s; skipped"}]
PAGE = "<!doctype html><html lang=\"en\">...</html>"

OPERATION_EXAMPLES: dict[str, dict] = {
    "searchPage": {"200": PAGE},
    "openSearchDescription": {"media": "application/opensearchdescription+xml",
                              "200": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><OpenSearchDescription ...>"},
    "search": {"request": {"q": "how do I reset the vpn token", "k": 10, "space": "OPS"}, "200": SEARCH_ANSWER},
    "searchConversation": {"request": {"q": "and on a phone?", "history": [
        {"q": "how do I reset the vpn token", "results": [{"url": HIT["url"], "title": HIT["title"]}],
         "opened": [HIT["url"]]}]}, "200": SEARCH_ANSWER},
    "suggest": {"request": {"q": "vpn se", "k": 8}, "200": {"suggestions": [
        {"title": "VPN setup", "url": HIT["url"], "space": "OPS", "space_name": "Operations"}]}},
    "click": {"request": {"search_id": "5f0c2a9e7b1d4c36", "url": HIT["url"], "rank": 1}},
    "feedback": {"request": {"search_id": "5f0c2a9e7b1d4c36", "helpful": False}},
    "health": {"200": {"status": "ok", "opensearch": "green", "opensearch_nodes": 1, "redis": "ok", "workers": 2}},
    "listJobs": {"200": [JOB]},
    "getJob": {"200": JOB},
    "cancelJob": {"200": {**JOB, "state": "cancelling"}},
    "listErrors": {"200": ERROR_LIST},
    "getQueue": {"200": {"queue": "ingest", "waiting": 3,
                         "metrics": {"ingest_file": {"done": 120, "failed": 2, "seconds": 341.5}}}},
    "retryFile": {"request": {"job": "3fa2c1d09b7e", "file": "handbook/scan.pdf"},
                  "200": {"job_id": "7b1d4c365f0c", "file": "handbook/scan.pdf"}},
    "getSummary": {"request": {"days": 7}, "200": {"alias": "evident-evidence", "jobs": [JOB], "errors": ERROR_LIST,
                                                   "queue": {"queue": "ingest", "waiting": 0, "minutes": []},
                                                   "index": {}, "searches": {}, "flower": "http://127.0.0.1:5555/"}},
    "adminConsole": {"200": PAGE},
    "listSources": {"200": [SOURCE]},
    "addSource": {"request": SOURCE, "201": SOURCE},
    "getSource": {"200": SOURCE},
    "syncSource": {"request": {"full": False}, "202": {"source": "ops-wiki", "queued": True, "full": False}},
    "removeSource": {"200": {"source": "ops-wiki", "removed_evidence": 412}},
}
