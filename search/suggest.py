"""Pages by title as the search box is typed in: what Confluence's quick navigation offers, so a page a person knows
by name is a few letters and Enter away, and a question goes to the search.

Every word typed must be in the title, the last one as the start of a word ("runbook tele" finds "Runbook:
Telemetry Gateway Alarms", "urlaub" "Urlaubsregelung"): OpenSearch's ``match_bool_prefix`` on the title, one
suggestion a document (``collapse`` on ``doc_id``), inside the caller's read permissions like every retriever, so a
restricted page's title never reaches someone outside its groups. A PDF is suggested as the file, not one of its
pages.

May import ``core.urls`` (links) and ``search.retrievers`` (the ACL filter).
"""
from __future__ import annotations

import re

from opensearchpy import OpenSearch

from core.urls import safe_link
from search.retrievers import acl_filter

_PDF_PAGE = re.compile(r"#page=\d+$")  # a PDF page's evidence links its page; the file is what is suggested
SUGGESTION_FIELDS = ["title", "url", "space", "space_name"]


def title_query(typed: str, principals: list[str], k: int) -> dict:
    """The body of the title search for what is ``typed`` so far, ``k`` documents at most."""
    return {"size": k, "_source": SUGGESTION_FIELDS, "track_total_hits": False,
            "query": {"bool": {"must": {"match_bool_prefix": {"title": {"query": typed, "operator": "and"}}},
                               "filter": [acl_filter(principals)]}},
            "collapse": {"field": "doc_id"}}


def suggestions(client: OpenSearch, index: str, typed: str, principals: list[str], k: int,
                files_base_url: str = "") -> list[dict]:
    """The titles that hold what is ``typed``, best first: ``{title, url, space, space_name}`` each, its link checked
    as a hit's is (``core.urls.safe_link``; a page without a link it would show is left out)."""
    found = client.search(index=index, body=title_query(typed, principals, k))
    out = []
    for src in (hit["_source"] for hit in found["hits"]["hits"]):
        if url := safe_link(_PDF_PAGE.sub("", src.get("url", "")), files_base_url):
            out.append({"title": src.get("title", ""), "url": url, "space": src.get("space", ""),
                        "space_name": src.get("space_name", "")})
    return out
