"""A stand-in intranet web site: a real HTTP server on loopback serving a folder, as a static web server does.

``write_intranet`` fills a folder with a small intranet (home, HR, IT, news and policy pages with their
navigation and breadcrumbs, a PDF handbook, an image, robots.txt, a sitemap index with a plain and a
gzipped sitemap); ``SiteStandIn`` serves any folder with werkzeug: ``/dir/`` is ``dir/index.html``, each
answer carries an ETag and a Last-Modified and a conditional request gets its 304 (werkzeug's
``make_conditional``). Between crawls a test edits or deletes files, and tells the server to answer a
path with a status (410, 403, 501 …, ``times`` times or for good), to redirect a path, to answer every
Nth request with 429 and a Retry-After, or to send no validators at all. Every request is recorded
(method, host, path with query, status).
"""
from __future__ import annotations

import gzip
import mimetypes
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from werkzeug.security import safe_join
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from tests.conftest import SAMPLES
from tests.standins import SHUTDOWN_POLL

HANDBOOK_PDF = SAMPLES / "pdf" / "field-service-manual.pdf"  # served as files/employee-handbook.pdf
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass
class Served:
    method: str
    host: str  # the Host header: which name of the server was asked
    path: str  # with its query, if any
    status: int


class QuietHandler(WSGIRequestHandler):
    """werkzeug's handler without a log line per request (the stand-in records them itself)."""

    def log_request(self, *args, **kwargs):
        pass


class SiteStandIn:
    """Serves ``root`` on 127.0.0.1 from ``start()`` (or ``with``) until ``stop()``; ``url`` is its base."""

    def __init__(self, root: Path):
        self.root = root
        self.served: list[Served] = []
        self.validators = True  # False: no ETag, no Last-Modified, never a 304 (a naive CMS)
        self._answers: dict[str, tuple[int, int | None]] = {}  # path -> (status, times left; None: for good)
        self._redirects: dict[str, str] = {}
        self._storm: tuple[int, str] | None = None  # (every Nth request, Retry-After) answered 429
        self._lock = threading.Lock()
        self._server = make_server("127.0.0.1", 0, self._app, threaded=True, request_handler=QuietHandler)
        self.port = self._server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)

    def __enter__(self) -> SiteStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------------ what a test changes

    def answer(self, path: str, status: int, times: int | None = None) -> None:
        """Answer ``path`` with ``status`` (the next ``times`` requests, or every one from now on)."""
        self._answers[path] = (status, times)

    def redirect(self, path: str, target: str) -> None:
        self._redirects[path] = target

    def storm(self, every: int, retry_after: str) -> None:
        """Answer every ``every``-th request from now on with 429 and this Retry-After."""
        self._storm = (every, retry_after)

    # ------------------------------------------------------------------ serving

    def _app(self, environ, start_response):
        request = Request(environ)
        path = request.path + (f"?{request.query_string.decode()}" if request.query_string else "")
        response = self._respond(request)
        with self._lock:
            self.served.append(Served(request.method, request.host, path, response.status_code))
        return response(environ, start_response)

    def _respond(self, request: Request) -> Response:
        with self._lock:
            count = len(self.served) + 1
            if self._storm and count % self._storm[0] == 0:
                return Response("slow down", 429, {"Retry-After": self._storm[1]})
            status, times = self._answers.get(request.path, (0, None))
            if status and times is not None:
                self._answers[request.path] = (status, times - 1) if times > 1 else (0, None)
        if status:
            return Response(f"answered {status} on purpose", status)
        if request.path in self._redirects:
            return Response("moved", 301, {"Location": self._redirects[request.path]})
        file = safe_join(str(self.root), request.path.lstrip("/"))
        if file and Path(file).is_dir():
            file = str(Path(file) / "index.html")
        if not file or not Path(file).is_file():
            return Response("not found", 404)
        mimetype = mimetypes.guess_type(file)[0] or "application/octet-stream"
        response = Response(Path(file).read_bytes(), 200, mimetype=mimetype)
        if not self.validators:
            return response
        response.add_etag()
        response.last_modified = Path(file).stat().st_mtime
        return response.make_conditional(request)


# ---------------------------------------------------------------------- the intranet it serves

NAV = [("/", "Home"), ("/about.html", "About us"), ("/hr/", "Human resources"), ("/it/", "IT services"),
       ("/news/", "News")]

