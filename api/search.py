"""Search endpoints: the search page, ``/api/search`` (GET and POST with conversation), ``/api/health``."""
from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, current_app, jsonify, request, send_from_directory

from core.index import log_search
from search.searcher import SearchRequest, Turn

search = Blueprint("search", __name__)
# Groups of the caller, set by the intranet's trusted reverse proxy (full auth comes later).
GROUPS_HEADER = "X-Evident-Groups"
FILTER_NAMES = ("space", "kind", "lang", "labels", "source_type")
MAX_K = 100


class BadRequest(ValueError):
    pass


def _evident() -> dict:
    return current_app.extensions["evident"]


def caller_groups() -> list[str]:
    raw = request.headers.get(GROUPS_HEADER, "")
    return [g.strip() for g in raw.split(",") if g.strip()]


def _int(value, name: str, default: int, low: int, high: int) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise BadRequest(f"{name} must be a whole number, got {value!r}") from None
    if not low <= number <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, got {number}")
    return number


def build_request(args: dict, body: dict) -> SearchRequest:
    query = (body.get("q") if body else None) or args.get("q", "")
    if not isinstance(query, str) or not query.strip():
        raise BadRequest("q (the query) is required")
    history = []
    for n, turn in enumerate(body.get("history", []) if body else []):
        if not isinstance(turn, dict) or not isinstance(turn.get("q"), str):
            raise BadRequest(f"history[{n}] must be an object with a string 'q'")
        history.append(Turn(turn["q"], [r for r in turn.get("results", []) if isinstance(r, dict)]))
    filters = {}
    for name in FILTER_NAMES:
        value = (body or {}).get(name) or args.getlist(name)
        if value:
            filters[name] = value
    for name in ("date_from", "date_to"):
        value = (body or {}).get(name) or args.get(name)
        if value:
            filters[name] = value
    source = {**args, **(body or {})}
    mode = source.get("mode")
    if mode not in (None, "", "bm25", "dense", "hybrid", "baseline"):
        raise BadRequest(f"mode must be bm25, dense, hybrid or baseline, got {mode!r}")
    group = source.get("group")
    if group not in (None, "", "page", "none"):
        raise BadRequest(f"group must be page or none, got {group!r}")
    return SearchRequest(query=query.strip(), k=_int(source.get("k"), "k", 10, 1, MAX_K),
                         page=_int(source.get("page"), "page", 1, 1, 1000), groups=caller_groups(),
                         history=history, filters=filters, mode=mode or None, group=group or None)


@search.errorhandler(BadRequest)
def bad_request(exc: BadRequest):
    return jsonify({"error": str(exc)}), 400


@search.route("/")
def page():
    return send_from_directory(current_app.static_folder, "index.html")


@search.route("/api/search", methods=["GET", "POST"])
def api_search():
    body = request.get_json(silent=True) if request.method == "POST" else None
    if request.method == "POST" and body is None:
        raise BadRequest("POST /api/search expects a JSON body")
    ev = _evident()
    search_request = build_request(request.args, body)
    response = ev["searcher"].search(search_request)
    try:
        log_search(ev["opensearch"], response.query, response.took_ms, response.total, response.lang,
                   search_request.mode or ev["settings"].search.mode)
    except Exception as exc:  # noqa: BLE001 - a lost log line must not fail the user's search
        current_app.logger.warning("search log not written: %s", exc)
    return jsonify(asdict(response))


@search.route("/api/health")
def health():
    ev = _evident()
    status: dict = {}
    try:
        status["opensearch"] = ev["opensearch"].cluster.health()["status"]
    except Exception as exc:  # noqa: BLE001 - health reports every failure as text
        status["opensearch"] = f"down: {exc}"
    try:
        ev["jobs"].redis.ping()
        status["redis"] = "ok"
    except Exception as exc:  # noqa: BLE001
        status["redis"] = f"down: {exc}"
    try:
        replies = ev["celery"].control.ping(timeout=1.0)
        status["workers"] = len(replies)
    except Exception as exc:  # noqa: BLE001
        status["workers"] = f"unknown: {exc}"
    healthy = status["opensearch"] in ("green", "yellow") and status["redis"] == "ok" \
        and isinstance(status["workers"], int) and status["workers"] > 0
    status["status"] = "ok" if healthy else "degraded"
    return jsonify(status), 200 if healthy else 503
