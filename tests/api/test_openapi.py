"""Schemathesis against our own OpenAPI document, through the real app on the real OpenSearch: generated
requests, valid and invalid, a bounded number per operation; the answer must never be a server error and
must fit the document.

Schemathesis's own pytest plugin does not run under this pytest, so each operation's hypothesis strategy
is driven here directly; derandomized, so a run is repeatable (a new case is found by raising the count).
"""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

EXAMPLES_PER_OPERATION = 40  # enough to reach every parameter's edge cases; bounded so the suite stays quick


@pytest.fixture(scope="module")
def operations(app, sample_corpus):
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    return {op.label: op for op in (result.ok() for result in schema.get_all_operations())}


def takes_input(operation) -> bool:
    """Query parameters or a body can be sent wrong; a bare path parameter (any string) cannot."""
    raw = operation.definition.raw
    return bool(raw.get("requestBody") or any(p.get("in") == "query" for p in raw.get("parameters", [])))


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
