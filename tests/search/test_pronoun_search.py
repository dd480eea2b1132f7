"""The pronoun "I" of a question against a title's Roman numeral one, through the real worker, OpenSearch and
``Searcher``: a treatise whose title says "Part I" is not the answer to every question a user writes in the
first person, and a question that names "Part I" still finds it."""
from __future__ import annotations

import json

import pytest

from search.searcher import SearchRequest
from tests.search.test_duplicates_search import WIKI, confluence_page

TREATISE = [
    "A harbour charter sets out who may berth at which quay and for how long.",
    "This first part covers the berthing rights of fishing boats and the duties of the quay master.",
]
FIRST_DAY = [
    "On your first day at the harbour office, collect your badge from reception at nine o'clock.",
    "Your team lead walks you through the quay tour and the safety briefing before lunch.",
]
PAGES = [
    confluence_page("9200001", "Harbour Charter — Part I — Berthing Rights", "DOCS", TREATISE,
                    "2023-03-01T09:00:00.000Z", "2024-03-01T09:00:00.000Z"),
    confluence_page("9200002", "Your First Day at the Harbour Office", "HR", FIRST_DAY,
                    "2023-04-01T09:00:00.000Z", "2024-04-01T09:00:00.000Z"),
]
CHARTER, FIRST_DAY_PAGE = (f"{WIKI}/spaces/{p['space']['key']}/pages/{p['id']}" for p in PAGES)


@pytest.fixture(scope="module")
def pages(ingest, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pronoun")
    for page in PAGES:
        (folder / f"{page['id']}.json").write_text(json.dumps(page), encoding="utf-8")
    status = ingest(folder)
    assert status.done == len(PAGES) and not status.errors, status


def test_a_question_in_the_first_person_does_not_find_part_i_first(pages, searcher):
    hits = searcher.search(SearchRequest(query="I start on Monday, where do I go when I arrive?")).hits
    assert CHARTER not in [h.url for h in hits[:1]], [h.url for h in hits[:3]]


def test_a_question_naming_part_i_finds_it(pages, searcher):
    assert searcher.search(SearchRequest(query="What does the Harbour Charter Part I say?")).hits[0].url == CHARTER
