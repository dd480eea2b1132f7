"""A Confluence (Cloud or Data Center) on loopback, serving the bench wiki through the REST v1 endpoints the
connector uses, with what a test needs to change between syncs and to make it misbehave.

Served: ``GET /rest/api/content/search`` (CQL: ``type = page``, ``space = X``, ``space in (...)``,
``lastmodified >=|>|<=|< "yyyy/MM/dd HH:mm"`` read as UTC, AND and parentheses, ``order by
lastmodified|created [asc|desc]`` with page ids as creation order; anything else answers 400 like
Confluence), ``GET /rest/api/content/{id}`` (``expand`` honoured per top-level key; the body only when
asked for), ``GET /rest/api/content/{id}/child/attachment``, ``GET /download/attachments/{page}/{file}``,
``GET /rest/api/user`` (Cloud: ``accountId=``; Data Center: ``key=``). Cloud is served under the context
path ``/wiki`` and paginates searches by an opaque ``cursor`` (the sort key of the last result); Data
Center at the root with ``start``. Every answer checks the deployment's auth header (Cloud: Basic
e-mail:token; Data Center: Bearer token) and answers 401 with a JSON body otherwise. Faults (429 with
``Retry-After``, 500, slow answers) come before the auth check, as a gateway's would.

As in Confluence: read restrictions and moves change neither the version nor the last modification;
adding an attachment does not change the page; deleting a page moves its children up to its parent;
archived pages leave CQL results but answer by id with ``status: archived``. ``_links.base`` stays the
bench's public base URL (a Confluence behind a proxy): the client reaches the server through ``.url``.
"""
from __future__ import annotations

import base64
import json
import mimetypes
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote, quote_plus, urlencode, urlsplit

from flask import Flask, Response, request
from werkzeug.serving import WSGIRequestHandler, make_server

from tests.standins import SHUTDOWN_POLL

CONTEXT_PATHS = {"cloud": "/wiki", "data-center": ""}  # Cloud's API hangs under /wiki; a DC here at the root
DEFAULT_LIMIT = 25  # Confluence's page size when a request names none
MAX_LIMIT = 100  # Confluence caps ``limit`` silently; so does the stand-in, so a client must follow next links
EXPANDABLE = ("body", "ancestors", "version", "space", "metadata", "restrictions", "history")
TOKEN = "stand-in-token-4f2a9c"
USER = "evident-sync@example.com"
ORDER_BY = re.compile(r"\s+order\s+by\s+(lastmodified|created)(?:\s+(asc|desc))?\s*$", re.I)
# Sort keys per ORDER BY field, the page id last to break ties; ids grow with creation, as in Confluence.
SORT_KEYS = {"lastmodified": lambda page: (page["version"]["when"], int(page["id"])),
             "created": lambda page: (int(page["id"]),)}
TYPE_IS = re.compile(r'type\s*=\s*"?(\w+)"?', re.I)
SPACE_IS = re.compile(r'space\s*=\s*"?([\w~-]+)"?', re.I)
SPACE_IN = re.compile(r"space\s+in\s*\((.*)\)", re.I)
MODIFIED = re.compile(r'lastmodified\s*(>=|<=|>|<)\s*"(\d{4}/\d{2}/\d{2} \d{2}:\d{2})"', re.I)
COMPARE = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b}


class QuietHandler(WSGIRequestHandler):
    """No access log on stderr: the stand-in keeps its own (``log``)."""

    def log_request(self, *args) -> None:
        pass


class CqlError(ValueError):
    """A CQL the stand-in (and so the connector's contract) does not support."""


