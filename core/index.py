"""OpenSearch at the edge: index template, alias, search pipelines, bulk writes of evidence."""
from __future__ import annotations

import copy
import json
import time
from datetime import datetime, timezone
from typing import Callable

import orjson
from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import NotFoundError, SerializationError
from opensearchpy.serializer import JSONSerializer

from core.profile import CountingTransport
from core.settings import Settings
from ingest.principals import MARKER_PREFIX
from mappings import MAPPINGS_DIR

VECTOR_FIELDS = {"context": "vec_context", "summary": "vec_summary", "keywords": "vec_keywords"}
# The sentence view's vectors: nested objects, a text and its vector each (``search.sentences``).
SENTENCE_FIELD = "sentences"
# The multilingual view: a leaf evidence's vector in multilingual-e5-small (``core.multilingual``), whose size is
# its own (384), not the configured model's.
MULTILINGUAL_FIELD = "vec_multilingual"
BULK_BACKOFF = 1  # seconds before a chunk OpenSearch turned away (429) is sent again; doubles each retry
BULK_ERROR_CHARS = 500  # of each rejected evidence's error: the reason, without the whole evidence
REINDEX_TIMEOUT = 3600  # seconds a reindex may copy for: minutes for a wiki, an hour for a slow node
# How long ``merge_deleted_away`` waits, in steps, for the shard's retention lease to let a merge drop what a
# re-ingest deleted: OpenSearch renews the lease every 30 s, so a minute covers two renewals.
DELETED_WAIT_STEP = 5
DELETED_WAIT_STEPS = 12
POLL_SECONDS = 1  # between health checks while OpenSearch starts
SEARCHLOG_TEMPLATE = "evident-searchlog"  # matches every evident-searchlog* index, whatever its name setting
# A reindex from an index made before ``term`` was its own field copies an index-term anchor's term up from meta.
TERM_UP = ("if (ctx._source.meta instanceof Map && ctx._source.meta.term != null) "
           "{ ctx._source.term = ctx._source.meta.term; }")
# Where an index made before 2026-11-27 keeps its read restrictions: nested objects, one a level.
NESTED_ACL_PATH = "acl_levels"
# A reindex moves them into the level fields, merging the levels past the last field as ``acl_level_fields`` does.
ACL_LEVELS_FLAT = ("if (ctx._source.acl_levels instanceof List) { def levels = ctx._source.remove('acl_levels'); "
                   "int last = params.fields.size() - 1; "
                   "for (int i = 0; i < levels.size(); i++) { def readers = new ArrayList(levels[i].principals); "
                   "if (i <= last) { ctx._source[params.fields[i]] = readers; } "
                   "else { def kept = new ArrayList(ctx._source[params.fields[last]]); kept.retainAll(readers); "
                   "if (kept.isEmpty()) { kept.add(params.nobody); } ctx._source[params.fields[last]] = kept; } } }")
# Connections a client keeps open to OpenSearch, for the threads that share it (an API process's request threads
# and its search log writer). urllib3 keeps one by default: every other thread then opened a connection and
# closed it again for each request it sent, with its address lookup, at 4 concurrent searches most of them.
KEPT_CONNECTIONS = 16
FACET_BUCKETS = 50  # kinds and spaces listed in the admin console: every kind, the spaces of a large wiki
# An index made on a cluster of several nodes copies its primary's segments to the replica (segment replication):
# the HNSW graphs are built once, and both copies hold the same segments, so the same BM25 statistics and tie
# order. The k-NN plugin then keeps every vector in ``_source`` as JSON (about 8 KB an evidence), and each hit a
# search fetches decompresses it with its stored fields. On one node, with no replica to copy to, the index keeps
# OpenSearch's document replication, and the plugin derives the vectors from its vector files instead: the
# stored fields are a quarter of the size, and a hybrid search at 50k evidence cost OpenSearch 14.0 -> 11.4 ms
# of CPU (2026-11-27). A reindex reads the derived vectors, so it copies them either way.
SEGMENT_REPLICATION = {"replication.type": "SEGMENT"}


