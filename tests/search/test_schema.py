"""The response as the API sends it. No services."""
from __future__ import annotations

import json

from search.schema import Hit, SearchResponse


def test_the_answer_sent_leaves_out_the_explanation_and_keeps_every_hit_field():
    hit = Hit(url="https://wiki.example.com/p", title="P", heading_path=["A"], kind="passage", snippet="s",
              score=1.0, doc_id="d", evidence_id="e", more=[{"kind": "list", "snippet": "m"}])
    response = SearchResponse(query="q", hits=[hit], took_ms=3, total=1, lang="en", resolved_query="q",
                              contributions={"https://wiki.example.com/p": {"bm25": 1.0}})
    answer = json.loads(json.dumps(response.as_json()))
    assert "contributions" not in answer
    assert answer["hits"] == [{"url": "https://wiki.example.com/p", "title": "P", "heading_path": ["A"],
                               "kind": "passage", "snippet": "s", "score": 1.0, "doc_id": "d", "evidence_id": "e",
                               "label": "", "space": "", "space_name": "", "lang": "", "breadcrumb": [], "updated": "",
                               "author": "",
                               "more": [{"kind": "list", "snippet": "m"}], "duplicates": [], "verdict": "none",
                               "confidence": 0.0}]
    assert answer["query"] == "q" and answer["total"] == 1 and answer["search_id"] == ""
