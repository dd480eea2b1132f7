"""The multilingual stage's query (pure): which questions it reads and what it asks OpenSearch."""
from __future__ import annotations

from core.index import MULTILINGUAL_FIELD
from search.multilingual import applies, multilingual_query


def test_only_a_question_read_on_its_own_is_read_in_any_language():
    assert applies(follow_up=False)
    assert not applies(follow_up=True)  # the conversation's stages lead a follow-up


def test_the_query_compares_the_pages_leaves_alone_keeps_the_callers_filters_and_tolerates_an_old_index():
    acl = {"terms": {"acl": ["hr-team"]}}
    body = multilingual_query([0.1, 0.2], ["https://a", "https://b"], [acl])
    knn = body["query"]["bool"]["must"]["knn"][MULTILINGUAL_FIELD]
    assert knn["filter"] == {"terms": {"url": ["https://a", "https://b"]}}
    assert knn["ignore_unmapped"] is True
    assert body["query"]["bool"]["filter"] == [acl]
    assert body["aggs"]["pages"]["terms"]["size"] == 2 and body["size"] == 0