def now_iso() -> str:
    moment = datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_when(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def split_and(text: str) -> list[str]:
    """``text`` split on AND outside quotes and parentheses; OR anywhere there is unsupported."""
    parts, depth, quoted, start, i = [], 0, False, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "()":
            depth += 1 if ch == "(" else -1
        elif not quoted and depth == 0 and re.match(r"\s(and|or)\s", text[i:i + 5], re.I):
            if text[i + 1:i + 3].lower() == "or":
                raise CqlError("OR is not supported")
            parts.append(text[start:i])
            start = i + 4
        i += 1
    if depth or quoted:
        raise CqlError("unbalanced parentheses or quotes")
    return [p.strip() for p in parts + [text[start:]] if p.strip()]


def clause_test(clause: str):
    """A test of one page (``dict``) for one CQL clause, or ``CqlError``."""
    if clause.startswith("(") and clause.endswith(")"):
        return where(clause[1:-1])
    if match := TYPE_IS.fullmatch(clause):
        return lambda page: page["type"] == match.group(1).lower()
    if match := SPACE_IS.fullmatch(clause):
        return lambda page: page["space"]["key"] == match.group(1)
    if match := SPACE_IN.fullmatch(clause):
        keys = {a or b for a, b in re.findall(r'"([^"]*)"|([\w~-]+)', match.group(1))}
        return lambda page: page["space"]["key"] in keys
    if match := MODIFIED.fullmatch(clause):
        bound = datetime.strptime(match.group(2), "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)
        test = COMPARE[match.group(1)]
        return lambda page: test(parse_when(page["version"]["when"]).replace(second=0, microsecond=0), bound)
    raise CqlError(f"unsupported clause {clause!r}")


def where(text: str):
    tests = [clause_test(part) for part in split_and(text)]
    return lambda page: all(test(page) for test in tests)


def parse_cql(cql: str):
    """(test of a page, sort key of a page, descending?) for a CQL query (unordered: by last modification)."""
    order = ORDER_BY.search(cql)
    field, direction = (order.group(1).lower(), (order.group(2) or "").lower()) if order else ("lastmodified", "")
    return where(cql[:order.start()] if order else cql), SORT_KEYS[field], direction == "desc"


def encode_cursor(key: tuple) -> str:
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode()


def decode_cursor(cursor: str) -> tuple:
    try:
        return tuple(json.loads(base64.urlsafe_b64decode(cursor.encode())))
    except (ValueError, TypeError) as exc:
        raise CqlError(f"invalid cursor {cursor!r}") from exc


def error(status: int, message: str) -> Response:
    reasons = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found"}
    body = {"statusCode": status, "data": {"authorized": status != 401, "valid": True, "errors": [],
                                            "successful": False}, "message": message, "reason": reasons.get(status)}
    return Response(json.dumps(body), status, mimetype="application/json")


@dataclass
class Logged:
    """One request the stand-in answered."""

    method: str
    path: str  # below the context path: /rest/api/content/search
    query: dict[str, str]
    status: int
    at: float = field(default_factory=time.monotonic)  # when it was answered: the waits between requests show


@dataclass
class Fault:
    every: int
    status: int
    retry_after: float | None
    until: float | None  # time.monotonic() after which the fault is over; None: until cleared
    seen: int = 0


class ConfluenceStandIn:
    """Serve ``pages_dir`` (full content responses, one JSON file a page) as a Confluence on loopback.

    ``attach`` maps page ids to names of files in ``pdf_dir`` that start as that page's attachments.
    """

    def __init__(self, pages_dir: Path, users_file: Path, pdf_dir: Path | None = None,
                 deployment: str = "cloud", token: str = TOKEN, user: str = USER,
                 attach: dict[str, list[str]] | None = None):
        self.deployment, self.token, self.user = deployment, token, user
        self._lock = threading.RLock()
        self.context = CONTEXT_PATHS[deployment]
        self.pages: dict[str, dict] = {}
        self.parents: dict[str, str | None] = {}
        for path in sorted(Path(pages_dir).glob("*.json")):
            page = json.loads(path.read_text(encoding="utf-8"))
            ancestors = page.pop("ancestors", [])
            self.pages[page["id"]] = page
            self.parents[page["id"]] = ancestors[-1]["id"] if ancestors else None
        self.spaces = {p["space"]["key"]: p["space"] for p in self.pages.values()}
        self.public_base = next(iter(self.pages.values()))["_links"]["base"]
        self.public_context = urlsplit(self.public_base).path  # what ``_links.context`` says
        users = json.loads(Path(users_file).read_text(encoding="utf-8"))["results"]
        self.user_names = {u["accountId"]: u["displayName"] for u in users}
        self.files: dict[str, list[dict]] = {}  # page id -> attachments (JSON fields plus "data")
        self._attachment_ids = 0
        for page_id, names in (attach or {}).items():
            for name in names:
                self.add_attachment(page_id, Path(pdf_dir) / name)
        self.log: list[Logged] = []
        self._fault: Fault | None = None
        self._delay = 0.0
        self._server = None
        self.url = ""

    # -- lifecycle
    def start(self) -> "ConfluenceStandIn":
        self._server = make_server("127.0.0.1", 0, self._app(), threaded=True,
                                   request_handler=QuietHandler)
        threading.Thread(target=self._server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_port}{self.context}"
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ConfluenceStandIn":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- changes between syncs
    def edit(self, page_id: str, body: str | None = None, title: str | None = None) -> None:
        """A new version of the page, modified now."""
        with self._lock:
            page = self.pages[page_id]
            if body is not None:
                page["body"]["storage"]["value"] = body
            if title is not None:
                page["title"] = title
                self._relink(page_id)
            page["version"] = {**page["version"], "number": page["version"]["number"] + 1, "when": now_iso()}

    def delete(self, page_id: str) -> None:
        """Gone (404 after); its children move up to its parent, its attachments go with it."""
        with self._lock:
            del self.pages[page_id]
            self.files.pop(page_id, None)
            parent = self.parents.pop(page_id)
            for child, its_parent in self.parents.items():
                if its_parent == page_id:
                    self.parents[child] = parent

    def archive(self, page_id: str) -> None:
        with self._lock:
            self.pages[page_id]["status"] = "archived"

    def move(self, page_id: str, parent: str | None = None, space: str | None = None) -> None:
        """Under another parent (its space comes along), or to the top of another space."""
        with self._lock:
            if parent is not None:
                self.parents[page_id] = parent
                space_obj = self.pages[parent]["space"]
            else:
                self.parents[page_id] = None
                space_obj = self.spaces.get(space) or {"key": space, "name": space, "type": "global",
                                                       "_links": {"webui": f"/spaces/{space}"}}
            for moved in [page_id, *self._descendants(page_id)]:
                self.pages[moved]["space"] = space_obj
                self._relink(moved)

    def restrict(self, page_id: str, groups=(), users=()) -> None:
        """Read restrictions on the page itself (version and last modification unchanged)."""
        with self._lock:
            read = self.pages[page_id]["restrictions"]["read"]["restrictions"]
            read["group"] = self._results([{"type": "group", "name": g} for g in groups])
            read["user"] = self._results([self._user_json(u) for u in users])

    def unrestrict(self, page_id: str) -> None:
        self.restrict(page_id)

    def add_attachment(self, page_id: str, path: Path) -> str:
        """``path`` attached to the page (a new version when the page has a file of that name); its id."""
        path, data = Path(path), Path(path).read_bytes()
        with self._lock:
            files = self.files.setdefault(page_id, [])
            same = next((f for f in files if f["title"] == path.name), None)
            if same is None:
                self._attachment_ids += 1
                same = {"id": f"att{self._attachment_ids}", "title": path.name, "version": {"number": 0}}
                files.append(same)
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            same.update(data=data, version={"number": same["version"]["number"] + 1, "when": now_iso()},
                        metadata={"mediaType": kind}, extensions={"mediaType": kind, "fileSize": len(data)})
            return same["id"]

    # -- faults
    def fail_every(self, n: int, status: int = 429, retry_after: float | None = 1,
                   duration: float | None = None) -> None:
        """Every ``n``-th request from now answers ``status`` (with ``Retry-After`` on 429/503), for
        ``duration`` seconds or until ``clear_faults``."""
        with self._lock:
            until = time.monotonic() + duration if duration is not None else None
            self._fault = Fault(n, status, retry_after, until)

    def slow(self, seconds: float) -> None:
        """Every answer from now waits ``seconds`` first."""
        self._delay = seconds

    def clear_faults(self) -> None:
        with self._lock:
            self._fault, self._delay = None, 0.0

    # -- the request log
    def count(self, path_prefix: str = "/") -> int:
        with self._lock:
            return sum(1 for entry in self.log if entry.path.startswith(path_prefix))

    def bodies_fetched(self) -> list[str]:
        """Ids of pages whose body was sent (content by id with ``body.storage`` expanded, answered 200)."""
        with self._lock:
            return [entry.path.rsplit("/", 1)[-1] for entry in self.log
                    if re.fullmatch(r"/rest/api/content/[^/]+", entry.path) and entry.status == 200
                    and "body.storage" in entry.query.get("expand", "").split(",")]

    def clear_log(self) -> None:
        with self._lock:
            self.log.clear()

    # -- JSON of the content
    def _results(self, items: list[dict]) -> dict:
        return {"results": items, "start": 0, "limit": 200, "size": len(items)}

    def _user_json(self, user_id: str) -> dict:
        name = self.user_names.get(user_id, user_id)
        if self.deployment == "cloud":
            return {"type": "known", "accountId": user_id, "displayName": name}
        return {"type": "known", "userKey": user_id, "username": user_id, "displayName": name}

    def _descendants(self, page_id: str) -> list[str]:
        children = [child for child, parent in self.parents.items() if parent == page_id]
        return children + [d for child in children for d in self._descendants(child)]

    def _relink(self, page_id: str) -> None:
        page = self.pages[page_id]
        page["_links"]["webui"] = f"/spaces/{page['space']['key']}/pages/{page_id}/{quote_plus(page['title'])}"

    def _ancestors(self, page_id: str) -> list[dict]:
        chain, parent = [], self.parents.get(page_id)
        while parent is not None:
            node = self.pages[parent]
            chain.insert(0, {"id": parent, "type": "page", "status": node["status"], "title": node["title"]})
            parent = self.parents.get(parent)
        return chain

    def _content(self, page: dict, expand: set[str]) -> dict:
        """The page as Confluence answers it: each expandable key present only when asked for."""
        out = {key: page[key] for key in ("id", "type", "status", "title")}
        later = {}
        for key in EXPANDABLE:
            asked = {e[len(key) + 1:] for e in expand if e == key or e.startswith(key + ".")}
            if not asked:
                later[key] = f"/rest/api/content/{page['id']}"
            elif key == "ancestors":
                out[key] = self._ancestors(page["id"])
            elif key == "body":
                out[key] = {rep: page["body"][rep] for rep in asked if rep in page["body"]}
            elif key == "metadata":
                out[key] = {"labels": page["metadata"]["labels"]} if "labels" in asked else {}
            elif key == "restrictions":
                read = page["restrictions"]["read"]["restrictions"]
                out[key] = {"read": {"operation": "read", "restrictions": {
                    kind: read[kind] for kind in ("user", "group") if f"read.restrictions.{kind}" in asked}}}
            elif key == "history":
                out[key] = {**page.get("history", {"latest": True}),  # the bench knows no creator: none made up
                            **({"lastUpdated": page["version"]} if "lastUpdated" in asked else {})}
            else:
                out[key] = page[key]
        return {**out, "_links": {**page["_links"], "base": self.public_base, "context": self.public_context},
                "_expandable": later}

    def _attachment_json(self, page_id: str, att: dict, expand: set[str]) -> dict:
        out = {key: att[key] for key in ("id", "title", "metadata", "extensions")}
        out.update(type="attachment", status="current", _links={
            "download": f"/download/attachments/{page_id}/{quote(att['title'])}"
                        f"?version={att['version']['number']}&api=v2",
            "webui": f"/pages/viewpageattachments.action?pageId={page_id}&preview=/{page_id}/{att['id']}"})
        if "version" in expand:
            out["version"] = att["version"]
        return out

    # -- HTTP
    def _app(self) -> Flask:
        """The Flask app: the routes above, behind the fault injection, the auth check and the log."""
        app = Flask(f"confluence-stand-in-{id(self)}")
        api = self.context + "/rest/api"
        app.before_request(self._gate)
        app.after_request(self._record)
        app.add_url_rule(api + "/content/search", view_func=self._search)
        app.add_url_rule(api + "/content/<page_id>", view_func=self._by_id)
        app.add_url_rule(api + "/content/<page_id>/child/attachment", view_func=self._attachments)
        app.add_url_rule(self.context + "/download/attachments/<page_id>/<path:name>", view_func=self._download)
        app.add_url_rule(api + "/user", view_func=self._user)
        return app

    def _gate(self) -> Response | None:
        if self._delay:
            time.sleep(self._delay)
        with self._lock:
            fault = self._fault
            if fault and (fault.until is None or time.monotonic() < fault.until):
                fault.seen += 1
                if fault.seen % fault.every == 0:
                    answer = error(fault.status, f"injected {fault.status}")
                    if fault.retry_after is not None and fault.status in (429, 503):
                        answer.headers["Retry-After"] = str(fault.retry_after)
                    return answer
        if self.deployment == "cloud":
            expected = "Basic " + base64.b64encode(f"{self.user}:{self.token}".encode()).decode()
        else:
            expected = f"Bearer {self.token}"
        if request.headers.get("Authorization") != expected:
            answer = error(401, "Client must be authenticated to access this resource.")
            answer.headers["WWW-Authenticate"] = "Basic" if self.deployment == "cloud" else "Bearer"
            return answer
        return None

    def _record(self, response: Response) -> Response:
        path = request.path[len(self.context):] if request.path.startswith(self.context) else request.path
        with self._lock:
            self.log.append(Logged(request.method, path, dict(request.args.items()), response.status_code))
        return response

    @staticmethod
    def _expand() -> set[str]:
        return {e.strip() for e in request.args.get("expand", "").split(",") if e.strip()}

    @staticmethod
    def _limit() -> int:
        return max(1, min(int(request.args.get("limit", DEFAULT_LIMIT)), MAX_LIMIT))

    def _search(self):
        cql = request.args.get("cql", "")
        try:
            test, sort_key, descending = parse_cql(cql)
            with self._lock:
                found = sorted((p for p in self.pages.values() if p["status"] == "current" and test(p)),
                               key=sort_key, reverse=descending)
                start = self._start([sort_key(p) for p in found], descending)
        except CqlError as exc:
            return error(400, f"com.atlassian.confluence.api.service.exceptions.BadRequestException: "
                              f"Could not parse cql : {cql} ({exc})")
        limit, expand = self._limit(), self._expand()
        with self._lock:
            chunk = [self._content(p, expand) for p in found[start:start + limit]]
        links = {"base": self.public_base, "context": self.public_context}
        if start + limit < len(found):
            query = {k: v for k, v in request.args.items() if k not in ("start", "cursor", "next")}
            if self.deployment == "cloud":
                last = found[start + limit - 1]
                query.update(next="true", cursor=encode_cursor(sort_key(last)))
            query["start"] = str(start + limit)
            links["next"] = "/rest/api/content/search?" + urlencode(query)
        return {"results": chunk, "start": start, "limit": limit, "size": len(chunk), "totalSize": len(found),
                "cqlQuery": cql, "_links": links}

    def _start(self, keys: list[tuple], descending: bool) -> int:
        """Where this answer starts: after the cursor's sort key (Cloud), or at ``start`` (Data Center)."""
        if self.deployment == "data-center" or not request.args.get("cursor"):
            return int(request.args.get("start", 0)) if self.deployment == "data-center" else 0
        key = decode_cursor(request.args["cursor"])
        past = (lambda k: k < key) if descending else (lambda k: k > key)
        return next((i for i, k in enumerate(keys) if past(k)), len(keys))

    def _by_id(self, page_id: str):
        with self._lock:
            page = self.pages.get(page_id)
            if page is None:
                return error(404, f"No content found with id: ContentId{{id={page_id}}}")
            return self._content(page, self._expand())

    def _attachments(self, page_id: str):
        start, limit, expand = int(request.args.get("start", 0)), self._limit(), self._expand()
        with self._lock:
            if page_id not in self.pages:
                return error(404, f"No content found with id: ContentId{{id={page_id}}}")
            files = self.files.get(page_id, [])
            chunk = [self._attachment_json(page_id, f, expand) for f in files[start:start + limit]]
        links = {"base": self.public_base, "context": self.public_context}
        if start + limit < len(files):
            query = {**request.args, "start": str(start + limit), "limit": str(limit)}
            links["next"] = f"/rest/api/content/{page_id}/child/attachment?" + urlencode(query)
        return {"results": chunk, "start": start, "limit": limit, "size": len(chunk), "_links": links}

    def _download(self, page_id: str, name: str):
        with self._lock:
            att = next((f for f in self.files.get(page_id, []) if f["title"] == name), None)
        if att is None:
            return error(404, f"no attachment {name!r} on page {page_id}")
        return Response(att["data"], mimetype=att["metadata"]["mediaType"])

    def _user(self):
        param = "accountId" if self.deployment == "cloud" else "key"
        user_id = request.args.get(param)
        if not user_id:
            return error(400, f"{param} is required")
        if user_id not in self.user_names:
            return error(404, f"No user found with {param}: {user_id}")
        return self._user_json(user_id)
