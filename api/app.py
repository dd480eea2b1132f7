"""Application factory: one Searcher, one job store, blueprints for search and admin."""
from __future__ import annotations

from flask import Flask

from api.admin import admin
from api.search import search
from evident.embedding import Embedder
from evident.index import connect
from evident.retrieval import Searcher
from evident.settings import Settings, load_settings
from ingest.language import Lemmatizer
from workers.jobs import JobStore

# Groups of the caller, set by the intranet's trusted reverse proxy (full auth comes later).
GROUPS_HEADER = "X-Evident-Groups"


def create_app(settings: Settings | None = None, searcher: Searcher | None = None) -> Flask:
    settings = settings or load_settings()
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    client = connect(settings)
    app.extensions["evident"] = {
        "settings": settings,
        "opensearch": client,
        "searcher": searcher or Searcher(settings, client, Embedder(settings.embedding), Lemmatizer()),
        "jobs": JobStore.from_url(settings.redis.url),
    }
    app.register_blueprint(search)
    app.register_blueprint(admin)
    return app
