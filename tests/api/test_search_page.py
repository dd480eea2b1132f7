"""The search page (``api/static/search.js``) in a real headless Chromium, one page load per state: empty, results
with their type labels, dates and authors, the answer card (a sentence, a table row), filters taken from the address,
"More results", "Did you mean" and its undo, the follow-up chip and its removal, newest first, a quoted phrase. Each
state leaves a screenshot in build/screenshots/."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.api.conftest import ADMIN
from tests.api.test_pages import served  # noqa: F401 - the app on loopback, signed in as an admin
from tests.test_samples import facts_table

RUNBOOK_EDITOR = "Tomasz Wierzbicki"  # who last changed the sample runbook (its version.by.displayName)
ASKING = "(asked, no answer yet)"  # the answer line's text while a test waits; the page never writes it
# What the page shows: each result's title, type label, facts line and link; the chip, the suggestion, the
# answer card, the filters ticked, the meta line, whether "More results" is offered, the address.
SHOWN = """(() => ({
  hits: [...document.querySelectorAll('#results .hit')].map(h => ({
    title: h.querySelector('.title').textContent, label: h.querySelector('.kind').textContent,
    facts: (h.querySelector('.facts') || {}).textContent || '', href: (h.querySelector('a.title') || {}).href || null,
    more: [...h.querySelectorAll('.more .kind')].map(k => k.textContent)})),
  following: document.getElementById('following').innerText,
  suggestion: document.getElementById('suggestion').innerText,
  answer: document.getElementById('answer').innerText,
  ticked: [...document.querySelectorAll('#filters input:checked')].map(i => i.name + '=' + i.value),
  meta: document.getElementById('meta').textContent,
  more: !document.getElementById('more').hidden,
  address: location.search}))()"""
ANSWERED = ("document.querySelectorAll('#results .hit').length > 0"
            " || /No results|No good match/.test(document.querySelector('main').textContent)")


def runbook_fact() -> dict:
    return next(f for f in facts_table() if f["Kind"] == "rare error code")


def opened(page, url: str, wait: str = ANSWERED) -> dict:
    """Open ``url`` in ``page`` and wait until ``wait`` holds; what the page shows then."""
    page.open(url)
    page.wait_for(wait, f"the search page at {url}")
    return page.evaluate(SHOWN)


def asked(page, question: str) -> dict:
    """Type a question into the box and press Enter; what the page shows once it answered. The answer line is
    marked first and the wait is for the page to rewrite it: two answers may read alike ("6 pages · 84 ms")."""
    page.evaluate(f"document.getElementById('meta').textContent = {ASKING!r}")
    page.click("#q")
    page.evaluate("document.getElementById('q').value = ''")
    page.type(question)
    page.press("Enter")
    page.wait_for(f"document.getElementById('meta').textContent !== {ASKING!r}", f"an answer to {question!r}")
    return page.evaluate(SHOWN)


def test_the_empty_page_offers_the_box_and_nothing_else(page, served):
    shown = opened(page, f"{served}/", "!!document.getElementById('q')")
    page.screenshot("search-empty.png")
    assert shown["hits"] == [] and not shown["following"] and not shown["more"] and not shown["suggestion"]
    assert page.evaluate("document.activeElement.id") == "q"


def test_results_show_type_labels_in_words_with_space_date_and_author(page, served, sample_corpus):
    fact = runbook_fact()
    shown = opened(page, f"{served}/?{urlencode({'q': fact['Query']})}")
    page.screenshot("search-results.png", whole_page=True)
    first = shown["hits"][0]
    assert first["href"] == fact["Expected URL"]
    # the space by its name (its key is OPS)
    assert first["facts"].startswith("Operations · Updated ") and first["facts"].endswith(f"by {RUNBOOK_EDITOR}")
    assert "2025" in first["facts"]  # the runbook's last version, 27 Feb 2025, as the browser writes dates
    labels = {h["label"] for h in shown["hits"]} | {m for h in shown["hits"] for m in h["more"]}
    assert labels and not any("_" in label for label in labels), labels  # words, never table_row or page_facts
    assert any(label.startswith("PDF page ") or label in ("Passage", "Table row", "Section", "List", "Page details")
               for label in labels), labels
    types = page.evaluate("[...document.querySelectorAll('#filters input[name=kind]')].map(i => i.parentNode.innerText)")
    assert types and all(t.strip()[0].isupper() and "_" not in t for t in types), types  # the type filter in words too
    filters = page.evaluate("document.getElementById('filters').innerText")
    assert "English" in filters and "Operations" in filters  # a language and a space by their names


def test_on_a_laptop_the_filters_sit_beside_the_results_and_the_first_result_shows_without_scrolling(
        page, served, sample_corpus):
    shown = opened(page, f"{served}/?q=TideSense")
    assert shown["hits"]
    filters, first = page.evaluate("['#filter-form', '#results .hit'].map(s => document.querySelector(s)"
                                   ".getBoundingClientRect()).map(r => ({left: r.left, right: r.right, top: r.top}))")
    assert filters["right"] <= first["left"], (filters, first)  # beside the results, not above them
    assert first["top"] < page.evaluate("innerHeight"), first  # on the first screen
    page.screenshot("search-filters-beside.png")


def test_the_answer_card_shows_the_unit_that_answers_above_the_results(page, served, sample_corpus):
    shown = opened(page, f"{served}/?{urlencode({'q': 'Wann verfällt der Resturlaub?'})}")
    page.screenshot("search-answer-sentence.png")
    assert "verfällt am 31. März" in shown["answer"] and "From Urlaubsregelung" in shown["answer"]
    bold = page.evaluate("[...document.querySelectorAll('#answer .answer-text b')].map(e => e.textContent)")
    assert len(bold) == 1 and "verfällt am 31. März" in bold[0]  # the answering sentence, in bold within its context
    first = page.evaluate("document.querySelector('#results .hit').innerText")
    assert shown["hits"][0]["title"] == "Urlaubsregelung" and "verfällt am 31. März" not in first  # not said twice
    assert shown["hits"][0]["more"]  # the page's other evidence, under its title
    assert shown["hits"][0]["label"] == "Answer above"  # not the kind of the evidence it no longer shows
    opened(page, f"{served}/?{urlencode({'q': 'Is the TideSense S3 Polar qualified for firmware 3.2.1?'})}")
    page.screenshot("search-answer-row.png")
    row = page.evaluate("[...document.querySelectorAll('#answer dt, #answer dd')].map(e => e.textContent)")
    # the row as its headers and values
    assert row[row.index("Model") + 1] == "TideSense S3 Polar" and row[row.index("Status") + 1] == "FAIL"


def test_two_rows_that_answer_alike_show_together_in_the_card(page, served, sample_corpus):
    """"TideSense S3 battery": the S3 Polar's row and the S3's answer about as well; the card shows both rows, each
    as its headers and values."""
    opened(page, f"{served}/?{urlencode({'q': 'TideSense S3 battery'})}")
    page.screenshot("search-answer-two-rows.png")
    rows = page.evaluate("[...document.querySelectorAll('#answer dl.answer-row')].map(dl => "
                         "[...dl.querySelectorAll('dt, dd')].map(e => e.textContent))")
    assert len(rows) == 2
    batteries = {row[row.index("Model") + 1]: row[row.index("Battery") + 1] for row in rows}
    assert batteries == {"TideSense S3 Polar": "Li-SOCl₂ 26 Ah", "TideSense S3": "LiFePO4 18 Ah"}


def test_filters_are_taken_from_the_address_and_kept_there(page, served, sample_corpus):
    shown = opened(page, f"{served}/?q=Lumen+Harbor&space=HR&date_from=2025-01-01")
    assert shown["hits"] and all(h["facts"].startswith("People & HR · ") for h in shown["hits"]), shown["hits"]
    assert "space=HR" in shown["ticked"]
    assert shown["meta"].startswith(f"{len(shown['hits'])} page{'' if len(shown['hits']) == 1 else 's'} · ")
    assert page.evaluate("document.querySelector('#filters input[name=date_from]').value") == "2025-01-01"
    page.screenshot("search-filters.png", whole_page=True)
    page.click("#filters input[name=space][value=HR]")  # the filter taken off: every space again, in the address
    page.wait_for("!location.search.includes('space=HR')", "the address without the space filter")
    after = page.wait_for(f"(s => s.hits.some(h => !h.facts.startsWith('HR')) && s)({SHOWN})", "results of any space")
    assert parse_qs(urlsplit(after["address"]).query) == {"q": ["Lumen Harbor"], "date_from": ["2025-01-01"]}


def test_more_results_adds_the_next_page(page, served, sample_corpus):
    shown = opened(page, f"{served}/?q=TideSense&k=2")
    assert len(shown["hits"]) == 2 and shown["more"]
    page.evaluate("document.getElementById('more').scrollIntoView()")
    page.click("#more")
    after = page.wait_for(f"(s => s.hits.length > 2 && s)({SHOWN})", "the second page of results")
    page.screenshot("search-more.png", whole_page=True)
    links = [h["href"] for h in after["hits"]]  # a PDF's pages are results of one title: the links tell them apart
    assert links[:2] == [h["href"] for h in shown["hits"]] and len(set(links)) == len(links) > 2


def test_did_you_mean_links_to_the_corrected_search_and_undoes_it(page, served, sample_corpus):
    shown = opened(page, f"{served}/?q=salinty+probe")
    assert shown["suggestion"] == "Did you mean salinity probe?"
    page.click("#suggestion a")
    corrected = page.wait_for(f"(s => s.suggestion.startsWith('Showing') && s)({SHOWN})", "the corrected search")
    page.screenshot("search-did-you-mean.png")
    assert parse_qs(urlsplit(corrected["address"]).query) == {"q": ["salinity probe"], "typed": ["salinty probe"]}
    assert corrected["suggestion"] == "Showing results for salinity probe. Search instead for salinty probe"
    assert corrected["hits"][0]["href"].endswith("field-service-manual.pdf#page=2")
    assert page.evaluate("document.getElementById('q').value") == "salinity probe"
    page.click("#suggestion a")
    undone = page.wait_for(f"(s => s.suggestion.startsWith('Did you') && s)({SHOWN})", "the search as typed")
    assert parse_qs(urlsplit(undone["address"]).query) == {"q": ["salinty probe"]}
    assert not undone["following"].count("→")  # the correction replaced its turn, it did not follow it


def test_the_follow_up_chip_shows_what_is_carried_and_removing_it_asks_afresh(page, served, sample_corpus):
    fact = runbook_fact()
    opened(page, f"{served}/", "!!document.getElementById('q')")
    first = asked(page, fact["Query"])
    assert first["following"].startswith(f"Following: {fact['Query']}")
    follow_up = asked(page, "and how do I fix it?")
    page.screenshot("search-follow-up.png")
    assert "searched for:" in follow_up["meta"] and follow_up["hits"][0]["href"] == fact["Expected URL"]
    assert follow_up["following"].startswith(f"Following: {fact['Query']} → and how do I fix it?")
    page.click("#following button.remove")
    assert page.evaluate(SHOWN)["following"] == ""
    alone = asked(page, "and how do I fix it?")
    assert "searched for:" not in alone["meta"]  # asked on its own: nothing carried, nothing resolved
    assert alone["following"].startswith("Following: and how do I fix it?")


def test_a_question_that_matches_nothing_says_so_and_starts_afresh(page, served, sample_corpus):
    """"xyzzyplugh" after the bike question: no word of any language, none the samples write. It is read on its own,
    so it gets "No good match" and no page at all, since no page holds any of it (the bike page the conversation
    found least of all), and the chip says it began a new topic."""
    opened(page, f"{served}/", "!!document.getElementById('q')")
    asked(page, "how do I lease a bike")
    nonsense = asked(page, "xyzzyplugh")
    page.screenshot("search-no-match.png")
    assert nonsense["answer"].startswith("No good match for “xyzzyplugh”: no page holds any of its words")
    assert not nonsense["hits"] and nonsense["meta"].startswith("0 pages") and not nonsense["more"]
    assert nonsense["following"].startswith("New topic: xyzzyplugh") and "→" not in nonsense["following"]
    follow_up = asked(page, "and the bike?")  # the next question follows the new topic, not the bike question
    assert follow_up["following"].startswith("Following: xyzzyplugh → and the bike?")


def test_a_question_no_page_answers_well_gets_the_closest_pages_under_no_good_match(page, served, sample_corpus):
    """"How can I get a bike through work?": no page writes "bike", so none is a good match. The pages that hold some
    of the question are the closest, People & HR first (it says "bicycles"), under "No good match"."""
    shown = opened(page, f"{served}/?{urlencode({'q': 'How can I get a bike through work?'})}")
    page.screenshot("search-closest.png")
    assert shown["answer"].startswith("No good match for “How can I get a bike through work?”. The closest pages:")
    assert page.evaluate("document.getElementById('results').classList.contains('closest')")
    assert shown["hits"][0]["title"] == "People & HR"


def test_results_that_match_nothing_are_set_apart_below_those_that_match(page, served, client, sample_corpus):
    fact = runbook_fact()
    judged = client.get("/api/search", query_string={"q": fact["Query"]}, headers=ADMIN).get_json()  # as the page
    apart = [h["url"] for h in judged["hits"] if h["verdict"] == "none"]
    assert judged["verdict"] == "strong" and apart  # the runbook matches; pages on other topics come below it
    shown = opened(page, f"{served}/?{urlencode({'q': fact['Query']})}")
    page.screenshot("search-less-related.png", whole_page=True)
    below = page.evaluate("[...document.querySelectorAll('.less-related .hit a.title')].map(a => a.href)")
    above = page.evaluate("[...document.querySelectorAll('#results > .hit a.title')].map(a => a.href)")
    assert page.evaluate("document.querySelector('.less-related h2').textContent") == "Less related pages"
    assert below == apart and above[0] == fact["Expected URL"] == shown["hits"][0]["href"]
    assert not set(above) & set(below)


def test_newest_first_is_taken_from_the_address_and_switching_back_orders_by_best_match(page, served, client,
                                                                                       sample_corpus):
    asked_for = {"q": "TideSense buoy firmware"}
    newest, best = ([h["url"] for h in client.get("/api/search", query_string={**asked_for, **sort},
                                                  headers=ADMIN).get_json()["hits"]]
                    for sort in ({"sort": "updated"}, {}))
    assert newest != best  # the sample's best match is not its newest page
    shown = opened(page, f"{served}/?{urlencode({**asked_for, 'sort': 'updated'})}")
    page.screenshot("search-newest-first.png", whole_page=True)
    assert page.evaluate("document.getElementById('sort').value") == "updated"
    assert [h["href"] for h in shown["hits"]] == newest
    page.evaluate("(s => { s.value = 'relevance'; s.dispatchEvent(new Event('change', {bubbles: true})); })"
                  "(document.getElementById('sort'))")
    page.wait_for("!location.search.includes('sort=')", "the address without the sort order")
    best_links = json.dumps(json.dumps(best, separators=(",", ":")))  # as JSON.stringify writes it, quoted for JS
    after = page.wait_for(f"(s => JSON.stringify(s.hits.map(h => h.href)) === {best_links} && s)({SHOWN})",
                          "the results by best match")
    assert parse_qs(urlsplit(after["address"]).query) == {"q": [asked_for["q"]]}


def test_a_quoted_phrase_no_page_holds_is_searched_without_it_and_the_page_says_so(page, served, sample_corpus):
    shown = opened(page, f"{served}/?" + urlencode({"q": '"purple buoy parade" service mode'}))
    assert shown["hits"] and "no page holds “purple buoy parade” as written" in shown["meta"]
    exact = opened(page, f"{served}/?" + urlencode({"q": 'buoy "service mode"'}))
    assert exact["hits"] and "no page holds" not in exact["meta"]
    assert exact["hits"][0]["href"].startswith("https://files.example.org/field-service-manual.pdf")


def test_titles_offered_as_the_box_is_typed_in_open_with_the_arrow_keys_and_enter(page, served, sample_corpus):
    runbook = runbook_fact()["Expected URL"]
    opened(page, f"{served}/", "!!document.getElementById('q')")
    page.click("#q")
    page.type("Runbook: tele")
    offered = page.wait_for("(ts => !ts.hidden && ts.children.length && [...ts.children].map(li => li.innerText))"
                            "(document.getElementById('titles'))", "the titles under the box")
    assert offered[0].startswith("Runbook: Telemetry Gateway Alarms") and offered[0].endswith("Operations")
    assert page.evaluate("document.getElementById('q').getAttribute('aria-expanded')") == "true"
    page.press("ArrowDown")
    assert page.evaluate("document.getElementById('q').getAttribute('aria-activedescendant')") == "title-0"
    assert page.evaluate("document.getElementById('title-0').getAttribute('aria-selected')") == "true"
    page.screenshot("search-titles.png")
    page.hold_navigations()
    page.press("Enter")  # the title chosen is opened, not searched
    page.wait_for(lambda: runbook in page.navigations(), "the runbook opened")
    page.release_navigations()
    assert page.evaluate("location.search") == ""  # nothing was searched
    page.press("Escape")
    assert page.evaluate("document.getElementById('titles').hidden")
