"""Application factory: one Searcher, one job store, one authenticator; blueprints for search and admin;
the OpenAPI document at ``/api/openapi.json``; JSON errors everywhere."""
from __future__ import annotations

from flask import Flask, jsonify

from api import errors
from api.admin import admin
from api.identity import Authenticator
from api.schema import spec
from api.search import search
from core.index import connect
from core.jobs import JobStore
from core.searchlog import SearchLog
from core.settings import Settings, load_settings
from search.searcher import Searcher
from workers.app import create_app as create_celery


# No inline script or style anywhere (the page's script and style are files), nothing framed, no
# third-party origin: a result snippet that slipped markup past escaping still runs nothing.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
SECURITY_HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "same-origin"}


def security_headers(response):
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def create_app(settings: Settings | None = None, searcher: Searcher | None = None) -> Flask:
    settings = settings or load_settings()
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = settings.api.max_body_bytes  # larger bodies get 413 before parsing
    client = connect(settings)
    app.extensions["evident"] = {
        "settings": settings,
        "auth": Authenticator(settings.auth),
        "opensearch": client,
        "searcher": searcher or Searcher.from_settings(settings, client),
        "jobs": JobStore.from_url(settings.redis.url),
        "searchlog": SearchLog(client, settings.opensearch.searchlog_index),
        "celery": create_celery(settings),  # for worker status only; tasks are queued by `evident ingest`
    }
    app.register_blueprint(search)
    app.register_blueprint(admin)
    spec.register(app)
    app.add_url_rule("/api/openapi.json", "openapi_document", lambda: jsonify(spec.spec))
    errors.install(app)
    app.after_request(security_headers)
    return app
