"""Search endpoints: the search page, ``/api/search`` (GET, and POST with the conversation), ``/api/suggest`` (pages
by title as the box is typed in), ``/api/click`` (a result opened, for the search log), ``/api/feedback`` (did the
answer card answer the question?), ``/api/health``. Warnings, and the query and URL written to the search log,
are redacted (``core.urls.redact``): a pasted token or a configured password stays out of both.

The caller's principals come from ``api.identity`` (never from a header anyone can set); a presented
identity that fails verification is served public results with a warning saying why. A search's answer carries
a ``Server-Timing`` header with each stage's time and OpenSearch round trips (``core.profile``).
"""
from __future__ import annotations

from html import escape

from flask import Blueprint, current_app, g, jsonify, request
from spectree import Response

from api.errors import BadRequest, refusal_answer
from api.identity import Caller
from api.schema import (ANYONE, Click, Error, Feedback, Health, SearchBody, SearchParams, SearchResult,
                        SuggestParams, Suggestions, spec)
from core.profile import recording, server_timing
from core.searchlog import anonymised
from core.urls import redact
from search.retrievers import FILTER_FIELDS
from search.schema import SearchRequest, Turn
from search.suggest import suggestions

search = Blueprint("search", __name__)
WORKER_PING_SECONDS = 1.0  # how long health waits for workers to answer: a live worker answers in ms
OPENSEARCH_DESCRIPTION = """<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>Evident</ShortName>
  <Description>Search the intranet</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Url type="text/html" method="get" template="{template}"/>
</OpenSearchDescription>
"""
ERRORS = {"HTTP_400": Error, "HTTP_413": Error, "HTTP_415": Error, "HTTP_503": Error}


def _evident() -> dict:
    return current_app.extensions["evident"]


def current_caller() -> Caller:
    """The verified caller of this request (computed once per request)."""
    if "caller" not in g:
        g.caller = _evident()["auth"].caller(request.headers)
    return g.caller


def refusal(caller: Caller) -> list[str]:
    """The warning of a presented identity that failed verification: its caller is served public pages only."""
    return [f"identity not accepted ({caller.refused}); showing public results only"] if caller.refused else []


def build_request(params: SearchParams, caller: Caller) -> SearchRequest:
    """A validated request in, the searcher's request out; limits from ``[api]`` settings."""
    limits = _evident()["settings"].api
    if len(params.q) > limits.max_query_chars:
        raise BadRequest("q", f"at most {limits.max_query_chars} characters, got {len(params.q)}")
    history = getattr(params, "history", [])
    if len(history) > limits.max_history_turns:
        raise BadRequest("history", f"at most {limits.max_history_turns} turns, got {len(history)}")
    filters = {name: getattr(params, name) for name in (*FILTER_FIELDS, "date_from", "date_to")
               if getattr(params, name)}
    return SearchRequest(query=params.q, k=params.k, page=params.page, groups=caller.principals(),
                         history=[Turn(t.q, [r.model_dump() for r in t.results], t.opened) for t in history],
                         filters=filters, mode=params.mode, group=params.group,
                         collapse_duplicates=params.collapse, sort=params.sort)


@search.get("/")
@spec.validate(resp=Response("HTTP_200"), tags=["page"], operation_id="searchPage", security=ANYONE)
def page():
    """The search page (HTML)."""
    with open(f"{current_app.static_folder}/index.html", "rb") as page_file:  # spectree reads the body back
        return current_app.response_class(page_file.read(), mimetype="text/html")


@search.get("/opensearch.xml")
@spec.validate(resp=Response("HTTP_200"), tags=["page"], operation_id="openSearchDescription", security=ANYONE)
def opensearch_description():
    """The search page as a browser's search engine (an OpenSearch 1.1 description, linked from the page): added
    once, the intranet is searched from the address bar. Its address is ``[api] public_url``, else the one the
    browser reached the API at."""
    address = _evident()["public_url"] or request.host_url
    template = escape(f"{address}?q={{searchTerms}}", quote=True)
    return current_app.response_class(OPENSEARCH_DESCRIPTION.format(template=template),
                                      mimetype="application/opensearchdescription+xml")


@search.get("/api/search")
@spec.validate(query=SearchParams, resp=Response(HTTP_200=SearchResult, **ERRORS), tags=["search"],
               operation_id="search", security=ANYONE)
def search_get():
    """Search: hits grouped by page, filtered by what the caller may read."""
    return answer(request.context.query)


