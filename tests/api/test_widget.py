"""The embeddable search box (``api/static/widget.js``) on an intranet page served from another origin, in a real
headless Chromium against the app on the real services; and CORS only for ``[api] cors_origins``, only on
the search and click routes."""
from __future__ import annotations

import dataclasses
import json
import threading

import pytest
from werkzeug.serving import make_server

from api.app import allowed_origins, create_app
from api.schema import MAX_OPENED_RESULTS
from core.index import delete_documents, replace_document
from tests.conftest import StandIn, serving
from tests.standins import SHUTDOWN_POLL
from tests.test_samples import facts_table

# An intranet's own page with its own Content-Security-Policy: the widget's script, style and requests are
# allowed from the Evident host and nothing else, as the README tells an intranet to do.
HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ocean Instruments intranet</title>
<meta http-equiv="Content-Security-Policy"
      content="default-src 'self'; script-src {api}; style-src 'self' {api}; connect-src {api}">
</head><body><h1>Ocean Instruments intranet</h1><p>News, people and the service desk.</p>
<div data-evident-search></div>
<script src="{api}/static/widget.js" data-endpoint="{api}" defer></script>
</body></html>"""
PREFLIGHT = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
ALLOW_ORIGIN = "Access-Control-Allow-Origin"
BAD_WORD, BAD_TITLE, BAD_URL = "quokkalink", "Quokkalink escalation", "javascript:alert(document.domain)"
# What the person sees in the box: the results listed, which one is highlighted, where the keyboard focus is.
SHOWN = """(() => {
  const input = document.querySelector('.evident-widget [role=combobox]');
  const list = document.getElementById(input.getAttribute('aria-controls'));
  const options = [...list.querySelectorAll('[role=option]')];
  return {expanded: input.getAttribute('aria-expanded'), listed: !list.hidden && list.offsetHeight > 0,
          typing: document.activeElement === input, active: input.getAttribute('aria-activedescendant'),
          status: document.querySelector('.evident-widget [role=status]').textContent,
          options: options.map(o => ({id: o.id, selected: o.getAttribute('aria-selected') === 'true',
                                      outlined: getComputedStyle(o).outlineStyle === 'solid',
                                      disabled: o.getAttribute('aria-disabled') === 'true',
                                      title: o.querySelector('.evident-title').textContent,
                                      href: o.dataset.url || null}))};
})()"""


@pytest.fixture(scope="module")
def intranet():
    """Two intranet pages on their own loopback ports, each embedding the widget: the API allows the first
    origin only. ``api`` gets the API's URL once it is served."""
    api: dict[str, str] = {}

    class HostPage(StandIn):
        def do_GET(self):
            self.answer(200, HOST_PAGE.format(api=api["url"]).encode(), "text/html; charset=utf-8")

    with serving(HostPage) as allowed, serving(HostPage) as refused:
        yield api, allowed, refused


@pytest.fixture(scope="module")
def widget_api(intranet, settings, searcher, sample_corpus):
    """The app on a loopback port of its own, allowing the first intranet origin."""
    api, allowed, _ = intranet
    app = create_app(dataclasses.replace(settings, api=dataclasses.replace(settings.api, cors_origins=allowed)),
                     searcher=searcher)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
    api["url"] = f"http://127.0.0.1:{server.server_port}"
    yield app
    server.shutdown()


@pytest.fixture
def bad_link(stores, settings, sample_corpus):
    """A page a faulty source wrote with a ``javascript:`` link (ingest refuses one; a connector bug could not)."""
    alias = settings.opensearch.index_alias
    like = stores.search(index=alias, body={"size": 1, "query": {"match": {"text": "TS-E4471"}}})["hits"]["hits"][0]
    text = f"The {BAD_WORD} escalation rota lives on this page."
    source = like["_source"] | {
        "id": "bad-link-evidence", "doc_id": "bad-link", "url": BAD_URL, "page_url": BAD_URL, "title": BAD_TITLE,
        "text": text, "context": f"{BAD_TITLE}\n{text}", "lemmas": f"{BAD_WORD} escalation rota live on this page",
        "keywords": [BAD_WORD], "prev_text": "", "next_text": "", "heading_path": [], "breadcrumb": [],
        "page_simhash": ""}  # its own page, not a copy of the one its fields were taken from
    assert not replace_document(stores, settings, "bad-link", [source])["errors"]
    stores.indices.refresh(index=alias)
    yield
    delete_documents(stores, settings, ["bad-link"])


