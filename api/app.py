"""Application factory: one Searcher, one job store, blueprints for search and admin."""
from __future__ import annotations

from flask import Flask

from api.admin import admin
from api.search import search
from core.index import connect
from search.searcher import Searcher
from core.settings import Settings, load_settings
from workers.app import create_app as create_celery
from core.jobs import JobStore


def create_app(settings: Settings | None = None, searcher: Searcher | None = None) -> Flask:
    settings = settings or load_settings()
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    client = connect(settings)
    app.extensions["evident"] = {
        "settings": settings,
        "opensearch": client,
        "searcher": searcher or Searcher.from_settings(settings, client),
        "jobs": JobStore.from_url(settings.redis.url),
        "celery": create_celery(settings),  # for worker status only; tasks are queued by `evident ingest`
    }
    app.register_blueprint(search)
    app.register_blueprint(admin)
    return app
