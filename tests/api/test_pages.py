"""The search page and the admin console in a real headless Chromium, against the app served over HTTP on
loopback: the scripts run under the Content-Security-Policy and show what the API answers."""
from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

import pytest
from werkzeug.serving import make_server

from tests.api.conftest import ADMIN, ADMIN_TOKEN
from tests.standins import SHUTDOWN_POLL
from tests.standins.site import SiteStandIn

SYNC_WAIT = 300  # seconds for a two-page site through the session's worker (its first page loads the models)


@contextmanager
def serving(wsgi_app):
    """``wsgi_app`` on a loopback port; yields its base URL."""
    server = make_server("127.0.0.1", 0, wsgi_app, threaded=True)
    threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="module")
def served(app):
    """The app on a loopback port, behind a stand-in of the intranet's proxy that signs in an admin."""
    def as_admin(environ, start_response):
        environ["HTTP_AUTHORIZATION"] = f"Bearer {ADMIN_TOKEN}"
        return app(environ, start_response)

    with serving(as_admin) as url:
        yield url


ANSWERED = "document.getElementById('results').children.length > 0"  # the search page shows its answer
SUMMARISED = "!document.getElementById('console').hidden && !!document.querySelector('#console td')"


def rendered(page, url: str, shown: str) -> str:
    """The page's DOM once its scripts show what the JavaScript condition ``shown`` waits for."""
    page.open(url)
    page.wait_for(shown, f"{url} rendered")
    return page.evaluate("document.documentElement.outerHTML")


def test_the_search_page_shows_results(served, sample_corpus, page):
    from tests.test_samples import facts_table

    fact = next(f for f in facts_table() if f["Kind"] == "rare error code")
    dom = rendered(page, f"{served}/?q={fact['Query'].replace(' ', '+')}", ANSWERED)
    assert 'class="hit"' in dom and fact["Expected URL"].split("/")[-1] in dom


def test_the_search_page_says_what_it_searched_for_a_mistyped_word(served, sample_corpus, page):
    dom = rendered(page, f"{served}/?q=salinty+probe", ANSWERED)
    assert 'class="did-you-mean"' in dom and ">salinity probe</a>?" in dom and "field-service-manual.pdf" in dom


def test_the_console_shows_the_index_jobs_and_searches(served, sample_corpus, page):
    dom = rendered(page, f"{served}/admin", SUMMARISED)
    assert 'id="console"' in dom and 'id="console" hidden' not in dom
    assert "evidence" in dom and "files waiting" in dom and "top queries" in dom and "<td>" in dom


def test_an_answer_card_marked_not_helpful_on_the_search_page_is_listed_in_the_console(app, served, stores,
                                                                                      sample_corpus, page):
    """The asker says the card did not answer; the console lists the question with the card's page, for the admin
    to act on (a page to fix, a card to report)."""
    question = "Wann verfällt der Resturlaub?"
    rendered(page, f"{served}/?q={question.replace(' ', '+')}", "!!document.querySelector('.answer-feedback button')")
    assert page.evaluate("document.querySelector('.answer-feedback').textContent").strip().startswith(
        "Did this answer your question?")
    page.click(".answer-feedback button[data-helpful=false]")
    page.wait_for("document.querySelector('.answer-feedback').textContent === 'Thank you: noted.'", "the word noted")
    page.screenshot("search-answer-feedback.png")
    stores.indices.refresh(index=app.extensions["evident"]["settings"].opensearch.searchlog_index)
    dom = rendered(page, f"{served}/admin", SUMMARISED)
    assert "answers marked not helpful" in dom and f"{question} → Urlaubsregelung" in dom


# Per chart: its caption, and the minutes drawn as bars with what each says when pointed at.
CHARTS = """[...document.querySelectorAll('#activity figure.chart')].map(f => ({
  caption: f.querySelector('figcaption').textContent, shown: f.querySelector('svg').getBoundingClientRect().height > 0,
  bars: [...f.querySelectorAll('rect')].map(r => r.querySelector('title').textContent)}))"""


def test_the_console_charts_files_finished_and_the_queue_per_minute(served, sample_corpus, page):
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


