"""A body that is not JSON where an endpoint takes JSON is a 415 or a 400 naming the body and the reason, on
each of the endpoints that take one; never a 500, and never a traceback in the log."""
from __future__ import annotations

import logging
import time

import pytest

from api.bodies import MAX_JSON_DEPTH, json_depth
from tests.api.conftest import ADMIN

JSON_ENDPOINTS = ("/api/search", "/api/click", "/api/feedback", "/api/ingest/retry", "/api/admin/sources")
DEEP_LEVELS = 5000  # the nesting that overflowed the recursive JSON parser (a 25 KB body with the spaces)
# CPU seconds of the test process (not the clock, which other processes on a shared machine stretch): a 1 MB
# body is counted in milliseconds; quadratic work would take minutes
LINEAR_SECONDS = 1.0


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_depth_counts_brackets_outside_strings_only():
    assert json_depth('{"q": "x"}') == 1
    assert json_depth('{"a": [{"b": []}]}') == 4
    assert json_depth('{"q": "[[[[{{{{"}') == 1
    assert json_depth(r'{"q": "a \" [[[[ \\", "r": [[]]}') == 3  # an escaped quote does not end the string
    assert json_depth("") == 0 and json_depth("12") == 0
    assert json_depth(nested(DEEP_LEVELS)) == DEEP_LEVELS


def test_depth_is_linear_in_the_text_even_for_strings_that_never_end():
    # every quote here looks like the start of a string that is never closed: a string pattern that backtracks
    # would scan to the end from each of them
    hostile = '"' + '\\"' * 500_000
    started = time.process_time()
    json_depth(hostile)
    json_depth("[]," * 350_000)
    assert time.process_time() - started < LINEAR_SECONDS


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@pytest.mark.parametrize("data, content_type, status, reason", [
    ("q=x", "application/x-www-form-urlencoded", 415, "must be JSON with Content-Type: application/json, not "
                                                      "'application/x-www-form-urlencoded'"),
    ('{"q": "x"}', "text/plain", 415, "not 'text/plain'"),
    ('{"q": "x"}', None, 415, "and it has none"),
    ("", "application/json", 400, "is empty"),
    (nested(DEEP_LEVELS), "application/json", 400, f"deeper than {MAX_JSON_DEPTH} levels"),
    ('{"q": ' + nested(MAX_JSON_DEPTH) + "}", "application/json", 400, f"deeper than {MAX_JSON_DEPTH} levels"),
    (b'{"q": "caf\xe9"}', "application/json", 400, "is not UTF-8 text (byte 0xe9 at offset 10)"),
    ('{"q": "x",}', "application/json", 400, "is not valid JSON: Expecting property name enclosed in double "
                                             "quotes at line 1 column 11"),
    ("1" * 5000, "application/json", 400, "is not valid JSON: Exceeds the limit"),
])
def test_a_body_that_is_not_json_is_refused_naming_the_body(client, caplog, path, data, content_type, status, reason):
    with caplog.at_level(logging.INFO):
        answer = client.post(path, data=data, content_type=content_type, headers=ADMIN)
    assert answer.status_code == status and answer.mimetype == "application/json"
    assert answer.json["error"].startswith("body: ") and reason in answer.json["error"]
    assert answer.json["errors"] == [{"parameter": "body", "reason": answer.json["error"].removeprefix("body: ")}]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert any("refused with" in r.getMessage() for r in caplog.records)  # recorded, as every refusal is


def test_nesting_up_to_the_bound_reaches_validation(client):
    inner = nested(MAX_JSON_DEPTH - 1)  # the object itself is the first level
    answer = client.post("/api/search", json={"q": "x", "history": [{"q": "y", "results": [{}], "opened": []}]})
    assert answer.status_code == 200  # a body five levels deep: what the search box sends
    answer = client.post("/api/click", data='{"search_id": ' + inner + "}", content_type="application/json")
    assert answer.status_code == 400 and answer.json["errors"][0]["parameter"] == "search_id"


def test_an_admin_endpoint_asks_for_the_identity_before_reading_the_body(client):
    answer = client.post("/api/ingest/retry", data="job=x", content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 401  # an anonymous caller learns nothing about what the endpoint takes