# path -> (title, breadcrumb [(href, label)], main content). Links: absolute, relative, with fragments.
PAGES = {
    "index.html": ("Intranet home", [], """
<h1>Welcome to the intranet</h1>
<p>Start with the <a href="hr/leave.html">annual leave policy</a>, set up
<a href="/it/vpn.html#setup">remote access</a> or read the
<a href="files/employee-handbook.pdf">employee handbook (PDF)</a>.</p>
<p>Board only: <a href="/private/salaries.html">salary bands</a>, <a href="/drafts/reorg.html">reorganisation
draft</a>. Plan your week in the <a href="/calendar.html" rel="nofollow">room calendar</a>,
or <a href="search.html">search</a>.</p>"""),
    "about.html": ("About us", [("/", "Home")], """
<h1>About us</h1><p>We build measuring instruments in three plants. See the
<a href="files/org-chart.png">organisation chart</a> and <a href="mailto:office@example.org">write to us</a>.
The <a href="http://[intranet/">old intranet</a> is closed.</p>"""),
    "hr/index.html": ("Human resources", [("/", "Home")], """
<h1>Human resources</h1><ul><li><a href="leave.html">Annual leave</a></li>
<li><a href="./benefits.html">Benefits</a></li></ul>"""),
    "hr/leave.html": ("Annual leave policy", [("/", "Home"), ("/hr/", "Human resources")], """
<h1>Annual leave policy</h1>
<h2>Entitlement</h2><p>Every full-time employee is entitled to 30 days of paid annual leave per calendar
year. Part-time employees receive leave in proportion to their working days.</p>
<h2>Carry-over</h2><p>Up to five unused days may be carried over into the next year; they lapse on
31 March unless your manager agrees otherwise in writing.</p>"""),
    "hr/benefits.html": ("Employee benefits", [("/", "Home"), ("/hr/", "Human resources")], """
<h1>Employee benefits</h1><p>The company pays half of the public transport pass and offers a yearly
health check with the company doctor.</p>"""),
    "it/index.html": ("IT services", [("/", "Home")], """
<h1>IT services</h1><p><a href="vpn.html">VPN</a> · <a href="passwords.html#rules">Password rules</a></p>"""),
    "it/vpn.html": ("Remote access with the VPN", [("/", "Home"), ("/it/", "IT services")], """
<h1>Remote access with the VPN</h1><h2 id="setup">Setup</h2><p>Install the VPN client from the software
centre and sign in with your network account. The gateway is vpn.example.org.</p>"""),
    "it/passwords.html": ("Password rules", [("/", "Home"), ("/it/", "IT services")], """
<h1>Password rules</h1><h2 id="rules">Rules</h2><p>Passwords have at least 14 characters and are changed
only when there is a reason to believe they are known to someone else.</p>"""),
    "news/index.html": ("News", [("/", "Home")], """
<h1>News</h1><p><a href="2026-11-canteen.html">The canteen reopens</a></p>
<p><a href="?page=2">Older news</a></p>"""),
    "news/2026-11-canteen.html": ("The canteen reopens", [("/", "Home"), ("/news/", "News")], """
<h1>The canteen reopens</h1><p>From 1 December the canteen on the ground floor serves lunch again from
11:30 to 14:00.</p>"""),
    "policies/travel.html": ("Travel policy", [("/", "Home")], """
<h1>Travel policy</h1><p>Book trains for journeys under four hours; flights need the approval of your
department head.</p>"""),
    "policies/expenses.html": ("Expenses", [("/", "Home")], """
<h1>Expenses</h1><p>Submit receipts within 30 days through the expenses portal.</p>"""),
    "search.html": ("Search", [("/", "Home")], """
<h1>Search</h1><form action="/search"><input name="q"></form>"""),
    "private/salaries.html": ("Salary bands", [("/", "Home")], "<h1>Salary bands</h1><p>Confidential.</p>"),
    "drafts/reorg.html": ("Reorganisation draft", [("/", "Home")], "<h1>Reorganisation</h1><p>Draft.</p>"),
    "calendar.html": ("Room calendar", [("/", "Home")], "<h1>Room calendar</h1><p>Monday: all rooms free.</p>"),
}
NOINDEX = {"search.html"}
ROBOTS = """User-agent: *
Disallow: /private/

User-agent: Evident
Disallow: /private/
Disallow: /drafts/

Sitemap: {base}/sitemap.xml
"""
SITEMAPS = {  # the sitemap index's parts: file -> pages it lists
    "sitemaps/pages.xml": ["/", "hr/leave.html", "it/vpn.html", "policies/travel.html"],
    "sitemaps/policies.xml.gz": ["policies/expenses.html", "news/2026-11-canteen.html", "http://[intranet/travel"],
}  # a location starting with http is written as it is (one is not a URL at all)


def page_html(title: str, breadcrumb: list[tuple[str, str]], content: str, noindex: bool, other_host: str) -> str:
    nav = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in NAV)
    crumbs = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in breadcrumb)
    robots = '<meta name="robots" content="noindex">' if noindex else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>{robots}</head>
<body><header class="site-header"><nav aria-label="Main"><ul>{nav}</ul></nav></header>
<nav aria-label="Breadcrumb"><ol>{crumbs}</ol></nav>
<main>{content}</main>
<footer><a href="{other_host}/about.html">Mirror</a> · <a href="https://www.example.com/">Group site</a></footer>
</body></html>
"""


def write_intranet(root: Path, base: str, other_host: str) -> None:
    """The intranet's files under ``root``; ``base`` is the URL it is served at (robots.txt and the
    sitemaps name absolute URLs), ``other_host`` another name of the same server (a link off the site)."""
    for path, (title, breadcrumb, content) in PAGES.items():
        write_page(root, path, page_html(title, breadcrumb, content, path in NOINDEX, other_host))
    (root / "files").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HANDBOOK_PDF, root / "files" / "employee-handbook.pdf")
    (root / "files" / "org-chart.png").write_bytes(PNG_SIGNATURE + b"\x00" * 64)
    (root / "robots.txt").write_text(ROBOTS.format(base=base), encoding="utf-8")
    index = "".join(f"<sitemap><loc>{base}/{name}</loc></sitemap>" for name in SITEMAPS)
    (root / "sitemap.xml").write_text('<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns='
                                      f'"http://www.sitemaps.org/schemas/sitemap/0.9">{index}</sitemapindex>\n')
    for name, pages in SITEMAPS.items():
        urls = "".join(f"<url><loc>{p if p.startswith('http') else base + '/' + p.lstrip('/')}</loc></url>"
                       for p in pages)
        xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               f"{urls}</urlset>\n").encode()
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(gzip.compress(xml) if name.endswith(".gz") else xml)


def write_page(root: Path, path: str, html: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(html, encoding="utf-8")
