"""Requests the schema does not describe, made from the cases schemathesis generates: the same case sent
form-encoded, as text, with no media type, empty, nested deep, over the body limit, not UTF-8, with a header or
a request line over the server's limits. Used by ``test_openapi`` through the app, and by hand against
``evident serve`` (a base URL) for a longer run."""
from __future__ import annotations

import json
from urllib.parse import urlencode

from hypothesis import HealthCheck, given, settings, strategies as st
from schemathesis import GenerationMode

DEEP_LEVELS = 5000  # far past any bound: the nesting that overflowed the recursive JSON parser
OVERSIZED_HEADER_BYTES = 17_000  # past the 16 KiB a header field may take under gunicorn (evident.server)
OVERSIZED_QUERY_BYTES = 9_000  # past the 8190 bytes a request line may take under gunicorn
MUTATIONS = ("as generated", "form-encoded", "text/plain", "no content type", "empty", "deep", "oversized body",
             "not UTF-8", "oversized header", "long request line")
BODY_MUTATIONS = MUTATIONS[1:8]


def takes_body(operation) -> bool:
    return bool(operation.definition.raw.get("requestBody"))


def takes_input(operation) -> bool:
    """Query parameters or a body can be sent wrong; a bare path parameter (any string) cannot."""
    raw = operation.definition.raw
    return takes_body(operation) or any(p.get("in") == "query" for p in raw.get("parameters", []))


def as_json(value) -> str:
    """A generated value as JSON text; what JSON cannot hold (bytes) as its repr."""
    return json.dumps(value, default=repr)


def generated_json(case) -> bytes:
    """The case's body as JSON bytes (``{}`` when it has none)."""
    return as_json(case.body if isinstance(case.body, (dict, list, str, int, float, bool)) else {}).encode()


def mutated(case, mutation: str, max_body_bytes: int) -> dict:
    """Keyword arguments for ``case.call`` that send the case changed as ``mutation`` says."""
    json_type = {"Content-Type": "application/json"}
    if mutation == "form-encoded":
        fields = case.body if isinstance(case.body, dict) else {"body": case.body}
        return {"data": urlencode({k: as_json(v) for k, v in fields.items()}),
                "headers": {"Content-Type": "application/x-www-form-urlencoded"}}
    if mutation == "text/plain":
        return {"data": generated_json(case), "headers": {"Content-Type": "text/plain"}}
    if mutation == "no content type":
        return {"data": generated_json(case), "headers": {"Content-Type": ""}}
    if mutation == "empty":
        return {"data": b"", "headers": json_type}
    if mutation == "deep":
        return {"data": b'{"q": ' + b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS + b"}", "headers": json_type}
    if mutation == "oversized body":
        return {"data": b'{"q": "' + b"a" * max_body_bytes + b'"}', "headers": json_type}
    if mutation == "not UTF-8":
        return {"data": b'{"q": "caf\xe9"}', "headers": json_type}
    if mutation == "oversized header":
        return {"headers": {"X-Padding": "a" * OVERSIZED_HEADER_BYTES}}
    if mutation == "long request line":
        return {"params": {"padding": "a" * OVERSIZED_QUERY_BYTES}}
    return {}


def fuzz(operations, examples: int, max_body_bytes: int, on_answer, call_kwargs: dict | None = None) -> None:
    """``examples`` generated cases per operation and generation mode, each sent as generated or mutated (a
    body mutation only where the operation takes a body); ``on_answer(operation, mutation, response)`` checks
    each answer. Derandomized, so a run is repeatable."""
    for operation in operations:
        chosen = MUTATIONS if takes_body(operation) else tuple(m for m in MUTATIONS if m not in BODY_MUTATIONS)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if takes_input(operation) \
                else (GenerationMode.POSITIVE,):
            @given(case=operation.as_strategy(generation_mode=mode), mutation=st.sampled_from(chosen))
            @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
            def call(case, mutation):
                kwargs = mutated(case, mutation, max_body_bytes)
                headers = {**(call_kwargs or {}).get("headers", {}), **kwargs.pop("headers", {})}
                extra = {k: v for k, v in (call_kwargs or {}).items() if k != "headers"}
                on_answer(operation, mutation, case.call(headers=headers, **extra, **kwargs))

            call()
