"""The multilingual stage's query (pure): which questions it reads and what it asks OpenSearch."""
from __future__ import annotations

from core.index import MULTILINGUAL_FIELD
from search.grouping import Group
from search.multilingual import applies, multilingual_query, settled
from search.closest import rivals


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


def test_a_first_page_that_leads_by_more_than_the_stages_can_add_is_settled():
    assert settled([3.0, 2.0, 1.0], reach=0.4)  # a lead of 1.0: no gain of 0.4 at most can overtake it
    assert not settled([3.0, 2.7, 1.0], reach=0.4)  # 0.3 ahead: the second page may pass it
    assert not settled([2.7, 3.0], reach=0.4)  # whatever order the pages come in
    assert settled([3.0], reach=0.4) and settled([], reach=0.4)  # nothing to overtake it


def _page(url: str, score: float, *texts: str, simhash: str = "") -> Group:
    return Group([{"_source": {"url": url, "doc_id": url, "text": text, "page_simhash": simhash}} for text in texts],
                 score)


def test_the_first_pages_rivals_leave_out_its_copies():
    """A page whose evidence read as the first's gains from the closest stages exactly as it does, and a
    near-duplicate is one result with it: neither can take the first place from it."""
    first = _page("https://a", 3.0, "Leftover vacation expires on 31 March.", simhash="9f3a5c7e11d20b48")
    same_words = _page("https://a#copy-1", 3.0, "Leftover vacation expires on 31 March.")
    near = _page("https://b", 2.9, "Leftover vacation expires on March 31.", simhash="9f3a5c7e11d20b49")
    other = _page("https://c", 1.0, "Bike leasing through salary conversion.", simhash="60c5a381ee2df4b7")
    assert rivals([first, same_words, near, other], fold_bits=6) == [other]
    assert rivals([first, same_words, near, other], fold_bits=None) == [near, other]  # not folded: it may pass
    assert settled([page.score for page in [first, *rivals([first, same_words, near, other], 6)]], reach=0.4)
    assert rivals([], fold_bits=6) == []