class OrjsonSerializer(JSONSerializer):
    """opensearch-py's JSON serializer with orjson writing and reading: a hybrid search's ``_msearch`` body (the
    question's vectors, a hundred term queries) took the standard library 0.46 ms to write and orjson 0.05, its
    answer 0.28 and 0.18 ms to read (2026-11-27). The types orjson does not know go to opensearch-py's ``default``."""

    OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS

    def dumps(self, data):
        if isinstance(data, str):
            return data
        try:
            return orjson.dumps(data, default=self.default, option=self.OPTIONS).decode()
        except (TypeError, ValueError) as exc:  # orjson.JSONEncodeError is a TypeError
            raise SerializationError(data, exc) from exc

    def loads(self, s):
        try:
            return orjson.loads(s)
        except (TypeError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError
            raise SerializationError(s, exc) from exc


MISSING_INDEX = "index_not_found_exception"  # OpenSearch's error type for an index or alias that does not exist


def item_failure(error: dict | str, what: str) -> Exception:
    """The exception for a failed item of a multi-request (``_msearch``, ``_mtermvectors``): a missing index as
    OpenSearch's own ``NotFoundError`` (what a single request raises, so the API answers both alike), anything
    else a ``RuntimeError`` naming ``what`` failed and why."""
    if isinstance(error, dict) and error.get("type") == MISSING_INDEX:
        return NotFoundError(404, MISSING_INDEX, {"error": error})
    return RuntimeError(f"{what}: {error}")


def connect(settings: Settings) -> OpenSearch:
    return OpenSearch(hosts=[settings.opensearch.url], timeout=settings.opensearch.timeout,
                      max_retries=settings.opensearch.max_retries, retry_on_timeout=True,
                      pool_maxsize=KEPT_CONNECTIONS, serializer=OrjsonSerializer(),
                      transport_class=CountingTransport)  # a search's round trips, for its profile


def load_json(name: str) -> dict:
    return json.loads((MAPPINGS_DIR / name).read_text(encoding="utf-8"))


# The read restrictions that apply to an evidence, each of which must admit the reader: its own, then each
# restricted ancestor's, one keyword field a level (``acl_level_0``, ``acl_level_1``, ... in the template).
# Not nested objects: a nested field in the mapping has OpenSearch add a filter that leaves out the nested
# documents to every search, and BM25 at 50k evidence took 7.8 -> 5.1 ms a search without it (2026-11-27).
ACL_LEVEL_PREFIX = "acl_level_"
ACL_LEVEL_FIELDS = tuple(sorted((name for name in load_json("evidence-template.json")["template"]["mappings"]
                                 ["properties"] if name.startswith(ACL_LEVEL_PREFIX)),
                                key=lambda name: int(name[len(ACL_LEVEL_PREFIX):])))
# The reader of a level whose readers are none (``acl_level_fields``): the ACL filter never asks for it, and no
# group or user is spelled like it (``ingest.principals``).
NO_READER = MARKER_PREFIX + "no-reader"


def index_template(alias: str, dimension: int, nodes: int = 1) -> dict:
    """The template from mappings/ for the alias's indices, with the vector size of the configured model, and
    segment replication on a cluster of several ``nodes`` (``SEGMENT_REPLICATION``)."""
    template = copy.deepcopy(load_json("evidence-template.json"))
    template["index_patterns"] = [f"{alias}-*"]
    if nodes > 1:
        template["template"]["settings"]["index"].update(SEGMENT_REPLICATION)
    for name in VECTOR_FIELDS.values():
        template["template"]["mappings"]["properties"][name]["dimension"] = dimension
    template["template"]["mappings"]["properties"][SENTENCE_FIELD]["properties"]["vec"]["dimension"] = dimension
    return template


def installed_plugins(client: OpenSearch) -> set[str]:
    return {row["component"] for row in client.cat.plugins(format="json")}


def search_pipelines() -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted((MAPPINGS_DIR / "pipelines").glob("*.json"))}


