"""The pronoun "I" of a question against a title's Roman numeral one, through the real worker, OpenSearch and
``Searcher``: a treatise whose title says "Part I" is not the answer to every question a user writes in the
first person, and a question that names "Part I" still finds it."""
from __future__ import annotations

import pytest

from search.searcher import SearchRequest
from tests.search.test_duplicates_search import WIKI, confluence_page, ingested_pages

# The session's index is shared and a deleted page keeps counting in BM25's word statistics (soft deletes), so
# these pages stay off the sample corpus's topics and the words of its documented queries (samples/README.md).
TREATISE = [
    "A harbour charter sets out who may berth at which quay and for which period.",
    "This opening part covers the berthing rights of fishing boats and the duties of the quay master.",
]
ROOMS = [
    "Meeting rooms at the harbour office are booked in the room planner on the intranet.",
    "Rooms on the second floor seat up to twelve people and have a projector; cancel a booking you no longer need.",
]
PAGES = [
    confluence_page("9200001", "Harbour Charter — Part I — Berthing Rights", "DOCS", TREATISE,
                    "2023-03-01T09:00:00.000Z", "2024-03-01T09:00:00.000Z"),
    confluence_page("9200002", "Booking a Meeting Room", "FAC", ROOMS,
                    "2023-04-01T09:00:00.000Z", "2024-04-01T09:00:00.000Z"),
]
CHARTER = f"{WIKI}/spaces/{PAGES[0]['space']['key']}/pages/{PAGES[0]['id']}"


@pytest.fixture(scope="module")
def pages(ingest, jobs, stores, settings, tmp_path_factory):
    with ingested_pages(ingest, jobs, stores, settings, tmp_path_factory.mktemp("pronoun"), PAGES):
        yield


def test_a_question_in_the_first_person_does_not_find_part_i_first(pages, searcher):
    hits = searcher.search(SearchRequest(query="I start on Monday, where do I go when I arrive?")).hits
    assert CHARTER not in [h.url for h in hits[:1]], [h.url for h in hits[:3]]


def test_a_question_naming_part_i_finds_it(pages, searcher):
    assert searcher.search(SearchRequest(query="What does the Harbour Charter Part I say?")).hits[0].url == CHARTER
