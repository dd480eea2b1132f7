"""Near-duplicate pages through the API and the search page: the copies listed under their page in the JSON and
as "Also in" on the page; ``collapse=false`` lists every copy as a result."""
from __future__ import annotations

from tests.api.test_pages import ANSWERED, rendered, served  # noqa: F401 - the page test's app on loopback
from tests.search.test_duplicates_search import JDOE_COPY, ORIGINAL, QUERY, copies  # noqa: F401 - the pages


def kelpie_hits(data: dict) -> list[dict]:
    return [h for h in data["hits"] if "Kelpie" in h["title"]]


def test_the_api_lists_a_copy_under_its_page_unless_asked_not_to(client, copies):
    collapsed = client.get("/api/search", query_string={"q": QUERY}).get_json()
    [hit] = kelpie_hits(collapsed)
    assert hit["url"] == ORIGINAL and [d["url"] for d in hit["duplicates"]] == [JDOE_COPY]
    assert hit["duplicates"][0]["space"] == "~jdoe"
    apart = client.get("/api/search", query_string={"q": QUERY, "collapse": "false"}).get_json()
    assert sorted(h["url"] for h in kelpie_hits(apart)) == sorted([ORIGINAL, JDOE_COPY])


def test_the_search_page_shows_where_else_a_page_is(served, copies, page):
    dom = rendered(page, f"{served}/?q={QUERY.replace(' ', '+')}", ANSWERED)
    assert 'class="also-in"' in dom and "Also in: " in dom
    assert f'href="{JDOE_COPY}"' in dom and "(~jdoe)" in dom
