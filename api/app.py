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
from core.settings import Settings, load_settings
from search.searcher import Searcher
from workers.app import create_app as create_celery


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
        "celery": create_celery(settings),  # for worker status only; tasks are queued by `evident ingest`
    }
    app.register_blueprint(search)
    app.register_blueprint(admin)
    spec.register(app)
    app.add_url_rule("/api/openapi.json", "openapi_document", lambda: jsonify(spec.spec))
    errors.install(app)
    return app