@search.post("/api/search")
@spec.validate(json=SearchBody, resp=Response(HTTP_200=SearchResult, **ERRORS), tags=["search"],
               operation_id="searchConversation", security=ANYONE)
def search_post():
    """Search within a conversation: a follow-up question is resolved from ``history``."""
    return answer(request.context.json)


def answer(params: SearchParams):
    ev, caller = _evident(), current_caller()
    search_request = build_request(params, caller)
    with recording() as profile:
        response = ev["searcher"].search(search_request)
    response.warnings.extend(refusal(caller))
    # The edge every warning leaves by: an LLM endpoint's or a token's secret never reaches a browser.
    response.warnings = [redact(warning) for warning in response.warnings]
    settings = ev["settings"]
    who = caller.user or ",".join(caller.groups)
    response.search_id = ev["searchlog"].search(
        redact(response.query), response.took_ms, response.total, response.lang,
        search_request.mode or settings.search.mode,
        caller=anonymised(who, settings.api.caller_id_salt), session=params.session, verdict=response.verdict,
        answer=(response.answer.evidence_id, response.answer.title) if response.answer else ("", ""))
    answered = jsonify(response.as_json())
    answered.headers["Server-Timing"] = server_timing(profile)  # the stages' times, for a browser's developer tools
    return answered


@search.get("/api/suggest")
@spec.validate(query=SuggestParams, resp=Response(HTTP_200=Suggestions, **ERRORS), tags=["search"],
               operation_id="suggest", security=ANYONE)
def suggest():
    """Pages by title as the box is typed in (the search page's list under the box); not in the search log."""
    params: SuggestParams = request.context.query
    ev = _evident()
    settings = ev["settings"]
    caller = current_caller()
    found = suggestions(ev["opensearch"], settings.opensearch.index_alias, params.q, caller.principals(),
                        params.k, settings.ingest.files_base_url)
    return jsonify({"suggestions": found, "warnings": [redact(warning) for warning in refusal(caller)]})


@search.post("/api/click")
@spec.validate(json=Click, resp=Response("HTTP_204", HTTP_404=Error, **ERRORS), tags=["search"], operation_id="click",
               security=ANYONE)
def click():
    """A result of a search was opened: counted on that search's log line (for click-through by rank)."""
    body: Click = request.context.json
    if not _evident()["searchlog"].click(body.search_id, redact(body.url), body.rank):
        return refusal_answer(404, f"search_id: no search {body.search_id!r} in the search log")
    return "", 204


@search.post("/api/feedback")
@spec.validate(json=Feedback, resp=Response("HTTP_204", HTTP_404=Error, **ERRORS), tags=["search"],
               operation_id="feedback", security=ANYONE)
def feedback():
    """The asker's word on a search's answer card, kept on that search's log line: the console lists the cards
    marked not helpful. 404 when no search has that id, or the search showed no card."""
    body: Feedback = request.context.json
    kept = _evident()["searchlog"].feedback(body.search_id, body.helpful)
    if not kept:
        reason = "no search with that id in the search log" if kept is None else "that search showed no answer card"
        return refusal_answer(404, f"search_id {body.search_id!r}: {reason}")
    return "", 204


@search.get("/api/health")
@spec.validate(resp=Response(HTTP_200=Health, HTTP_503=Health), tags=["operations"], operation_id="health",
               security=ANYONE)
def health():
    """OpenSearch, Redis and worker status; 503 when any is down (the reason redacted: a service URL may
    carry its password)."""
    ev = _evident()
    status: dict = {}
    try:
        cluster = ev["opensearch"].cluster.health()
        status["opensearch"], status["opensearch_nodes"] = cluster["status"], cluster["number_of_nodes"]
    except Exception as exc:  # noqa: BLE001 - health reports every failure as text
        status["opensearch"] = f"down: {redact(str(exc))}"
    try:
        ev["jobs"].ping()
        status["redis"] = "ok"
    except Exception as exc:  # noqa: BLE001
        status["redis"] = f"down: {redact(str(exc))}"
    try:
        replies = ev["celery"].control.ping(timeout=WORKER_PING_SECONDS)
        status["workers"] = len(replies)
    except Exception as exc:  # noqa: BLE001
        status["workers"] = f"unknown: {redact(str(exc))}"
    healthy = status["opensearch"] in ("green", "yellow") and status["redis"] == "ok" \
        and isinstance(status["workers"], int) and status["workers"] > 0
    status["status"] = "ok" if healthy else "degraded"
    return jsonify(status), 200 if healthy else 503
