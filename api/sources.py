"""Admin endpoints for live sources: list, register, sync now, remove (what ``evident sources`` does).

Admins only, like every admin endpoint (``api.admin.admins_only``). A registration names the environment
variables or files that hold a source's secrets, never the secrets: a body that carries a ``token`` or a
``user`` value is refused with 400.
"""
from __future__ import annotations

from typing import Literal

from flask import Blueprint, current_app, jsonify, request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from spectree import Response

from api.admin import REFUSED, admins_only
from api.admin_schema import Removed, Source, Sources, SyncQueued
from api.errors import refusal_answer
from api.schema import ADMINS, Error, spec, true_or_false
from core.jobs import JobStore
from core.sources import SourceStore
from workers.sync import registry

sources = Blueprint("sources", __name__)
sources.before_request(admins_only)


class NewSource(BaseModel):
    """A source to register; ``options`` as ``evident sources add`` takes them (url, deployment, token_env,
    user_env, spaces, cql, attachments, space_groups; or start, sitemap, max_pages).

    The schema shows what ``workers.sync.registry`` checks (the name's letters, the interval, each kind's
    options), but leaves the checking to it: its refusal says the reason in words and names the field."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64, json_schema_extra={"pattern": registry.NAME.pattern},
                      description="letters, digits, '.', '_' or '-'; it names the source's documents")
    kind: Literal["confluence", "site"]
    every: str = Field("", max_length=16, description="interval such as 10m or 1h; empty: only when asked",
                       json_schema_extra={"anyOf": [{"pattern": registry.INTERVAL.pattern}, {"maxLength": 0}]})
    options: dict = Field(default_factory=dict, description="a Confluence source's options, or a site's",
                          json_schema_extra={"anyOf": [registry.ConfluenceOptions.model_json_schema(),
                                                       registry.SiteOptions.model_json_schema()]})


class SyncParams(BaseModel):
    full: bool = Field(False, description="list and fetch everything again, not only what changed")

    _full_switch = field_validator("full", mode="before")(true_or_false)


def _store() -> SourceStore:
    return current_app.extensions["evident"]["sources"]


def _jobs() -> JobStore:
    return current_app.extensions["evident"]["jobs"]


def _missing(name: str):
    return refusal_answer(404, f"no source named {name!r}")


@sources.get("/api/admin/sources")
@spec.validate(resp=Response(HTTP_200=Sources, **REFUSED), tags=["admin"],
               operation_id="listSources", security=ADMINS)
def listing():
    """Every source with its registration, last sync (started, finished, counts), the one under way, the next."""
    store = _store()
    return jsonify([registry.describe(store, _jobs(), entry) for entry in store.all()])


@sources.post("/api/admin/sources")
@spec.validate(json=NewSource, resp=Response(HTTP_201=Source, HTTP_400=Error, **REFUSED), tags=["admin"],
               operation_id="addSource", security=ADMINS)
def add():
    """Register (or replace) a source; its options are checked and no secret is kept."""
    body: NewSource = request.context.json
    allowed = current_app.extensions["evident"]["settings"].sources.allowed_private_hosts
    try:
        registry.refuse_private_urls(body.options, allowed)
        entry = registry.register(_store(), body.name, body.kind, dict(body.options), body.every)
    except registry.RegistrationError as exc:
        return refusal_answer(400, f"source {body.name!r}: {exc}", [{"parameter": exc.parameter, "reason": str(exc)}])
    return jsonify(registry.describe(_store(), _jobs(), entry)), 201


@sources.get("/api/admin/sources/<name>")
@spec.validate(resp=Response(HTTP_200=Source, HTTP_404=Error, **REFUSED), tags=["admin"],
               operation_id="getSource", security=ADMINS)
def one(name: str):
    """One source as the list shows it."""
    entry = _store().get(name)
    return jsonify(registry.describe(_store(), _jobs(), entry)) if entry else _missing(name)


@sources.post("/api/admin/sources/<name>/sync")
@spec.validate(query=SyncParams, resp=Response(HTTP_202=SyncQueued, HTTP_404=Error, **REFUSED), tags=["admin"],
               operation_id="syncSource", security=ADMINS)
def sync(name: str):
    """Queue the source's sync now (it continues one cut short; ``full`` starts from nothing)."""
    if _store().get(name) is None:
        return _missing(name)
    full = request.context.query.full
    current_app.extensions["evident"]["celery"].send_task("evident.sync_source", kwargs={"name": name, "full": full})
    return jsonify({"source": name, "queued": True, "full": full}), 202


@sources.delete("/api/admin/sources/<name>")
@spec.validate(resp=Response(HTTP_200=Removed, HTTP_404=Error, **REFUSED), tags=["admin"],
               operation_id="removeSource", security=ADMINS)
def remove(name: str):
    """Forget the source; its documents leave the index, and a sync of it under way stops at its next request."""
    if _store().get(name) is None:
        return _missing(name)
    ev = current_app.extensions["evident"]
    removed = registry.remove(_store(), ev["opensearch"], ev["settings"], name)
    return jsonify({"source": name, "removed_evidence": removed})