def init_index(client: OpenSearch, settings: Settings) -> dict:
    """Create or update the template, the alias with its first index, and the search pipelines. Idempotent."""
    alias = settings.opensearch.index_alias
    nodes = cluster_nodes(client, settings)
    template = index_template(alias, settings.embedding.dimension, nodes)
    client.indices.put_index_template(name=alias, body=template)
    searchlog = load_json("searchlog-template.json")
    client.indices.put_index_template(name=SEARCHLOG_TEMPLATE, body=searchlog)
    log_index = settings.opensearch.searchlog_index
    if client.indices.exists(index=log_index):  # a log from an earlier version gains the new fields
        client.indices.put_mapping(index=log_index, body=searchlog["template"]["mappings"])
    report = {"template": alias, "alias": alias, "created_index": None, "pipelines": [], "added_fields": []}
    if not client.indices.exists_alias(name=alias):
        index = new_index_name(alias)
        client.indices.create(index=index, body={"aliases": {alias: {}}})
        report["created_index"] = index
    else:
        report["added_fields"] = add_new_fields(client, alias, template["template"]["mappings"]["properties"])
        client.indices.put_settings(index=alias, body={"index": merge_policy(template)})
        if not stores_search_fields(client, alias):
            report["reindex_advised"] = ("the index predates stored search fields: searches read _source, "
                                         "slower; `evident reindex` rebuilds it from the current template")
        elif keeps_nested_acl(client, alias):
            report["reindex_advised"] = ("the index keeps read restrictions as nested documents, which makes every "
                                         "search slower; `evident reindex` rebuilds it from the current template")
        elif nodes == 1 and replicates_segments(client, alias):
            report["reindex_advised"] = ("the index was made for several nodes (segment replication) and keeps "
                                         "its vectors in _source, which makes every hit slower to fetch on one "
                                         "node; `evident reindex` rebuilds it from the current template")
    if "opensearch-neural-search" in installed_plugins(client):
        for name, body in search_pipelines().items():
            client.transport.perform_request("PUT", f"/_search/pipeline/{name}", body=body)
            report["pipelines"].append(name)
    return report


def merge_policy(template: dict) -> dict:
    """The template's merge settings, given to the alias's indices as ``init_index`` finds them too. BM25 counts
    a deleted evidence until a merge drops it. ``deletes_pct_allowed``: the share of deleted evidence a merge
    leaves (5 %, against OpenSearch's 20 %): a re-ingest of the bench (every evidence written again) left 227
    deleted beside 1012 at 20 %, and P@1 on conversations.jsonl fell 0.819 -> 0.796; at 5 % it left 30, and the
    figures of a clean index (2026-11-27). ``expunge_deletes_allowed``: the share of a segment deleted before
    ``expunge_deleted`` rewrites it (1 %, against Lucene's 10 %): 42 German evidence written again beside 1009
    (4 % of their segment) flipped four near ties of the bench and evalsets (2026-11-29), and at 10 % no merge
    drops them; under 1 % a rewrite of a large segment, its k-NN graph rebuilt, costs more than the drift."""
    return {name: value for name, value in template["template"]["settings"]["index"].items()
            if name.startswith("merge.policy.")}


def cluster_nodes(client: OpenSearch, settings: Settings) -> int:
    """The nodes of the cluster, or the nodes ``evident services up`` starts when more of them are still joining."""
    return max(client.cluster.health()["number_of_nodes"], settings.services.opensearch_nodes)


def keeps_nested_acl(client: OpenSearch, alias: str) -> bool:
    """Whether an index behind the alias was made before the read restrictions were level fields."""
    return any(NESTED_ACL_PATH in mapping["mappings"].get("properties", {})
               for mapping in client.indices.get_mapping(index=alias).values())


def replicates_segments(client: OpenSearch, alias: str) -> bool:
    """Whether an index behind the alias was made with segment replication."""
    found = client.indices.get_settings(index=alias, name="index.replication.type")
    return any(entry["settings"]["index"]["replication"]["type"] == SEGMENT_REPLICATION["replication.type"]
               for entry in found.values() if entry.get("settings"))


def add_new_fields(client: OpenSearch, alias: str, properties: dict) -> list[str]:
    """Give the alias's indices the fields the template gained since they were created (an upgrade that adds
    fields, such as the ``acl_level_*`` ones); adding is allowed in place, changing one needs ``evident reindex``."""
    added: set[str] = set()
    for index, mapping in client.indices.get_mapping(index=alias).items():
        have = mapping["mappings"].get("properties", {})
        new = {name: field for name, field in properties.items() if name not in have}
        if new:
            client.indices.put_mapping(index=index, body={"properties": new})
            added.update(new)
    return sorted(added)


def new_index_name(alias: str) -> str:
    return f"{alias}-{datetime.now(timezone.utc):%Y%m%d%H%M%S%f}"