def searched_on(page, query: str) -> dict:
    """Click into the box, type the query, press Enter, wait for the answer; returns what is shown."""
    page.wait_for("!!document.querySelector('.evident-widget [role=combobox]')", "the search box")
    page.click(".evident-widget [role=combobox]")
    page.type(query)
    page.press("Enter")
    page.wait_for(f"{SHOWN}.status && {SHOWN}.status !== 'Searching…'", f"an answer to {query!r}")
    return page.evaluate(SHOWN)


def test_on_an_allowed_page_the_widget_finds_and_opens_results_by_keyboard(page, widget_api, intranet, stores):
    fact = next(f for f in facts_table() if f["Kind"] == "rare error code")
    api, allowed, _ = intranet
    page.open(allowed + "/")
    shown = searched_on(page, fact["Query"])
    assert shown["listed"] and shown["expanded"] == "true" and shown["typing"]
    assert shown["options"][0]["href"] == fact["Expected URL"], shown
    assert all(o["href"] is None or o["href"].startswith(("http://", "https://")) for o in shown["options"])
    page.screenshot("widget-results.png")

    assert len(shown["options"]) >= 2
    page.press("ArrowDown")
    page.press("ArrowDown")
    shown = page.evaluate(SHOWN)
    second = shown["options"][1]
    assert shown["typing"] and shown["active"] == second["id"]  # typing goes on while a result is highlighted
    assert second["selected"] and second["outlined"] and [o["selected"] for o in shown["options"]].count(True) == 1
    page.screenshot("widget-keyboard.png")
    page.press("ArrowUp")
    shown = page.evaluate(SHOWN)
    first = shown["options"][0]
    assert shown["active"] == first["id"] and first["selected"] and not shown["options"][1]["selected"]

    page.press("Escape")
    shown = page.evaluate(SHOWN)
    assert not shown["listed"] and shown["expanded"] == "false" and shown["active"] is None

    page.press("ArrowDown")  # opens the list again on its first result
    assert page.evaluate(SHOWN)["active"] == first["id"]
    widget_api.extensions["evident"]["searchlog"].flush()  # the search is in the log before its click arrives
    page.hold_navigations()
    page.press("Enter")
    assert page.wait_for(page.navigations, "the result opened") == [fact["Expected URL"]]
    log_index = widget_api.extensions["evident"]["settings"].opensearch.searchlog_index

    def clicked() -> list[dict]:
        stores.indices.refresh(index=log_index)
        found = stores.search(index=log_index, body={"query": {"bool": {"filter": [
            {"term": {"q.raw": fact["Query"]}}, {"range": {"clicks": {"gte": 1}}}]}}})
        return [h["_source"] for h in found["hits"]["hits"]]

    line = page.wait_for(clicked, "the click in the search log")[0]
    assert line["first_click_rank"] == 1 and line["clicked_url"] == fact["Expected URL"]


def test_the_widget_follows_the_conversation_onto_the_page_a_result_opened(page, widget_api, intranet):
    runbook = next(f for f in facts_table() if f["Kind"] == "rare error code")["Expected URL"]
    _, allowed, _ = intranet
    page.open(allowed + "/")
    assert searched_on(page, "What does the error TS-E4471 mean?")["options"][0]["href"] == runbook
    page.hold_navigations()
    page.press("ArrowDown")
    page.press("Enter")
    assert page.wait_for(page.navigations, "the result opened") == [runbook]
    page.release_navigations()

    page.open(allowed + "/")  # the intranet's next page in the same tab: the conversation goes on there
    shown = searched_on(page, "and how do I fix it?")
    assert shown["options"][0]["href"] == runbook
    assert "following 1 earlier question" in shown["status"]
    assert "e4471" in page.evaluate("document.querySelector('.evident-widget [role=status]').title").lower()
    page.screenshot("widget-follow-up.png")

    chip = page.evaluate("document.querySelector('.evident-widget .evident-new-topic').innerText")
    assert chip.startswith("Following: What does the error TS-E4471 mean? → and how do I fix it?"), chip
    page.click(".evident-widget .evident-new-topic")
    assert page.evaluate("document.querySelector('.evident-widget .evident-new-topic').hidden")
    shown = searched_on(page, "and how do I fix it?")
    assert "following" not in shown["status"]
    assert page.evaluate("document.querySelector('.evident-widget [role=status]').title") == ""


