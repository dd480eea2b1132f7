"""Acronyms through the real worker, OpenSearch and ``Searcher``: a glossary row defines "QRV", a page writes
only "quay readiness verification", and a question asking "QRV?" finds that page by its words; a definition only
a restricted page states is not used for a caller who may not read it; an acronym the pages write more often
than its long form is searched as typed, and asked what it stands for, gets its definition first; with the
setting off, nothing is expanded."""
from __future__ import annotations

import copy

import pytest

from search.searcher import SearchRequest, Searcher
from tests.search.test_duplicates_search import WIKI, confluence_page, ingested_pages

GLOSSARY = confluence_page("9300001", "Terminal Glossary", "OPS", [], "2023-01-10T09:00:00.000Z",
                           "2024-03-01T09:00:00.000Z")
GLOSSARY["body"]["storage"]["value"] = (
    "<p>Abbreviations used at the container terminal.</p><table><tr><th>Acronym</th><th>Meaning</th></tr>"
    "<tr><td>QRV</td><td>Quay readiness verification</td></tr>"
    "<tr><td>MBL</td><td>Mooring bollard log</td></tr></table>")
PROCEDURE = confluence_page("9300002", "Opening a Berth", "OPS", [
    "Before the first vessel docks, the duty terminal supervisor completes the quay readiness verification.",
    "The completed quay readiness verification is filed with the berth's opening form."],
    "2023-02-10T09:00:00.000Z", "2024-03-02T09:00:00.000Z")
BALLAST = confluence_page("9300003", "Ballast Crew Notes", "OPS", [
    "Each spring the crew runs the Zephyr ballast test (ZBT) on every tug before the season starts."],
    "2023-03-10T09:00:00.000Z", "2024-03-03T09:00:00.000Z", read_groups=("ballast-crew",))
TUGS = confluence_page("9300004", "Tug Maintenance", "OPS", [
    "The zephyr ballast test takes half a day per tug and is booked with the workshop."],
    "2023-04-10T09:00:00.000Z", "2024-03-04T09:00:00.000Z")
BOLLARDS = [confluence_page(f"930001{n}", f"Bollard Round {n}", "OPS", [
    f"The MBL of berth {n} is checked on every round and signed by the boatswain."],
    "2023-05-10T09:00:00.000Z", "2024-03-05T09:00:00.000Z") for n in (1, 2)]
PROCEDURE_URL = f"{WIKI}/spaces/OPS/pages/9300002"
GLOSSARY_URL = f"{WIKI}/spaces/OPS/pages/9300001"


@pytest.fixture(scope="module")
def terminal(ingest, jobs, stores, settings, tmp_path_factory):
    pages = [GLOSSARY, PROCEDURE, BALLAST, TUGS, *BOLLARDS]
    with ingested_pages(ingest, jobs, stores, settings, tmp_path_factory.mktemp("acronyms"), pages):
        yield


def _bm25(response, url: str) -> float:
    return sum(v for k, v in response.contributions.get(url, {}).items() if k.startswith("bm25"))


def test_an_acronym_finds_the_page_that_only_writes_its_long_form(terminal, searcher):
    response = searcher.search(SearchRequest(query="QRV?", explain=True))
    assert response.acronyms == {"QRV": "Quay readiness verification"}
    assert PROCEDURE_URL in [h.url for h in response.hits[:2]] and _bm25(response, PROCEDURE_URL) > 0

    settings = copy.deepcopy(searcher.settings)
    settings.search.acronyms = False
    unexpanded = Searcher(settings, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon)
    as_typed = unexpanded.search(SearchRequest(query="QRV?", explain=True))
    assert as_typed.acronyms == {} and _bm25(as_typed, PROCEDURE_URL) == 0


def test_a_definition_only_a_restricted_page_states_is_used_only_for_its_readers(terminal, searcher):
    assert searcher.search(SearchRequest(query="When is the ZBT?")).acronyms == {}
    crew = searcher.search(SearchRequest(query="When is the ZBT?", groups=["ballast-crew"]))
    assert crew.acronyms == {"ZBT": "Zephyr ballast test"}


def test_an_acronym_the_pages_write_more_often_than_its_long_form_is_searched_as_typed(terminal, searcher):
    assert searcher.search(SearchRequest(query="Who signs the MBL?")).acronyms == {}


def test_a_question_asking_what_an_acronym_means_gets_the_row_defining_it_first(terminal, searcher):
    """"MBL" is written on two bollard pages and defined on the glossary; asked what it stands for, the glossary
    comes first; asked who signs it, a bollard page does."""
    meaning = searcher.search(SearchRequest(query="What does MBL stand for?", explain=True))
    assert meaning.hits[0].url == GLOSSARY_URL and meaning.contributions[GLOSSARY_URL]["definition_bonus"] > 0
    in_passing = searcher.search(SearchRequest(query="Who signs the MBL of berth 2 on the round?"))
    assert in_passing.hits[0].url == f"{WIKI}/spaces/OPS/pages/9300012"
