"""``evident dashboards import``: the saved objects of ``mappings/dashboards/`` loaded into an OpenSearch
Dashboards through its saved-objects import API, without Docker.

The objects ship with index patterns for the default names (``evident-evidence*``, ``evident-searchlog*``); the
import rewrites their titles to the configured alias and search-log index, so the panels read what this
installation writes. The same Dashboards can hold one installation's objects at a time: importing again
(``overwrite=true``) points them at another alias.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import requests

from core.settings import Settings
from core.urls import redact

SAVED_OBJECTS = Path(__file__).resolve().parent.parent / "mappings" / "dashboards" / "evident.ndjson"
IMPORT_PATH = "/api/saved_objects/_import?overwrite=true"
IMPORT_TIMEOUT = 60  # seconds for the import's answer: Dashboards writes each object to its own index first
REASON_CHARS = 300  # of Dashboards' answer quoted in an error: its message, not a whole HTML page


def saved_objects(settings: Settings, source: Path = SAVED_OBJECTS) -> bytes:
    """The NDJSON to import: the shipped objects with each index pattern titled after this installation's
    alias or search-log index."""
    titles = {"evident-evidence": f"{settings.opensearch.index_alias}*",
              "evident-searchlog": f"{settings.opensearch.searchlog_index}*"}
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        if obj.get("type") == "index-pattern" and obj.get("id") in titles:
            obj["attributes"]["title"] = titles[obj["id"]]
        lines.append(json.dumps(obj, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def import_objects(url: str, data: bytes, auth: tuple[str, str] | None = None, token: str = "") -> dict:
    """POST the objects; Dashboards' answer, or a ValueError naming the URL and Dashboards' reason."""
    headers = {"osd-xsrf": "true"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    target = url.rstrip("/") + IMPORT_PATH
    try:
        answer = requests.post(target, headers=headers, auth=auth, timeout=IMPORT_TIMEOUT,
                               files={"file": ("evident.ndjson", data, "application/ndjson")})
    except requests.RequestException as exc:
        raise ValueError(f"OpenSearch Dashboards at {redact(url)} did not answer: {exc}") from None
    try:
        body = answer.json()
    except ValueError:
        body = {"message": answer.text[:REASON_CHARS]}
    if answer.status_code != 200:
        reason = body.get("message") or body.get("error") or answer.reason
        hint = " (give --user and --password-env, or --token-env)" if answer.status_code in (401, 403) else ""
        raise ValueError(f"OpenSearch Dashboards at {redact(url)} refused the import with "
                         f"{answer.status_code}: {str(reason)[:REASON_CHARS]}{hint}")
    return body


def cmd_dashboards(args, settings: Settings) -> int:
    auth = None
    if args.user:
        password = os.environ.get(args.password_env or "", "")
        if not password:
            print(f"evident: dashboards: --user needs the password in the environment variable named by "
                  f"--password-env ({args.password_env or 'not given'} is empty)", file=sys.stderr)
            return 1
        auth = (args.user, password)
    token = os.environ.get(args.token_env, "") if args.token_env else ""
    try:
        answer = import_objects(args.url, saved_objects(settings), auth=auth, token=token)
    except ValueError as exc:
        print(f"evident: dashboards: {exc}", file=sys.stderr)
        return 1
    errors = answer.get("errors") or []
    for error in errors:
        print(f"evident: dashboards: {error.get('type')} {error.get('id')!r} not imported: "
              f"{json.dumps(error.get('error', {}))[:REASON_CHARS]}", file=sys.stderr)
    print(f"imported {answer.get('successCount', 0)} saved objects into {redact(args.url)}: index patterns "
          f"{settings.opensearch.index_alias}* and {settings.opensearch.searchlog_index}*")
    return 0 if answer.get("success", not errors) and not errors else 1


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dashboards", help="load the saved objects (index patterns, visualizations, the ingest "
                                          "and search dashboards) into an OpenSearch Dashboards")
    p.add_argument("action", choices=["import"])
    p.add_argument("--url", required=True, help="the Dashboards' base URL, e.g. http://localhost:5601")
    p.add_argument("--user", help="basic-auth user, when the Dashboards has the security plugin")
    p.add_argument("--password-env", help="environment variable holding that user's password")
    p.add_argument("--token-env", help="environment variable holding a bearer token, instead of a user")
    p.set_defaults(func=cmd_dashboards)
