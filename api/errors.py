"""Every error the API gives is JSON (``api.schema.Error``): ``{"error": ..., "errors": [...]}``.

Bad input is a 4xx naming the parameter and the reason (spectree's validation errors are rewritten
here into that shape); OpenSearch or Redis out of reach is a 503, and so is an index not created yet (the
answer says how an admin creates it); anything else is a 500 that is logged with its trace and answered without
it.
"""
from __future__ import annotations

import json

from flask import Flask, current_app, jsonify, request
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import NotFoundError
from redis.exceptions import ConnectionError as RedisConnectionError
from werkzeug.exceptions import HTTPException

from core.index import MISSING_INDEX

REASON_CHARS = 200  # enough to say what was wrong with a value without echoing a huge one back


class BadRequest(ValueError):
    """A request the schema admits but a setting or a rule refuses: a 400 naming the parameter and the reason."""

    status = 400

    def __init__(self, parameter: str, reason: str):
        super().__init__(f"{parameter}: {reason}")
        self.parameter, self.reason = parameter, reason


class UnsupportedBody(BadRequest):
    """A body of another media type (or none) where the endpoint takes JSON."""

    status = 415


class PayloadTooLarge(BadRequest):
    """A body over ``[api] max_body_bytes``."""

    status = 413


def parameter_name(location: tuple | list) -> str:
    """``["history", 3, "q"]`` -> ``history[3].q``; the body as a whole is ``body``."""
    name = ""
    for part in location:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "body"


def reshape_validation_error(req, resp, req_validation_error, instance, model_adapter) -> None:
    """spectree's ``before`` hook: its list of pydantic errors becomes our error shape."""
    if req_validation_error is None or resp is None:
        return
    errors = [{"parameter": parameter_name(e.get("loc", ())), "reason": str(e.get("msg", ""))[:REASON_CHARS]}
              for e in req_validation_error.errors()]
    message = "; ".join(f"{e['parameter']}: {e['reason']}" for e in errors) or "the request is not valid"
    resp.set_data(json.dumps({"error": message, "errors": errors}))
    resp.mimetype = "application/json"
    refused(req.method, req.path, resp.status_code, message)


def refused(method: str, path: str, status: int, reason: str) -> None:
    """Every refused request is recorded (what was wrong, never the values or headers sent)."""
    current_app.logger.info("%s %s refused with %d: %s", method, path, status, reason[:REASON_CHARS])


def refusal_answer(status: int, message: str, errors: list[dict] | None = None):
    """A 4xx a view decides itself (no such job, no card to judge, not an admin): answered in the shape of every
    error, and recorded as the refusals above are."""
    refused(request.method, request.path, status, message)
    return jsonify({"error": message, "errors": errors or []}), status


def install(app: Flask) -> None:
    @app.errorhandler(BadRequest)
    def bad_request(exc: BadRequest):
        refused(request.method, request.path, exc.status, str(exc))
        return jsonify({"error": str(exc), "errors": [{"parameter": exc.parameter,
                                                      "reason": exc.reason[:REASON_CHARS]}]}), exc.status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if exc.response is not None and exc.response.mimetype == "application/json":
            return exc.response  # already ours (validation errors), recorded by the hook
        refused(request.method, request.path, exc.code or 400, exc.name)
        return jsonify({"error": f"{exc.name}: {exc.description}", "errors": []}), exc.code

    @app.errorhandler(OpenSearchConnectionError)
    @app.errorhandler(RedisConnectionError)
    def unavailable(exc: Exception):
        current_app.logger.warning("a store is out of reach: %s", exc)
        return jsonify({"error": "search is unavailable for a moment: its index or queue does not answer",
                        "errors": []}), 503

    @app.errorhandler(NotFoundError)
    def index_missing(exc: NotFoundError):
        if exc.error != MISSING_INDEX:
            return server_error(exc)
        alias = current_app.extensions["evident"]["settings"].opensearch.index_alias
        current_app.logger.warning("the index %s does not exist: %s", alias, exc.info)
        return jsonify({"error": f"search is unavailable: the index {alias!r} does not exist yet; an admin creates "
                                 "it with `evident init` and fills it with `evident ingest` or a source's sync",
                        "errors": []}), 503

    @app.errorhandler(Exception)
    def server_error(exc: Exception):
        current_app.logger.exception("unexpected error")
        return jsonify({"error": "internal error; it has been logged", "errors": []}), 500
