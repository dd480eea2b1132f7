"""JSON request bodies, read before spectree validates them.

An endpoint that takes JSON refuses anything else with a sentence naming the body and the reason: another
media type or none is a 415; a body over ``[api] max_body_bytes`` a 413; an empty body, bytes that are not
UTF-8, JSON nested deeper than ``MAX_JSON_DEPTH`` or text that is not JSON a 400. Left to spectree, a
form-encoded body reached the endpoint as no body at all (an AttributeError) and a deeply nested one
overflowed the recursive JSON parser (a RecursionError): both were 500s with a traceback in the log.
"""
from __future__ import annotations

import json
import re
from itertools import accumulate

from spectree.plugins.flask_plugin import FlaskPlugin
from werkzeug.exceptions import RequestEntityTooLarge

from api.errors import BadRequest, PayloadTooLarge, UnsupportedBody

# Our deepest body (a search's history -> turn -> results -> result) nests 4 levels; 32 leaves room for a
# source's options and stays far below what Python's recursive JSON parser and pydantic survive.
MAX_JSON_DEPTH = 32
BODYLESS_METHODS = ("GET", "DELETE")  # spectree reads no body for these; neither do we
SHOWN_MEDIA_TYPE_CHARS = 80  # a Content-Type quoted back in a refusal: enough to recognise it

ESCAPED_CHARACTER = re.compile(r"\\.", re.DOTALL)
STRING = re.compile(r'"[^"]*"')  # once escapes are gone, a string runs to the next quote
NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
NESTING_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in JSON text, counted without parsing it: brackets inside strings do
    not count. Linear in the text (escapes go first, so no string pattern can backtrack); for text that is no
    JSON the count is right up to where a parser would stop, which is as deep as a parser would go."""
    brackets = NOT_A_BRACKET.sub("", STRING.sub("", ESCAPED_CHARACTER.sub("", text)))
    return max(accumulate(map(NESTING_STEP.__getitem__, brackets)), default=0)


def read_json_body(request):
    """The request's body parsed as JSON, or a ``BadRequest`` naming the body and what is wrong with it."""
    if not request.is_json:
        given = f"not {request.mimetype[:SHOWN_MEDIA_TYPE_CHARS]!r}" if request.mimetype else "and it has none"
        raise UnsupportedBody("body", f"must be JSON with Content-Type: application/json, {given}")
    try:
        data = request.get_data(cache=True)
    except RequestEntityTooLarge:
        raise PayloadTooLarge("body", f"over the {request.max_content_length} bytes a request may carry "
                                      "([api] max_body_bytes)") from None
    if not data.strip():
        raise BadRequest("body", "is empty; this endpoint takes a JSON object")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest("body", f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise BadRequest("body", f"nests arrays and objects deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest("body", f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise BadRequest("body", f"is not valid JSON: {exc}") from None


class JsonBodyFlaskPlugin(FlaskPlugin):
    """spectree's Flask backend with the body read by ``read_json_body`` instead of a silent ``get_json``
    (which turns a body it cannot read into ``None``, or into ``{}`` for spectree)."""

    def request_validation(self, request, query, json, form, headers, cookies):
        super().request_validation(request, query, None, form, headers, cookies)
        if json is not None and request.method not in BODYLESS_METHODS:
            body = self.model_adapter.validate_obj(json, read_json_body(request))
            request.context = request.context._replace(json=body)
