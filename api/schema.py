"""The API's contract as pydantic models: spectree validates every request against them and publishes
them as the OpenAPI document at ``/api/openapi.json``, so the document and the checks never drift.

A request that does not fit gets a 400 whose ``error`` names the parameter and the reason
(``api.errors``). Limits that are settings (query length, history length, body size) are checked in
``api.search`` against ``[api]``; the document states the defaults.
"""
from __future__ import annotations

import datetime
import unicodedata
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator
from spectree import SecurityScheme, SpecTree
from spectree.models import InType, SecureType, SecuritySchemeData

from api.bodies import JsonBodyFlaskPlugin
from api.errors import reshape_validation_error
from api.examples import OPERATION_EXAMPLES
from api.identity import GROUPS_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, USER_HEADER
from core.settings import ApiConfig, PageGrouping, SearchMode, SortOrder
from search.schema import SearchResponse
from search.syntax import read_syntax

MAX_K = 100  # hits per page: more than a search box shows, few enough to answer fast
MAX_PAGE = 1000  # deeper than anyone pages; a page past the last result is simply empty
ID_PATTERN = r"^[A-Za-z0-9_-]*$"  # session and search ids: what the page and the log make, nothing else
MAX_ID_CHARS = 64  # a UUID in any spelling fits
MAX_URL_CHARS = 2048  # longer than any page URL a wiki or a site gives
MAX_OPENED_RESULTS = 10  # results opened after one turn: a page of results, each opened once
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
MAX_SUMMARY_DAYS = 366  # a year of search analytics: what a search owner compares against
HAS_TEXT = r"[^\s\x00-\x1f\x7f-\x9f]"  # a question needs one character that is neither space nor control
MAX_TYPED_CHARS = 200  # what a title suggestion reads of the box: longer than a title, far shorter than a question
MAX_SUGGESTIONS = 20  # titles at once: more than a list under a box shows


def true_or_false(value: object) -> object:
    """A switch's value before pydantic reads it: true or false, as JSON writes them or a query string spells them; a
    number is refused (pydantic would read 0.0 as false)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


class Error(BaseModel):
    """Every 4xx and 5xx answer."""

    error: str = Field(description="what was wrong, naming the parameter and the reason")
    errors: list[dict] = Field(default_factory=list, description="each invalid parameter: {parameter, reason}")


# What any JSON body can be answered with besides the endpoint's own: over [api] max_body_bytes, not JSON.
BODY_ERROR_STATUSES = (413, 415)


# Who may call: the admin's bearer token ([auth] admin_token), or an identity the intranet's proxy signed.
SECURITY_SCHEMES = [
    SecurityScheme(name="adminToken", data=SecuritySchemeData(
        type=SecureType.HTTP, scheme="bearer", description="the admin token ([auth] admin_token)")),
    SecurityScheme(name="signedProxy", data=SecuritySchemeData(
        type=SecureType.API_KEY, field_in=InType.HEADER, name=SIGNATURE_HEADER,
        description=f"a signed-in user as the reverse proxy vouches for them ([auth] mode signed-header): "
                    f"{USER_HEADER}, {GROUPS_HEADER} and {TIMESTAMP_HEADER}, signed with HMAC-SHA256 of [auth] "
                    f"proxy_secret in {SIGNATURE_HEADER}")),
]
ANYONE = [{}, {"signedProxy": []}]  # a search answers anyone; a signed identity opens the pages its groups may read
ADMINS = [{"adminToken": []}, {"signedProxy": []}]  # the token, or a signed identity with the admin role


class EvidentSpecTree(SpecTree):
    """spectree whose JSON bodies are read by ``api.bodies`` and whose document states, on every endpoint that
    takes a body, the answers a body can get before the endpoint sees it, and shows each operation's example
    (``api.examples``)."""

    def validate(self, *args, json=None, resp=None, **kwargs):
        if json is not None and resp is not None:
            for status in BODY_ERROR_STATUSES:
                resp.add_model(status, Error, replace=False)
        return super().validate(*args, json=json, resp=resp, **kwargs)

    def _generate_spec(self) -> dict:
        document = super()._generate_spec()
        for operations in document["paths"].values():
            for operation in operations.values():
                add_examples(operation, OPERATION_EXAMPLES.get(operation.get("operationId"), {}))
        return document


def add_examples(operation: dict, examples: dict) -> None:
    """An operation's example request (its JSON body, or its query's parameters) and answers, by status; a text
    answer is HTML unless the examples name its ``media`` type."""
    request = examples.get("request", {})
    if "requestBody" in operation:
        operation["requestBody"]["content"]["application/json"]["example"] = request
    for parameter in operation.get("parameters", []):
        if parameter["name"] in request:
            parameter["example"] = request[parameter["name"]]
    for status, example in examples.items():
        if status in operation.get("responses", {}):
            answer = operation["responses"][status]
            media = examples.get("media", "text/html") if isinstance(example, str) else "application/json"
            answer.setdefault("content", {}).setdefault(media, {})["example"] = example


# spectree leaves every route under its own path out of the document, so it gets a path of its own;
# ``api.app`` serves the document at /api/openapi.json.
spec = EvidentSpecTree("flask", backend=JsonBodyFlaskPlugin, title="Evident API", version="1", path="api/openapi",
                       page_templates={}, validation_error_status=400, validation_error_model=Error,
                       annotations=False, before=reshape_validation_error, security_schemes=SECURITY_SCHEMES)


def clean_text(value: str) -> str:
    """Control characters other than white space become spaces; a lone surrogate is refused."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid Unicode text (a lone surrogate)") from None
    return "".join(" " if unicodedata.category(c) == "Cc" and not c.isspace() else c for c in value)