def test_the_widget_says_no_good_match_and_starts_a_new_topic(page, widget_api, intranet):
    """"xyzzyplugh" after the bike question: the status says there is no good match and no page holds any of its
    words, so none is listed (the bike page least of all), and the chip says the question began a new topic."""
    _, allowed, _ = intranet
    page.open(allowed + "/")
    searched_on(page, "how do I lease a bike")
    page.open(allowed + "/")  # the intranet's next page in the same tab: the conversation goes on there
    shown = searched_on(page, "xyzzyplugh")
    page.screenshot("widget-no-match.png")
    assert shown["status"].startswith(
        "No good match for “xyzzyplugh”: no page holds any of its words · asked on its own"), shown["status"]
    assert shown["options"] == []
    chip = page.evaluate("document.querySelector('.evident-widget .evident-new-topic').innerText")
    assert chip.startswith("New topic: xyzzyplugh") and "→" not in chip, chip


def test_a_turn_with_more_opened_results_than_the_api_takes_still_searches(page, widget_api, intranet):
    """A tab that opened many results after one question (in new tabs, say) sends the last ones it opened."""
    _, allowed, _ = intranet
    page.open(allowed + "/")
    opened = [f"https://wiki.example.com/pages/{n}" for n in range(MAX_OPENED_RESULTS + 2)]
    turn = {"q": "What does the error TS-E4471 mean?", "results": [], "opened": opened}
    page.evaluate(f"sessionStorage.setItem('evident-widget-conversation', JSON.stringify("
                  f"Object.assign({json.dumps({'turns': [turn]})}, {{at: Date.now()}})))")
    shown = searched_on(page, "and how do I fix it?")
    assert "following 1 earlier question" in shown["status"] and shown["options"], shown["status"]


def test_the_widget_says_what_it_searched_for_a_mistyped_word(page, widget_api, intranet):
    api, allowed, _ = intranet
    page.open(allowed + "/")
    shown = searched_on(page, "salinty probe")
    assert "also searched for: salinity" in shown["status"], shown["status"]
    assert shown["options"][0]["href"].endswith("field-service-manual.pdf#page=2")


def test_the_answer_card_comes_first_in_the_list_with_its_source(page, widget_api, intranet):
    api, allowed, _ = intranet
    page.open(allowed + "/")
    shown = searched_on(page, "Wann verfällt der Resturlaub?")
    page.screenshot("widget-answer-card.png")
    card = page.evaluate("document.querySelector('.evident-widget .evident-answer').innerText")
    assert "verfällt am 31. März" in card and "Urlaubsregelung" in card
    assert shown["options"][0]["title"] == shown["options"][1]["title"] == "Urlaubsregelung"  # the card, its page
    assert shown["options"][0]["href"] == shown["options"][1]["href"]
    page_option = page.evaluate("document.querySelectorAll('.evident-widget .evident-option')[1].innerText")
    assert "verfällt am 31. März" not in page_option  # the card's sentence is not said twice
    assert page.evaluate("document.querySelectorAll('.evident-widget .evident-option')[1]"
                         ".querySelector('.evident-kind').textContent") == "Answer above"  # not the sentence's kind


def test_two_rows_answering_together_show_one_a_line_in_the_widget_card(page, widget_api, intranet):
    _, allowed, _ = intranet
    page.open(allowed + "/")
    searched_on(page, "TideSense S3 battery")
    page.screenshot("widget-answer-two-rows.png")
    text = page.evaluate("document.querySelector('.evident-widget .evident-answer-text').innerText")
    assert [line for line in text.splitlines() if line.strip()] == [
        "Model: TideSense S3 Polar · Firmware: 3.2.1 · Battery: Li-SOCl₂ 26 Ah · Status: FAIL",
        "Model: TideSense S3 · Firmware: 3.2.1 · Battery: LiFePO4 18 Ah · Status: PASS"]


def test_a_result_whose_link_is_not_http_is_listed_but_cannot_be_opened(page, widget_api, intranet, bad_link):
    _, allowed, _ = intranet
    page.open(allowed + "/")
    shown = searched_on(page, f"{BAD_WORD} escalation")
    bad = next(o for o in shown["options"] if o["title"] == BAD_TITLE)
    assert bad["href"] is None and bad["disabled"]  # its title is plain text, not a link
    assert page.evaluate("![...document.querySelectorAll('.evident-widget a')].some(a => !/^https?:/.test(a.href))")
    for _ in range(shown["options"].index(bad) + 1):
        page.press("ArrowDown")
    assert page.evaluate(SHOWN)["active"] == bad["id"]  # it can be read with the keyboard all the same