@pytest.fixture
def canteen(tmp_path):
    """A small intranet site: a home page linking to a menu and to an allergen list that is not there."""
    (tmp_path / "index.html").write_text(
        "<html><head><title>Canteen</title></head><body><h1>Canteen</h1><p>Open from noon. "
        '<a href="menu.html">This week</a> · <a href="allergens.html">Allergens</a></p></body></html>')
    (tmp_path / "menu.html").write_text("<html><head><title>This week</title></head><body><h1>This week</h1>"
                                        "<p>Friday: barley risotto with roasted squash.</p></body></html>")
    with SiteStandIn(tmp_path) as stand_in:
        yield stand_in


def synced(client, name: str, syncs: int) -> dict:
    """The source as the API describes it once it has counted ``syncs`` syncs."""
    deadline = time.monotonic() + SYNC_WAIT
    while (described := client.get(f"/api/admin/sources/{name}", headers=ADMIN).get_json())["syncs"] < syncs:
        assert time.monotonic() < deadline, described
        time.sleep(0.5)
    return described


# The text of each cell of a source's row in the console, by the cell's class; null until the row is shown.
SOURCE_ROW = """(() => {{ const row = document.querySelector('#sources tr[data-source={name}]');
  return row && row.checkVisibility()
    && Object.fromEntries([...row.querySelectorAll('td[class]')].map(td => [td.classList[0], td.innerText])); }})()"""


def test_the_console_says_how_to_add_a_source_when_there_is_none(served, client, page):
    listed = client.get("/api/admin/sources", headers=ADMIN).get_json()
    page.open(f"{served}/admin")
    page.wait_for("document.getElementById('console').checkVisibility() "
                  "&& !!document.querySelector('#sources tr')", "the sources")
    hint = page.evaluate("document.getElementById('sources-none').checkVisibility() && "
                         "document.getElementById('sources-none').innerText")
    rows = page.evaluate("document.querySelectorAll('#sources tr[data-source]').length")
    assert rows == len(listed)
    assert bool(hint) == (not listed)  # the hint is shown exactly when no source is registered
    assert not hint or "evident sources add confluence|site NAME" in hint


def test_the_console_asks_a_caller_without_identity_for_the_admin_token(app, page):
    with serving(app) as url:
        page.open(f"{url}/admin")
        refused = page.wait_for("!document.getElementById('token-form').hidden "
                                "&& document.getElementById('problem').textContent", "the token form")
        page.click("#token")
        page.type(ADMIN_TOKEN)
        page.press("Enter")
        page.wait_for("document.getElementById('console').checkVisibility() "
                      "&& !!document.querySelector('#sources tr')", "the console after the token")
        after = page.evaluate("[document.getElementById('token-form').hidden, "
                              "document.getElementById('problem').textContent]")
    assert "admin" in refused and after == [True, ""]


def test_the_console_lists_a_source_with_its_last_sync_and_syncs_it_now(served, client, canteen, page):
    name = "console-canteen"
    created = client.post("/api/admin/sources", json={"name": name, "kind": "site", "every": "1h",
                                                       "options": {"start": canteen.url + "/"}}, headers=ADMIN)
    assert created.status_code == 201
    try:
        assert client.post(f"/api/admin/sources/{name}/sync", headers=ADMIN).status_code == 202
        assert synced(client, name, 1)["items"] == 2
        row = SOURCE_ROW.format(name=json.dumps(name))
        page.open(f"{served}/admin")
        first = page.wait_for(row, "the source's row")
        page.click(f'#sources button.sync[data-source="{name}"]')
        second = page.wait_for(f"(r => r && r['last-sync'].includes('2 syncs') && r)({row})", "the second sync")
        page.screenshot("console-sources.png", whole_page=True)
        assert synced(client, name, 2)["syncs"] == 2
    finally:
        removed = client.delete(f"/api/admin/sources/{name}", headers=ADMIN)
    assert removed.status_code == 200 and removed.get_json()["removed_evidence"] > 0  # the next tests see none of it
    assert canteen.url + "/" in first["source"] and "site" in first["source"] and first["items"] == "2"
    assert "added 2 · updated 0 · deleted 0 · failed 1 · requests " in first["last-sync"]
    assert "1 sync" in first["last-sync"]
    assert "allergens.html" in first["last-error"] and "404" in first["last-error"]
    assert "every 1 h" in first["next-sync"] and first["now"] == "idle"
    # The second sync asked again with the validators the first kept: the two pages came back unchanged.
    assert "added 0 · updated 0 · deleted 0 · failed 1" in second["last-sync"] and "unchanged 2" in second["last-sync"]
