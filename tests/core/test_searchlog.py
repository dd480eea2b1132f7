"""The search log against the real OpenSearch: what counts as a zero-hit query."""
from __future__ import annotations

from core.searchlog import SearchLog


def test_a_search_whose_answer_matches_nothing_well_counts_as_zero_hit(stores, settings):
    # A log of its own: the session's log holds every other test's searches, and the summary lists the top few.
    index = f"{settings.opensearch.searchlog_index}-zero-hit"
    stores.indices.delete(index=index, ignore_unavailable=True)
    log = SearchLog(stores, index)
    log.search("who approved the quaymaster release", 12, hits=9, lang="en", mode="hybrid", verdict="none")
    log.search("wann verfällt der resturlaub", 12, hits=9, lang="de", mode="hybrid", verdict="strong")
    log.search("zzzz-nothing", 12, hits=0, lang="en", mode="hybrid")
    log.flush()
    stores.indices.refresh(index=index)
    summary = log.summary(days=1)
    zero = dict(summary["zero_hit"])
    assert zero.get("who approved the quaymaster release") == 1 and zero.get("zzzz-nothing") == 1
    assert "wann verfällt der resturlaub" not in zero
    assert "who approved the quaymaster release" not in dict(summary["no_click"])
    stores.indices.delete(index=index)


def test_each_search_line_names_the_index_alias_it_was_served_from(stores, settings):
    log = SearchLog(stores, settings.opensearch.searchlog_index, settings.opensearch.index_alias)
    search_id = log.search("where is the alias kept", 3, hits=1, lang="en", mode="hybrid")
    log.flush()
    line = stores.get(index=settings.opensearch.searchlog_index, id=search_id)["_source"]
    assert line["alias"] == settings.opensearch.index_alias


def test_a_console_counts_only_its_own_alias_searches(stores, settings):
    index = f"{settings.opensearch.searchlog_index}-two-aliases"
    stores.indices.delete(index=index, ignore_unavailable=True)
    mine, other = SearchLog(stores, index, "intranet-a"), SearchLog(stores, index, "intranet-b")
    mine.search("where is the canteen", 3, hits=2, lang="en", mode="hybrid", verdict="strong")
    other.search("where is the canteen", 3, hits=0, lang="en", mode="hybrid", verdict="none")
    other.search("quarterly figures", 3, hits=4, lang="en", mode="hybrid", verdict="strong")
    for log in (mine, other):
        log.flush()
    stores.indices.refresh(index=index)
    summary = mine.summary(days=1)
    assert summary["searches"] == 1 and summary["zero_hit"] == [] and summary["top"] == [["where is the canteen", 1]]
    stores.indices.delete(index=index)


def test_the_askers_word_on_an_answer_card_is_kept_and_the_cards_marked_not_helpful_are_listed(stores, settings):
    index = f"{settings.opensearch.searchlog_index}-feedback"
    stores.indices.delete(index=index, ignore_unavailable=True)
    log = SearchLog(stores, index)
    card = ("urlaub#s3", "Urlaubsregelung")
    wrong = log.search("wann verfällt der resturlaub", 12, hits=3, lang="de", mode="hybrid", verdict="strong",
                       answer=card)
    assert log.feedback(wrong, helpful=True) is True  # at once: the line still queued is written first
    assert log.feedback(wrong, helpful=False) is True  # the last word is kept
    right = log.search("how do I lease a bike", 12, hits=3, lang="en", mode="hybrid", verdict="strong",
                       answer=("hr#s1", "People & HR"))
    no_card = log.search("xyzzyplugh", 12, hits=0, lang="en", mode="hybrid", verdict="none")
    log.flush()
    assert log.feedback(right, helpful=True) is True
    assert log.feedback(no_card, helpful=False) is False  # no card to be right or wrong about
    assert log.feedback("0" * 32, helpful=False) is None
    stores.indices.refresh(index=index)
    summary = log.summary(days=1)
    assert summary["cards"] == {"shown": 2, "helpful": 1, "not_helpful": 1}
    assert summary["not_helpful"] == [["wann verfällt der resturlaub → Urlaubsregelung", 1]]
    assert "feedback" not in stores.get(index=index, id=no_card)["_source"]
    stores.indices.delete(index=index)
