"""An OpenSearch Dashboards on loopback, speaking its saved-objects import API as the real one does.

``POST /api/saved_objects/_import`` takes a multipart form whose ``file`` field is NDJSON, refuses a request
without the ``osd-xsrf`` header (400), asks for credentials when it has a user (401), and answers 200 with
``{success, successCount, errors}``, where an object whose references name nothing in the file or the store
is a ``missing_references`` error. ``fail_with`` makes the next answers a server error, as a Dashboards whose
OpenSearch is down gives. What was imported stays in ``objects``.
"""
from __future__ import annotations

import base64
import json
import threading

from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from tests.standins import SHUTDOWN_POLL



class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


def _error(status: int, error: str, message: str) -> Response:
    return Response(json.dumps({"statusCode": status, "error": error, "message": message}), status=status,
                    mimetype="application/json")


class DashboardsStandIn:
    def __init__(self, user: str = "", password: str = ""):
        self.credentials = base64.b64encode(f"{user}:{password}".encode()).decode() if user else ""
        self.objects: dict[tuple[str, str], dict] = {}
        self.fail_with = 0
        self.url = ""
        self._server = None

    def __enter__(self) -> "DashboardsStandIn":
        self._server = make_server("127.0.0.1", 0, self._app, threaded=True, request_handler=QuietHandler)
        threading.Thread(target=self._server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()

    def _app(self, environ, start_response):
        return self._answer(Request(environ))(environ, start_response)

    def _answer(self, request: Request) -> Response:
        if self.fail_with:
            return _error(self.fail_with, "Internal Server Error", "An internal server error occurred.")
        if request.method != "POST" or request.path != "/api/saved_objects/_import":
            return _error(404, "Not Found", "Not Found")
        if self.credentials and request.headers.get("Authorization") != f"Basic {self.credentials}":
            return _error(401, "Unauthorized", "Authentication required")
        if "osd-xsrf" not in request.headers:
            return _error(400, "Bad Request", "Request must contain a osd-xsrf header.")
        upload = request.files.get("file")
        if upload is None:
            return _error(400, "Bad Request", "[request body.file]: expected value of type [Stream]")
        incoming = [json.loads(line) for line in upload.read().decode("utf-8").splitlines() if line.strip()]
        known = set(self.objects) | {(o["type"], o["id"]) for o in incoming}
        errors, imported = [], 0
        for obj in incoming:
            missing = [{"type": r["type"], "id": r["id"]} for r in obj.get("references", [])
                       if (r["type"], r["id"]) not in known]
            if missing:
                errors.append({"id": obj["id"], "type": obj["type"], "title": obj["attributes"].get("title"),
                               "error": {"type": "missing_references", "references": missing}})
                continue
            self.objects[(obj["type"], obj["id"])] = obj
            imported += 1
        return Response(json.dumps({"success": not errors, "successCount": imported, "errors": errors}),
                        mimetype="application/json")
