"""Which words the corpus holds, asked of the real OpenSearch index as a caller may read it."""
from __future__ import annotations

import pytest

from search.vocabulary import CorpusWords
from tests.search.passages import index_passages

PAGES = {  # doc id -> (read groups, text)
    "vocab:open": ([], "Reimbursement of travel expenses after a business trip. Wombats greet the travellers."),
    "vocab:hr": (["hr"], "The severance formula for a departing employee"),
}


@pytest.fixture(scope="module")
def corpus_words(stores, settings) -> CorpusWords:
    index_passages(stores, settings, PAGES)
    return CorpusWords(stores, settings.opensearch.index_alias)


def test_a_word_is_present_in_any_form_the_analyzer_meets(corpus_words):
    assert corpus_words.present(["reimbursement", "expense", "zebrafish"], "en", []) == {"reimbursement", "expense"}


def test_a_word_only_restricted_pages_hold_is_absent_for_an_outsider(corpus_words):
    """Which senses a translation takes shows in the answer's translations: it must not tell an outsider
    what restricted pages say."""
    assert corpus_words.present(["severance"], "en", []) == set()
    assert corpus_words.present(["severance"], "en", ["hr"]) == {"severance"}


def test_a_phrase_is_present_only_where_its_words_stand_together(corpus_words):
    """A compound's translation, or a word the analyzer splits, is confirmed as a phrase: "business trip" is
    said, "trip expenses" and "trip-expenses" are not."""
    assert corpus_words.present(["business trip", "trip expenses", "trip-expenses"], "en", []) == {"business trip"}


def test_words_no_evidence_holds_are_absent_among_words_it_holds(corpus_words):
    """A translation proposes many words the corpus never writes (compounds tried for two words): those are
    ruled out by the index's term statistics, and the words beside them are still found, as the caller reads
    them."""
    tried = ["reimbursement", "reimbursementstrip", "tripexpenses", "business trip", "severance", "zebrafish"]
    assert corpus_words.present(tried, "en", []) == {"reimbursement", "business trip"}
    assert corpus_words.present(tried, "en", ["hr"]) == {"reimbursement", "business trip", "severance"}


def test_a_word_written_is_one_the_pages_write_as_it_is_not_its_stem(corpus_words):
    """The English analyzer reads "wombat" and "wombats" alike; the page writes only "wombats". (The term
    statistics are the whole index's: a word other tests' pages write would count too.)"""
    assert corpus_words.present(["wombat"], "en", []) == {"wombat"}
    assert corpus_words.written(["wombat", "wombats", "zebrafish"]) == {"wombats"}


def test_words_are_found_through_an_alias_of_several_indices(stores, settings, corpus_words):
    """Term statistics need one index; read through an alias over several, every word is searched."""
    alias = settings.opensearch.index_alias
    other, spread_alias = f"{alias}-vocabulary-other", f"{alias}-vocabulary-spread"
    stores.indices.create(index=other)
    try:
        stores.indices.put_alias(index=[*stores.indices.get_alias(name=alias), other], name=spread_alias)
        spread = CorpusWords(stores, spread_alias)
        assert spread.present(["reimbursement", "zebrafish"], "en", []) == {"reimbursement"}
    finally:
        stores.indices.delete_alias(index="_all", name=spread_alias, ignore=404)
        stores.indices.delete(index=other)
