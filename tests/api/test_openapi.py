"""Schemathesis against our own OpenAPI document, through the real app on the real OpenSearch: generated
requests, valid and invalid, a bounded number per operation; the answer must never be a server error and
must fit the document. Then the requests the document does not describe (``tests.api.fuzz``): form-encoded,
empty, deep, oversized and not-UTF-8 bodies, oversized headers, each answered with a JSON 4xx.

Schemathesis's own pytest plugin does not run under this pytest, so each operation's hypothesis strategy
is driven here directly; derandomized, so a run is repeatable (a new case is found by raising the count).
"""
from __future__ import annotations

import logging
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.api.conftest import ADMIN
from tests.api.fuzz import BODY_MUTATIONS, fuzz, takes_input

EXAMPLES_PER_OPERATION = 40  # enough to reach every parameter's edge cases; bounded so the suite stays quick
# per operation and generation mode, each sent as generated or changed one of ten ways: every change reaches
# every operation a few times, a few hundred requests in all
FUZZ_EXAMPLES_PER_OPERATION = 12
# what each change of a body is answered with before the endpoint sees it
BODY_REFUSALS = {"form-encoded": 415, "text/plain": 415, "no content type": 415, "empty": 400, "deep": 400,
                 "oversized body": 413, "not UTF-8": 400}


def content_type(response) -> str:
    return next((values[0] for name, values in response.headers.items() if name.lower() == "content-type"), "")


@pytest.fixture(scope="module")
def operations(app, sample_corpus):
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    return {op.label: op for op in (result.ok() for result in schema.get_all_operations())}


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_errors_and_answers_fit_the_document(operations, mode):
    assert len(operations) >= 6
    for operation in operations.values():
        if mode == GenerationMode.NEGATIVE and not takes_input(operation):
            continue  # nothing to send wrong
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        def call(case):
            case.call_and_validate()

        call()


def test_requests_the_document_does_not_describe_get_a_json_4xx_and_log_no_traceback(operations, app, caplog):
    assert set(BODY_REFUSALS) == set(BODY_MUTATIONS)
    answers: Counter = Counter()

    def check(operation, mutation, response):
        status, said = response.status_code, f"{operation.label} sent {mutation}: {response.status_code}"
        answers[mutation, status] += 1
        assert status < 500, f"{said} {response.text[:300]}"
        if mutation in BODY_REFUSALS:
            assert status == BODY_REFUSALS[mutation], said
            assert response.json()["errors"][0]["parameter"] == "body", said
        if status >= 400:
            assert content_type(response) == "application/json" and response.json()["error"], said

    with caplog.at_level(logging.INFO):
        fuzz(operations.values(), FUZZ_EXAMPLES_PER_OPERATION, app.config["MAX_CONTENT_LENGTH"], check,
             call_kwargs={"headers": ADMIN})  # the admin's token, so the admin endpoints read their bodies too
    assert {mutation for mutation, _status in answers} == set(BODY_REFUSALS) | {"as generated", "oversized header",
                                                                               "long request line"}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], \
        "a client's mistake left an error or a traceback in the log"


def test_the_document_names_each_operation_says_who_may_call_and_shows_an_example(client):
    document = client.get("/api/openapi.json").get_json()
    operations = {o["operationId"]: o for methods in document["paths"].values() for o in methods.values()}
    assert {"search", "searchConversation", "click", "health", "listJobs", "getJob", "cancelJob", "retryFile",
            "getSummary", "listSources", "addSource", "syncSource", "removeSource"} <= set(operations)
    schemes = document["components"]["securitySchemes"]
    assert (schemes["adminToken"]["type"], schemes["adminToken"]["scheme"]) == ("http", "bearer")
    assert (schemes["signedProxy"]["type"], schemes["signedProxy"]["in"]) == ("apiKey", "header")
    admins = operations["listSources"]["security"]
    assert {"adminToken": []} in admins and {} not in admins  # an admin endpoint answers no anonymous caller
    assert {} in operations["search"]["security"]  # anyone may search; a signed identity reads more
    for name, operation in operations.items():
        shown = [answer for answer in operation["responses"].values()
                 for media in answer.get("content", {}).values() if "example" in media]
        asked = "example" in str(operation.get("requestBody", "")) or any("example" in p
                                                                          for p in operation.get("parameters", []))
        assert shown or asked, f"{name} shows no example"
    schemas = document["components"]["schemas"]
    response = next(schema for key, schema in schemas.items() if key.endswith(".SearchResponse"))
    facets = response["properties"]["facets"]
    assert facets["additionalProperties"]["additionalProperties"]["type"] == "integer"  # facet -> value -> count
    assert "$ref" in str(response["properties"]["answer"]) and "$ref" in str(response["properties"]["hits"])


def test_the_admin_answers_are_typed(client):
    """A client of the ingest queue, the jobs and the live sources finds each answer's fields in the document."""
    document = client.get("/api/openapi.json").get_json()
    operations = {o["operationId"]: o for methods in document["paths"].values() for o in methods.values()}
    error = next(schema for key, schema in document["components"]["schemas"].items()
                 if "RecordedError" in key.split("."))  # its own, or nested under the job's

    def answered(operation: str, status: str = "200") -> dict:
        ref = operations[operation]["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        return document["components"]["schemas"][ref.rsplit("/", 1)[1]]

    job = answered("getJob")
    assert job["properties"]["state"]["enum"] == ["running", "cancelling", "cancelled", "finished"]
    assert {"total", "done", "failed", "cancelled", "errors"} <= set(job["required"])
    assert answered("cancelJob") == job
    assert "$ref" in str(answered("listJobs")) and "$ref" in str(answered("getSummary"))
    assert {"job", "file", "reason"} <= set(error["required"])
    assert {"queue", "waiting", "metrics"} <= set(answered("getQueue")["properties"])
    source = answered("getSource")
    assert source == answered("addSource", "201") and {"next_sync", "last_sync", "running"} <= set(source["required"])
    assert answered("syncSource", "202")["properties"]["queued"]["type"] == "boolean"
    assert answered("removeSource")["properties"]["removed_evidence"]["type"] == "integer"