def reindex(client: OpenSearch, settings: Settings, gate: Callable[[str], tuple[bool, dict]] | None = None) -> dict:
    """Move the evidence to a fresh index built from the current template, merge it into one segment
    (``merge_segments``), then swap the alias atomically; ``swapped`` says whether it did.

    Searches keep being answered from the old index until the swap. Vectors are copied as they are, so
    a change of embedding model needs a re-ingest (``evident ingest --force``) instead. A ``gate`` is asked
    about the new index (by name) before the swap: it answers whether to swap and its figures (the report's
    ``gate``); refused, the new index is deleted and the alias stays on the old.
    """
    alias = settings.opensearch.index_alias
    init_index(client, settings)
    old = sorted(client.indices.get_alias(name=alias))
    new = new_index_name(alias)
    client.indices.create(index=new)
    copied = client.reindex(body={"source": {"index": ",".join(old)}, "dest": {"index": new},
                                  "script": {"lang": "painless", "source": TERM_UP + " " + ACL_LEVELS_FLAT,
                                             "params": {"fields": list(ACL_LEVEL_FIELDS), "nobody": NO_READER}}},
                            refresh=True, wait_for_completion=True, request_timeout=REINDEX_TIMEOUT)
    if copied.get("failures"):
        client.indices.delete(index=new)
        raise RuntimeError(f"reindex into {new} failed: {copied['failures'][:1]}")
    merge_segments(client, new)
    report = {"alias": alias, "from": old, "to": new, "documents": copied.get("total", 0), "swapped": True}
    if gate is not None:
        try:
            report["swapped"], report["gate"] = gate(new)
        except BaseException:  # the evaluation failed: the copy, which no alias names, goes with it
            client.indices.delete(index=new)
            raise
        if not report["swapped"]:
            client.indices.delete(index=new)
            return report
    actions = [{"remove": {"index": index, "alias": alias}} for index in old]
    client.indices.update_aliases(body={"actions": [*actions, {"add": {"index": new, "alias": alias}}]})
    for index in old:
        client.indices.delete(index=index)
    return report


def stores_search_fields(client: OpenSearch, alias: str) -> bool:
    """Whether every index behind the alias stores the fields a search fetches (``store`` in the template):
    an index made before they were stored answers from ``_source`` until ``evident reindex`` rebuilds it."""
    mappings = client.indices.get_mapping(index=alias)
    return bool(mappings) and all(mapping["mappings"].get("properties", {}).get("text", {}).get("store", False)
                                  for mapping in mappings.values())


def expunge_deleted(client: OpenSearch, alias: str) -> dict:
    """Have OpenSearch rewrite the alias's segments that hold deleted evidence (past the template's
    ``expunge_deletes_allowed``), in the background, so BM25's statistics count the live evidence only: an
    edited or re-ingested page otherwise moves the scores of every page beside it until a merge happens to
    drop its old copy. Nothing is asked while a force merge still runs. The deleted documents found (Lucene's
    count: an evidence and each of its sentences are one each), the live evidence, and whether a merge was
    started; none of either before ``evident init`` made the alias."""
    if not client.indices.exists_alias(name=alias):
        return {"deleted": 0, "live": 0, "merging": False}
    docs = client.indices.stats(index=alias, metric="docs")["_all"]["primaries"]["docs"]
    running = client.tasks.list(actions="indices:admin/forcemerge*", detailed=False).get("nodes")
    started = bool(docs.get("deleted")) and not running
    if started:
        client.indices.forcemerge(index=alias, only_expunge_deletes=True, wait_for_completion=False)
    return {"deleted": docs.get("deleted", 0), "live": client.count(index=alias)["count"],
            "merging": started or bool(running)}


def merge_segments(client: OpenSearch, index: str) -> None:
    """Merge an index written in one go (a reindex's copy) into one segment before it is searched: at 50k
    evidence the BM25 query took 29 ms (p50) on the 25 segments a copy leaves and 20 ms on one."""
    # What was written since the last refresh is in no segment yet (a reindex's copy is written without one):
    # merged without it, it would become a second segment at the next refresh.
    client.indices.refresh(index=index)
    client.indices.forcemerge(index=index, max_num_segments=1, request_timeout=REINDEX_TIMEOUT)
    client.indices.refresh(index=index)  # searches read the merged segment from now, not at the next refresh


def merge_deleted_away(client: OpenSearch, alias: str, step: float = DELETED_WAIT_STEP,
                       steps: int = DELETED_WAIT_STEPS) -> int:
    """Merge the alias's index into one segment until it holds no deleted evidence, for figures that two runs
    agree on (``scripts/eval-bench.sh`` after its re-ingest; the stack's beat does the same in the background,
    ``expunge_deleted``): BM25 counts a deleted evidence until a merge drops it, and a merge keeps the deletes
    that the shard's retention lease still holds, which it does for the newest operations until its next renewal.
    Returns the deleted documents left (0 unless the lease outlasted the wait).

    It ends with a commit (a flush): the merge that drops the deletes may be OpenSearch's own, which the force
    merge's commit starts (the deletes it kept are below that commit, free to go) and no commit follows, so the
    index on disk would keep the old segment beside the one searched until the next flush."""
    deleted = 0
    for attempt in range(steps + 1):
        merge_segments(client, alias)
        deleted = client.indices.stats(index=alias, metric="docs")["_all"]["primaries"]["docs"].get("deleted", 0)
        if not deleted or attempt == steps:
            break
        time.sleep(step)
    client.indices.flush(index=alias, force=True)
    return deleted