def test_as_the_box_is_typed_in_the_widget_offers_pages_by_title_and_opens_one_by_keyboard(page, widget_api,
                                                                                         intranet):
    runbook = next(f for f in facts_table() if f["Kind"] == "rare error code")["Expected URL"]
    _, allowed, _ = intranet
    page.open(allowed + "/")
    page.wait_for("!!document.querySelector('.evident-widget [role=combobox]')", "the search box")
    page.click(".evident-widget [role=combobox]")
    page.type("Runbook: tele")
    shown = page.wait_for(f"(s => s.listed && s.options.length && s)({SHOWN})", "pages offered by title")
    assert [o["title"] for o in shown["options"]] == ["Runbook: Telemetry Gateway Alarms"]
    assert shown["options"][0]["href"] == runbook and shown["status"] == "1 page by title · Enter searches"
    page.screenshot("widget-titles.png")
    page.press("ArrowDown")
    page.hold_navigations()
    page.press("Enter")
    assert page.wait_for(page.navigations, "the page opened") == [runbook]


def test_on_a_page_of_another_origin_the_widget_shows_why_it_cannot_search(page, widget_api, intranet):
    _, _, refused = intranet
    page.open(refused + "/")
    shown = searched_on(page, "TideSense")
    assert not shown["options"] and not shown["listed"]
    assert "not available from this page" in shown["status"]
    assert page.evaluate("!!document.querySelector('.evident-widget .evident-error')")
    page.screenshot("widget-refused-origin.png")


def test_cors_headers_only_for_listed_origins_on_search_and_click(widget_api, intranet):
    _, allowed, refused = intranet
    client = widget_api.test_client()
    for path in ("/api/search", "/api/click"):
        preflight = client.options(path, headers={"Origin": allowed, **PREFLIGHT})
        assert preflight.headers[ALLOW_ORIGIN] == allowed and "POST" in preflight.headers["Access-Control-Allow-Methods"]
        assert ALLOW_ORIGIN not in client.options(path, headers={"Origin": refused, **PREFLIGHT}).headers
    answer = client.get("/api/search", query_string={"q": "TideSense"}, headers={"Origin": allowed})
    assert answer.status_code == 200 and answer.headers[ALLOW_ORIGIN] == allowed
    assert ALLOW_ORIGIN not in client.get("/api/search", query_string={"q": "TideSense"},
                                          headers={"Origin": refused}).headers
    titles = client.get("/api/suggest", query_string={"q": "tide"}, headers={"Origin": allowed})
    assert titles.status_code == 200 and titles.headers[ALLOW_ORIGIN] == allowed
    assert ALLOW_ORIGIN not in client.get("/api/suggest", query_string={"q": "tide"},
                                          headers={"Origin": refused}).headers
    for path in ("/api/admin/summary", "/api/ingest/jobs", "/api/ingest/retry", "/admin", "/api/openapi.json"):
        assert ALLOW_ORIGIN not in client.get(path, headers={"Origin": allowed}).headers, path
        assert ALLOW_ORIGIN not in client.options(path, headers={"Origin": allowed, **PREFLIGHT}).headers, path


def test_without_configured_origins_no_page_elsewhere_may_search(client):
    answer = client.get("/api/search", query_string={"q": "TideSense"}, headers={"Origin": "http://127.0.0.1:1"})
    assert answer.status_code == 200 and ALLOW_ORIGIN not in answer.headers
    assert ALLOW_ORIGIN not in client.options("/api/click", headers={"Origin": "http://127.0.0.1:1", **PREFLIGHT}).headers


@pytest.mark.parametrize("setting", ["intranet.example.org", "https://*.example.org", "https://intranet.example.org/home",
                                     "ftp://intranet.example.org", "https://[::1", "https://intranet.example.org:99999"])
def test_a_setting_that_is_no_origin_is_refused_with_its_name(setting):
    with pytest.raises(ValueError, match=r"\[api\] cors_origins: .* is not an origin"):
        allowed_origins(f"https://ok.example.org, {setting}")


def test_origins_are_read_from_the_comma_separated_setting():
    assert allowed_origins(" https://a.example.org/, http://127.0.0.1:8080 ,") == ["https://a.example.org",
                                                                                  "http://127.0.0.1:8080"]
    assert allowed_origins("") == []