StrList = str | list[str]


class SearchParams(BaseModel):
    """``GET /api/search``: the question, paging, and filters (a filter may repeat: ``labels=a&labels=b``)."""

    model_config = ConfigDict(extra="ignore")

    q: str = Field(pattern=HAS_TEXT, max_length=ApiConfig.max_query_chars,
                   description='the question, as typed (up to [api] max_query_chars characters); "an exact phrase" '
                               'in quotes is required, -word and -"a phrase" leave out results that hold them')
    k: int = Field(10, ge=1, le=MAX_K, description="hits per page")
    page: int = Field(1, ge=1, le=MAX_PAGE)
    mode: SearchMode | None = None
    group: PageGrouping | None = Field(None, description="group evidence by page (default) or not")
    collapse: bool | None = Field(None, description="near-duplicate pages as one result, the copies listed under "
                                  "it (default: [search] collapse_duplicates)")
    space: StrList = Field(default_factory=list, description="Confluence space keys")
    kind: StrList = Field(default_factory=list, description="evidence kinds: passage, table_row, pdf_page, ...")
    lang: StrList = Field(default_factory=list)
    labels: StrList = Field(default_factory=list)
    source_type: StrList = Field(default_factory=list, description="confluence, html or pdf")
    author: StrList = Field(default_factory=list, description="who last changed the page, as the facet names them")
    # A date as written (YYYY-MM-DD) only: pydantic's date type would also take a number as a timestamp.
    date_from: str | None = Field(None, pattern=DATE_PATTERN, json_schema_extra={"format": "date"},
                                  description="pages updated on or after (YYYY-MM-DD)")
    date_to: str | None = Field(None, pattern=DATE_PATTERN, json_schema_extra={"format": "date"},
                                description="pages updated on or before (YYYY-MM-DD)")
    sort: SortOrder = Field("relevance", description="relevance: best match first; updated: the pages that match "
                            "the question (verdict strong or weak) newest first, then the others by relevance")
    session: str = Field("", max_length=MAX_ID_CHARS, pattern=ID_PATTERN,
                         description="the search box's session id, for the search log (optional)")

    @field_validator("q")
    @classmethod
    def _query_text(cls, value: str) -> str:
        value = clean_text(value).strip()
        if not value:
            raise ValueError("must not be empty")
        if not read_syntax(value).text:
            raise ValueError("holds only what to leave out (-word, -\"a phrase\"): nothing to search for")
        return value

    _collapse_switch = field_validator("collapse", mode="before")(true_or_false)

    @field_validator("date_from", "date_to")
    @classmethod
    def _calendar_date(cls, value: str | None) -> str | None:
        if value is not None:
            datetime.date.fromisoformat(value)  # "2024-02-30" is no date: ValueError, a 400 naming the field
        return value

    @field_validator("space", "kind", "lang", "labels", "source_type", "author")
    @classmethod
    def _filter_values(cls, value: StrList) -> list[str]:
        return [clean_text(v) for v in ([value] if isinstance(value, str) else value) if v.strip()]