def acl_level_fields(acl: list[str], inherited: list[list[str]]) -> dict[str, list[str]]:
    """Every read restriction that applies, the evidence's own first, a level field each, every one of which the
    ACL filter requires to admit the reader (``search.retrievers.acl_filter``). Levels past the last field are
    merged into it as the readers all of them admit (none: ``NO_READER``), so more levels than fields hide
    the evidence from a reader some of them admit, and never show it to one any of them refuses."""
    levels = [list(level) for level in [acl, *inherited] if level]
    last = len(ACL_LEVEL_FIELDS) - 1
    if len(levels) > last + 1:
        admitted = set(levels[last]).intersection(*levels[last + 1:])
        levels = [*levels[:last], sorted(admitted) or [NO_READER]]
    return dict(zip(ACL_LEVEL_FIELDS, levels))


def to_source(evidence: dict, vectors: dict[str, object]) -> dict:
    """What OpenSearch stores of an evidence: its fields, its ACL levels and its ``vectors``; its sentence view
    only as the nested sentences and vectors the worker embedded (``SENTENCE_FIELD``), if any."""
    source = dict(evidence)
    source.pop(SENTENCE_FIELD, None)
    source.update(acl_level_fields(source.get("acl") or [], source.pop("acl_inherited", None) or []))
    source["page_url"] = source["url"]
    term = (source.get("meta") or {}).get("term")
    if term:
        source["term"] = term  # an index-term anchor's term, stored for the search to fetch
    source["indexed_at"] = datetime.now(timezone.utc).isoformat()
    source.update(vectors)
    return source


def replace_document(client: OpenSearch, settings: Settings, doc_id: str, sources: list[dict],
                     previous_ids: list[str] | None = None, searchable: bool = True) -> dict:
    """Write a document's evidence and remove its evidence that no longer exists.

    Writes go through the alias only (``require_alias``): a missing alias is an error naming it, never
    an index that OpenSearch would create without the template's mappings.

    ``previous_ids``: the evidence ids of the document's last write, when known (``JobStore.evidence_of``); those
    this write no longer holds are deleted by id, which reads what is written whether searchable yet or not.
    Without them, a query finds the document's other evidence, which sees only what a refresh has made searchable.
    ``searchable``: refreshed before it returns, so whoever reads the index next finds the evidence. A job's files
    are written without (each refresh writes a new segment, which the index then merges and whose vectors it
    graphs again: a tenth of a bench ingest's wall time) and made searchable together when the job's last file is
    counted (``workers.keywords``), before the job reports finished.
    """
    alias = settings.opensearch.index_alias
    actions = ({"_op_type": "index", "_index": alias, "_id": s["id"], "_source": s} for s in sources)
    written = 0
    errors: list[str] = []
    for ok, item in helpers.streaming_bulk(client, actions, chunk_size=settings.opensearch.bulk_chunk_size,
                                           max_retries=settings.opensearch.max_retries,
                                           raise_on_error=False, initial_backoff=BULK_BACKOFF,
                                           require_alias=True):
        if ok:
            written += 1
        else:
            errors.append(json.dumps(item)[:BULK_ERROR_CHARS])
    if errors:  # the old evidence stays until the new one is written
        return {"written": written, "removed": 0, "errors": errors}
    keep = [s["id"] for s in sources]
    if previous_ids is None:
        removed = client.delete_by_query(
            index=alias, conflicts="proceed",
            body={"query": {"bool": {"filter": [{"term": {"doc_id": doc_id}}],
                                     "must_not": [{"ids": {"values": keep}}]}}}).get("deleted", 0)
    else:
        removed = delete_evidence(client, settings, sorted(set(previous_ids) - set(keep)))
    if searchable:
        # Measured here (10 evidence a document): a refresh adds 15-30 ms a document, refresh="wait_for" on the
        # writes 1 s (the refresh interval); delete_by_query's own refresh is skipped when it deleted nothing.
        make_searchable(client, settings)
    return {"written": written, "removed": removed, "errors": errors}


