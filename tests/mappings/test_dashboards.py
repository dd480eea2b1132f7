"""mappings/dashboards/evident.ndjson: OpenSearch Dashboards saved objects that import cleanly.

Checks the export format (one JSON object per line, the keys the import API needs, the
JSON-in-strings attributes), that every reference resolves inside the file, and that every
field a visualization or saved search uses exists in the index it reads: the evidence index
template (mappings/evidence-template.json) or the search-log fields.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NDJSON = ROOT / "mappings" / "dashboards" / "evident.ndjson"
EVIDENCE_TEMPLATE = ROOT / "mappings" / "evidence-template.json"
INDEX_REF = "kibanaSavedObjectMeta.searchSourceJSON.index"

# The search log written to index `evident-searchlog` (one document per search). A mapping file
# mappings/*searchlog*.json, when there is one, takes precedence over this list.
SEARCHLOG_FIELDS = {"at": "date", "q": "text", "q.raw": "keyword", "took_ms": "integer", "hits": "integer",
                    "lang": "keyword", "mode": "keyword"}

NUMERIC = {"integer", "long", "short", "byte", "float", "double", "half_float", "scaled_float"}
AGGREGATABLE = NUMERIC | {"keyword", "date", "boolean", "ip"}
# aggregation type -> field types it accepts
AGG_FIELD_TYPES = {
    "terms": AGGREGATABLE, "significant_terms": AGGREGATABLE, "cardinality": AGGREGATABLE,
    "date_histogram": {"date"}, "date_range": {"date"}, "histogram": NUMERIC, "range": NUMERIC,
    "avg": NUMERIC, "sum": NUMERIC, "min": NUMERIC | {"date"}, "max": NUMERIC | {"date"},
    "median": NUMERIC, "percentiles": NUMERIC, "percentile_ranks": NUMERIC, "std_dev": NUMERIC,
    "top_hits": AGGREGATABLE,
}
REQUIRED_ATTRIBUTES = {
    "index-pattern": {"title", "timeFieldName"},
    "visualization": {"title", "visState", "uiStateJSON", "description", "version", "kibanaSavedObjectMeta"},
    "search": {"title", "columns", "sort", "kibanaSavedObjectMeta"},
    "dashboard": {"title", "panelsJSON", "optionsJSON", "timeRestore", "kibanaSavedObjectMeta"},
}


def flatten(properties: dict, prefix: str = "") -> dict[str, str]:
    """Mapping properties -> {dotted field name: type}, multi-fields included (title.raw ...)."""
    fields = {}
    for name, spec in properties.items():
        path = prefix + name
        if "properties" in spec:
            fields.update(flatten(spec["properties"], path + "."))
            continue
        fields[path] = spec.get("type", "object")
        for sub, sub_spec in spec.get("fields", {}).items():
            fields[f"{path}.{sub}"] = sub_spec.get("type", "object")
    return fields


def evidence_fields() -> dict[str, str]:
    template = json.loads(EVIDENCE_TEMPLATE.read_text(encoding="utf-8"))
    return flatten(template["template"]["mappings"]["properties"])


def searchlog_fields() -> dict[str, str]:
    for path in sorted((ROOT / "mappings").rglob("*searchlog*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        mappings = data.get("template", data).get("mappings", {})
        if "properties" in mappings:
            return flatten(mappings["properties"])
    return dict(SEARCHLOG_FIELDS)


def load_objects() -> list[dict]:
    objects = []
    for number, line in enumerate(NDJSON.read_text(encoding="utf-8").splitlines(), 1):
        assert line.strip(), f"line {number} is empty"
        objects.append(json.loads(line))
    return objects


OBJECTS = load_objects()
BY_KEY = {(o["type"], o["id"]): o for o in OBJECTS}


def fields_for_pattern(pattern: dict) -> dict[str, str]:
    title = pattern["attributes"]["title"]
    if title.startswith("evident-evidence"):
        return evidence_fields()
    if title.startswith("evident-searchlog"):
        return searchlog_fields()
    raise AssertionError(f"index pattern {title!r} is for no index Evident writes")


def pattern_of(obj: dict) -> dict:
    source = json.loads(obj["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
    assert source.get("indexRefName") == INDEX_REF, f"{obj['id']}: searchSourceJSON.indexRefName"
    assert "index" not in source, f"{obj['id']}: index ids belong in references, not searchSourceJSON"
    ref = next(r for r in obj["references"] if r["name"] == INDEX_REF)
    assert ref["type"] == "index-pattern"
    return BY_KEY[("index-pattern", ref["id"])]


def kuery_fields(query: str) -> set[str]:
    return set(re.findall(r"([A-Za-z_][\w.]*)\s*(?::|<=|>=|<|>)", query))


def test_every_line_is_a_saved_object():
    assert OBJECTS
    for obj in OBJECTS:
        assert set(obj) >= {"type", "id", "attributes", "references", "migrationVersion"}, obj.get("id")
        assert obj["type"] in REQUIRED_ATTRIBUTES, obj["type"]
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", obj["id"]), obj["id"]
        assert REQUIRED_ATTRIBUTES[obj["type"]] <= set(obj["attributes"]), obj["id"]
        assert set(obj["migrationVersion"]) == {obj["type"]}
        assert re.fullmatch(r"\d+\.\d+\.\d+", obj["migrationVersion"][obj["type"]])
        for ref in obj["references"]:
            assert set(ref) == {"name", "type", "id"}, obj["id"]
    assert len(BY_KEY) == len(OBJECTS), "duplicate type/id"


def test_json_strings_parse():
    for obj in OBJECTS:
        attrs = obj["attributes"]
        if "kibanaSavedObjectMeta" in attrs:
            assert isinstance(json.loads(attrs["kibanaSavedObjectMeta"]["searchSourceJSON"]), dict)
        if obj["type"] == "visualization":
            state = json.loads(attrs["visState"])
            assert state["title"] == attrs["title"] and state["type"] and isinstance(state["aggs"], list)
            assert isinstance(json.loads(attrs["uiStateJSON"]), dict)
        if obj["type"] == "dashboard":
            assert isinstance(json.loads(attrs["panelsJSON"]), list)
            assert isinstance(json.loads(attrs["optionsJSON"]), dict)


def test_every_reference_resolves_in_the_file():
    for obj in OBJECTS:
        names = [r["name"] for r in obj["references"]]
        assert len(names) == len(set(names)), obj["id"]
        for ref in obj["references"]:
            assert (ref["type"], ref["id"]) in BY_KEY, f"{obj['id']} -> {ref['type']}:{ref['id']}"


def test_index_patterns():
    patterns = {o["attributes"]["title"]: o["attributes"]["timeFieldName"]
                for o in OBJECTS if o["type"] == "index-pattern"}
    assert patterns == {"evident-evidence*": "indexed_at", "evident-searchlog*": "at"}
    for obj in OBJECTS:
        if obj["type"] == "index-pattern":
            fields = fields_for_pattern(obj)
            assert fields[obj["attributes"]["timeFieldName"]] == "date"


@pytest.mark.parametrize("vis", [o for o in OBJECTS if o["type"] == "visualization"], ids=lambda o: o["id"])
def test_visualization_fields_exist_in_their_index(vis):
    fields = fields_for_pattern(pattern_of(vis))
    state = json.loads(vis["attributes"]["visState"])
    ids = [agg["id"] for agg in state["aggs"]]
    assert len(ids) == len(set(ids)), "agg ids must be unique"
    for agg in state["aggs"]:
        field = agg["params"].get("field")
        if agg["type"] == "count":
            continue
        assert field, f"{agg['type']} without a field"
        assert field in fields, f"{vis['id']}: {field} is not a field of the index"
        allowed = AGG_FIELD_TYPES.get(agg["type"])
        assert allowed is not None, f"unexpected aggregation {agg['type']}"
        assert fields[field] in allowed, f"{vis['id']}: {agg['type']} on {field} ({fields[field]})"
        order_by = agg["params"].get("orderBy")
        if order_by and order_by not in ("_key", "custom", "alphabetical"):
            assert order_by in ids, f"{vis['id']}: orderBy {order_by} names no metric"
    for series in state["params"].get("seriesParams", []):
        assert series["data"]["id"] in ids
    query = json.loads(vis["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])["query"]["query"]
    assert kuery_fields(query) <= set(fields), f"{vis['id']}: query {query!r}"


def test_saved_search_columns_exist():
    searches = [o for o in OBJECTS if o["type"] == "search"]
    assert searches
    for search in searches:
        fields = fields_for_pattern(pattern_of(search))
        for column in search["attributes"]["columns"]:
            assert column in fields, f"{search['id']}: column {column}"
        for field, direction in search["attributes"]["sort"]:
            assert field in fields and direction in ("asc", "desc")


def test_dashboards_and_their_panels():
    dashboards = {o["attributes"]["title"]: o for o in OBJECTS if o["type"] == "dashboard"}
    assert set(dashboards) == {"Evident ingest", "Evident search"}
    for dash in dashboards.values():
        panels = json.loads(dash["attributes"]["panelsJSON"])
        refs = {r["name"]: r for r in dash["references"]}
        assert panels and len(refs) == len(panels)
        indexes = set()
        for panel in panels:
            ref = refs[panel["panelRefName"]]
            assert ref["type"] in ("visualization", "search")
            assert "id" not in panel and "type" not in panel, "ids belong in references"
            grid = panel["gridData"]
            assert grid["i"] == panel["panelIndex"]
            assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 48 and grid["h"] > 0
            indexes.add(pattern_of(BY_KEY[(ref["type"], ref["id"])])["attributes"]["title"])
        assert len(indexes) == 1, f"{dash['id']} mixes indexes: {indexes}"
        assert len({p["panelIndex"] for p in panels}) == len(panels)
        source = json.loads(dash["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
        assert source["query"]["language"] == "kuery"


def test_ingest_dashboard_covers_the_breakdowns():
    dash = next(o for o in OBJECTS if o["attributes"].get("title") == "Evident ingest")
    used = set()
    kinds = set()
    for ref in dash["references"]:
        target = BY_KEY[(ref["type"], ref["id"])]
        kinds.add(ref["type"])
        if ref["type"] == "visualization":
            for agg in json.loads(target["attributes"]["visState"])["aggs"]:
                used.add((agg["type"], agg["params"].get("field")))
    assert ("date_histogram", "indexed_at") in used
    for field in ("kind", "space", "lang", "source_type"):
        assert ("terms", field) in used, field
    assert "search" in kinds


def test_search_dashboard_covers_latency_and_zero_hits():
    dash = next(o for o in OBJECTS if o["attributes"].get("title") == "Evident search")
    used, queries = set(), set()
    for ref in dash["references"]:
        target = BY_KEY[(ref["type"], ref["id"])]
        source = json.loads(target["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
        for agg in json.loads(target["attributes"]["visState"])["aggs"]:
            used.add((agg["type"], agg["params"].get("field")))
            if agg["type"] == "terms" and agg["params"]["field"] == "q.raw":
                queries.add(source["query"]["query"])
    assert ("date_histogram", "at") in used
    assert ("percentiles", "took_ms") in used and ("avg", "took_ms") in used
    assert "hits:0 or verdict:none" in queries  # a search with no good match counts as zero-hit


def test_search_dashboard_shows_top_queries_beside_zero_hit_and_no_click():
    dash = next(o for o in OBJECTS if o["attributes"].get("title") == "Evident search")
    panel_of = {r["id"]: r["name"] for r in dash["references"]}
    grid = {p["panelRefName"]: p["gridData"] for p in json.loads(dash["attributes"]["panelsJSON"])}
    top = BY_KEY[("visualization", "evident-top-queries")]
    source = json.loads(top["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
    aggs = json.loads(top["attributes"]["visState"])["aggs"]
    terms = next(a for a in aggs if a["type"] == "terms")
    assert source["query"]["query"] == ""  # every search, not a subset
    assert terms["params"]["field"] == "q.raw" and terms["params"]["order"] == "desc"
    assert next(a for a in aggs if a["id"] == terms["params"]["orderBy"])["type"] == "count"  # most searched first
    top_cell, zero_cell = grid[panel_of["evident-top-queries"]], grid[panel_of["evident-zero-hit-queries"]]
    assert top_cell["y"] == zero_cell["y"] and top_cell["x"] != zero_cell["x"]  # side by side
    assert "evident-no-click-queries" in panel_of and "evident-clicks-by-rank" in panel_of


def test_search_dashboard_lists_the_answer_cards_marked_not_helpful():
    """The asker's word on a card (``POST /api/feedback``) lands on the dashboard as the queries to act on."""
    dash = next(o for o in OBJECTS if o["attributes"].get("title") == "Evident search")
    assert "evident-not-helpful-answers" in {r["id"] for r in dash["references"]}
    vis = BY_KEY[("visualization", "evident-not-helpful-answers")]
    source = json.loads(vis["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
    fields = [a["params"].get("field") for a in json.loads(vis["attributes"]["visState"])["aggs"] if a["type"] == "terms"]
    assert source["query"]["query"] == "feedback:not_helpful" and fields == ["q.raw", "answer_title"]
