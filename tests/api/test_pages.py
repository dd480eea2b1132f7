"""The search page and the admin console in a real headless Chromium, against the app served over HTTP on
loopback: the scripts run under the Content-Security-Policy and show what the API answers."""
from __future__ import annotations

import shutil
import subprocess
import threading

import pytest
from werkzeug.serving import make_server

from tests.api.browser import Browser
from tests.api.conftest import ADMIN_TOKEN

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
RENDER_BUDGET_MS = 10000  # virtual time the page gets to fetch and render: a search answers in well under it
BROWSER_TIMEOUT = 120  # seconds for the whole browser run on a loaded two-core machine


@pytest.fixture(scope="module")
def served(app):
    """The app on a loopback port, behind a stand-in of the intranet's proxy that signs in an admin."""
    def as_admin(environ, start_response):
        environ["HTTP_AUTHORIZATION"] = f"Bearer {ADMIN_TOKEN}"
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, as_admin, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def rendered(url: str) -> str:
    """The page's DOM after its scripts ran."""
    assert BROWSER, "chromium is installed by scripts/bootstrap.sh"
    return subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                           f"--virtual-time-budget={RENDER_BUDGET_MS}", url],
                          capture_output=True, text=True, timeout=BROWSER_TIMEOUT).stdout


def test_the_search_page_shows_results(served, sample_corpus):
    from tests.test_samples import facts_table

    fact = next(f for f in facts_table() if f["Kind"] == "rare error code")
    dom = rendered(f"{served}/?q={fact['Query'].replace(' ', '+')}")
    assert 'class="hit"' in dom and fact["Expected URL"].split("/")[-1] in dom


def test_the_console_shows_the_index_jobs_and_searches(served, sample_corpus):
    dom = rendered(f"{served}/admin")
    assert 'id="console"' in dom and 'id="console" hidden' not in dom
    assert "evidence" in dom and "files waiting" in dom and "top queries" in dom and "<td>" in dom


# Per chart: its caption, and the minutes drawn as bars with what each says when pointed at.
CHARTS = """[...document.querySelectorAll('#activity figure.chart')].map(f => ({
  caption: f.querySelector('figcaption').textContent, shown: f.querySelector('svg').getBoundingClientRect().height > 0,
  bars: [...f.querySelectorAll('rect')].map(r => r.querySelector('title').textContent)}))"""


def test_the_console_charts_files_finished_and_the_queue_per_minute(served, sample_corpus):
    with Browser() as browser:
        page = browser.page()
        page.open(f"{served}/admin")
        page.wait_for("document.querySelectorAll('#activity svg').length === 2", "the console's charts")
        charts = page.evaluate(CHARTS)
        page.screenshot("console.png", whole_page=True)
    finished, waiting = charts
    assert finished["caption"].startswith("files finished per minute") and waiting["caption"].startswith("queue length")
    assert finished["shown"] and waiting["shown"]
    counted = sum(int(bar.split(": ")[1].split()[0]) for bar in finished["bars"])
    assert counted >= sample_corpus.total  # every file of the session's ingest finished within the charted hours
    assert all(bar.endswith(" finished") for bar in finished["bars"])