def delete_evidence(client: OpenSearch, settings: Settings, evidence_ids: list[str]) -> int:
    """Delete these evidence by id (one already gone is no error); returns how many were deleted."""
    actions = ({"_op_type": "delete", "_index": settings.opensearch.index_alias, "_id": evidence_id}
               for evidence_id in evidence_ids)
    deleted = 0
    for ok, item in helpers.streaming_bulk(client, actions, chunk_size=settings.opensearch.bulk_chunk_size,
                                           max_retries=settings.opensearch.max_retries, raise_on_error=False,
                                           initial_backoff=BULK_BACKOFF):
        outcome = item.get("delete", {})
        if ok:
            deleted += outcome.get("result") == "deleted"
        elif outcome.get("status") != 404:
            raise ValueError(f"OpenSearch refused to delete evidence {outcome.get('_id')}: "
                             f"{json.dumps(item)[:BULK_ERROR_CHARS]}")
    return deleted


def make_searchable(client: OpenSearch, settings: Settings) -> None:
    """Refresh the alias: what was written before is found from now on."""
    client.indices.refresh(index=settings.opensearch.index_alias)


def delete_documents(client: OpenSearch, settings: Settings, doc_ids: list[str]) -> int:
    """Remove every evidence of these documents; returns how many were removed."""
    if not doc_ids:
        return 0
    result = client.delete_by_query(index=settings.opensearch.index_alias, refresh=True, conflicts="proceed",
                                    body={"query": {"terms": {"doc_id": list(doc_ids)}}})
    return result.get("deleted", 0)


def document_evidence(client: OpenSearch, settings: Settings, doc_ids: list[str], fields: list[str]) -> dict[str, dict]:
    """The stored ``fields`` of every evidence of these documents, by evidence id."""
    if not doc_ids:
        return {}
    query = {"query": {"terms": {"doc_id": list(doc_ids)}}, "_source": fields}
    hits = helpers.scan(client, index=settings.opensearch.index_alias, query=query)
    return {hit["_id"]: hit["_source"] for hit in hits}


def update_evidence(client: OpenSearch, settings: Settings, changes: dict[str, dict]) -> None:
    """Set these fields of these evidence (evidence id -> fields) in place, searchable when it returns; an
    evidence deleted meanwhile is left deleted. ValueError quoting OpenSearch when it refuses any other."""
    if not changes:
        return
    alias = settings.opensearch.index_alias
    actions = ({"_op_type": "update", "_index": alias, "_id": evidence_id, "doc": fields}
               for evidence_id, fields in changes.items())
    _done, errors = helpers.bulk(client, actions, chunk_size=settings.opensearch.bulk_chunk_size,
                                 max_retries=settings.opensearch.max_retries, initial_backoff=BULK_BACKOFF,
                                 raise_on_error=False)
    client.indices.refresh(index=alias)
    refused = [error for error in errors if error.get("update", {}).get("status") != 404]
    if refused:
        raise ValueError(f"OpenSearch refused {len(refused)} of {len(changes)} evidence updates "
                         f"({json.dumps(refused[0])[:BULK_ERROR_CHARS]})")


def answering(settings: Settings) -> OpenSearch:
    """A client, once OpenSearch answers (a command run just after the node was started waits for it, up to
    ``[opensearch] start_wait``)."""
    client = connect(settings)
    wait_for(client, timeout=settings.opensearch.start_wait)
    return client


def wait_for(client: OpenSearch, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.cluster.health(wait_for_status="yellow")
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(POLL_SECONDS)


def evidence_stats(client: OpenSearch, settings: Settings) -> dict:
    """What the index holds: evidence count, size on disk, evidence deleted but still counted by BM25 until
    beat's upkeep drops it (``expunge_deleted``), evidence by kind and by space."""
    alias = settings.opensearch.index_alias
    aggs = {name: {"terms": {"field": name, "size": FACET_BUCKETS}} for name in ("kind", "space")}
    response = client.search(index=alias, body={"size": 0, "track_total_hits": True, "aggs": aggs})
    primaries = client.indices.stats(index=alias, metric="store,docs")["_all"]["primaries"]
    return {"evidence": response["hits"]["total"]["value"], "size_bytes": primaries["store"]["size_in_bytes"],
            "deleted": primaries["docs"]["deleted"],
            **{f"by_{name}": [[b["key"] or "(none)", b["doc_count"]] for b in response["aggregations"][name]["buckets"]]
               for name in aggs}}  # pairs, most first: JSON objects lose the order