class ShownResult(BaseModel):
    """A result the search box showed for an earlier turn."""

    model_config = ConfigDict(extra="ignore")

    url: str = ""
    title: str = ""


class HistoryTurn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    q: str = Field(description="what was asked")
    results: list[ShownResult] = Field(default_factory=list, description="what was shown, best first")
    opened: list[Annotated[str, Field(max_length=MAX_URL_CHARS)]] = Field(
        default_factory=list, max_length=MAX_OPENED_RESULTS,
        description="URLs of the results the user opened after this turn, in that order: a follow-up leans on "
                    "them rather than on the first result")

    @field_validator("q")
    @classmethod
    def _turn_text(cls, value: str) -> str:
        return clean_text(value)


class SearchBody(SearchParams):
    """``POST /api/search``: the same as GET, plus the conversation so far (oldest first)."""

    history: list[HistoryTurn] = Field(default_factory=list, max_length=ApiConfig.max_history_turns,
                                       description="earlier turns, oldest first (up to [api] max_history_turns)")


class SuggestParams(BaseModel):
    """``GET /api/suggest``: what is typed in the box so far."""

    model_config = ConfigDict(extra="ignore")

    q: str = Field(pattern=HAS_TEXT, max_length=MAX_TYPED_CHARS,
                   description="the box's text so far: every word in the title, the last as a word's start")
    k: int = Field(8, ge=1, le=MAX_SUGGESTIONS, description="titles at most")

    @field_validator("q")
    @classmethod
    def _typed_text(cls, value: str) -> str:
        return clean_text(value).strip()


class Suggestion(BaseModel):
    title: str
    url: str = Field(description="the page (a PDF: the file)")
    space: str = Field(description="its space's key, empty outside a wiki")
    space_name: str = Field(description="its space's name, where the source gives one")


class Suggestions(BaseModel):
    """Pages whose titles hold what is typed, best first, among those the caller may read; ``warnings`` says when
    a presented identity was refused, so only public titles are offered."""

    suggestions: list[Suggestion]
    warnings: list[str] = []


class Click(BaseModel):
    """``POST /api/click``: the search box opened a result of a search."""

    search_id: str = Field(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN,
                           description="the ``search_id`` of the answer the result was on")
    url: str = Field(max_length=MAX_URL_CHARS)
    rank: int = Field(ge=1, le=MAX_K * MAX_PAGE, description="1-based position of the result in the answer")


class Feedback(BaseModel):
    """``POST /api/feedback``: the asker's word on the answer card of a search: did it answer the question?"""

    search_id: str = Field(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN,
                           description="the ``search_id`` of the answer whose card it is")
    helpful: bool = Field(description="true: the card answered the question; false: it did not")


class Retry(BaseModel):
    """``POST /api/ingest/retry``: a recorded error to queue its file again for."""

    job: str = Field(max_length=MAX_ID_CHARS, pattern=ID_PATTERN, description="the job that recorded the error")
    file: str = Field(min_length=1, max_length=MAX_URL_CHARS, description="the file name the error names")


class SummaryParams(BaseModel):
    days: int = Field(7, ge=1, le=MAX_SUMMARY_DAYS, description="how far back the search analytics look")


class SearchResult(RootModel[SearchResponse]):
    """Hits grouped by page, with snippets (HTML-escaped, ``<mark>`` around matched terms), facets,
    the language, the resolved follow-up and warnings of optional stages that failed; each hit's and the answer's
    ``verdict`` (strong, weak, none) and calibrated ``confidence``, and the ``answer`` card when one evidence
    answers the question."""


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    opensearch: str
    opensearch_nodes: int | None = None  # nodes in the cluster; none when OpenSearch does not answer
    redis: str
    workers: int | str
