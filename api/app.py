"""Application factory: one Searcher, one job store, one authenticator; blueprints for search and admin;
the OpenAPI document at ``/api/openapi.json``; JSON errors everywhere; security headers, and CORS for the
embeddable widget (``static/widget.js``) on the search, suggest and click routes for ``[api] cors_origins`` only."""
from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

from flask import Flask, jsonify
from flask_cors import CORS

from api import errors
from api.admin import admin
from api.identity import Authenticator
from api.schema import spec
from api.search import search
from api.sources import sources
from core.index import connect
from core.jobs import JobStore
from core.sources import SourceStore
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


# The only routes another origin's page may call: what the widget needs. Never the admin endpoints or pages.
CROSS_ORIGIN_ROUTES = r"^/api/(search|suggest|click)$"
PREFLIGHT_CACHE_SECONDS = 600  # a browser re-asks every 10 minutes, so a removed origin is refused soon after


def web_address(value: str) -> SplitResult | None:
    """``value`` split as an http(s) address with a host and a valid port; None for anything else (an address
    urllib cannot read, an open IPv6 bracket or a port out of range, too), so a setting's check can name it."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it checks the port's range
    except ValueError:
        return None
    return parts if parts.scheme in ("http", "https") and parts.hostname else None


def allowed_origins(setting: str) -> list[str]:
    """``[api] cors_origins`` as a list of exact origins; an entry that is no origin is refused at start."""
    origins = [entry.strip().rstrip("/") for entry in setting.split(",") if entry.strip()]
    for origin in origins:
        parts = web_address(origin)
        if parts is None or parts.path or parts.query or any(c in origin for c in "*?[]()^$\\"):
            raise ValueError(f"[api] cors_origins: {origin!r} is not an origin (scheme://host[:port], no pattern)")
    return origins


def public_address(setting: str) -> str:
    """``[api] public_url`` as the search page's address ending in "/"; anything but an http(s) address with a host
    and no query is refused at start, naming the setting."""
    if not setting.strip():
        return ""
    parts = web_address(setting.strip())
    if parts is None or parts.query or parts.fragment:
        raise ValueError(f"[api] public_url: {setting!r} is not the search page's address "
                         "(http(s)://host[:port][/path], no query)")
    return parts._replace(path=parts.path.rstrip("/") + "/").geturl()


def allow_embedding(app: Flask, origins: list[str]) -> None:
    """CORS headers on the widget's routes for the configured origins only (flask-cors answers the preflight);
    credentials are allowed so an intranet proxy in front of the API can still sign in the widget's user."""
    if origins:
        CORS(app, resources={CROSS_ORIGIN_ROUTES: {"origins": origins}}, methods=["GET", "POST"],
             allow_headers=["Content-Type"], supports_credentials=True, max_age=PREFLIGHT_CACHE_SECONDS)


def security_headers(response):
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def create_app(settings: Settings | None = None, searcher: Searcher | None = None) -> Flask:
    settings = settings or load_settings()
    origins = allowed_origins(settings.api.cors_origins)
    public_url = public_address(settings.api.public_url)
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = settings.api.max_body_bytes  # larger bodies get 413 before parsing
    client = connect(settings)
    app.extensions["evident"] = {
        "settings": settings,
        "public_url": public_url,
        "auth": Authenticator(settings.auth),
        "opensearch": client,
        "searcher": searcher or Searcher.from_settings(settings, client),
        "jobs": JobStore.from_settings(settings),
        "sources": SourceStore.from_url(settings.redis.url),
        "searchlog": SearchLog(client, settings.opensearch.searchlog_index, settings.opensearch.index_alias),
        "celery": create_celery(settings),  # for worker status only; tasks are queued by `evident ingest`
    }
    app.register_blueprint(search)
    app.register_blueprint(admin)
    app.register_blueprint(sources)
    spec.register(app)
    app.add_url_rule("/api/openapi.json", "openapi_document", lambda: jsonify(spec.spec))
    errors.install(app)
    app.after_request(security_headers)
    allow_embedding(app, origins)
    return app
