"""Query understanding on plain text: content terms, identifiers, translations. No services."""
from __future__ import annotations

import pytest

from search.lexicon import Lexicon
from search.query import (ResolvedQuery, content_terms, identifiers, respelled_terms, translations, understand,
                          words)
from text.lemmas import Lemmatizer


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


def test_german_nouns_on_the_stop_list_are_kept(lemmatizer):
    terms = content_terms("An welchem Tag wird das Gehalt gezahlt?", "de", lemmatizer)
    assert "tag" in [t.lower() for t in terms] and "welch" not in terms


def test_dates_give_iso_tokens(lemmatizer):
    assert "2025-02-05" in content_terms("Who was absent on 5 February 2025?", "en", lemmatizer)


def test_identifiers_by_kind(lemmatizer):
    assert identifiers("HVX 4.1.2 rc1 on 2025-02-05", "en", lemmatizer) == {
        "date": {"2025-02-05", "--02-05"}, "version": {"4.1.2"}, "code": {"rc1"}}
    assert identifiers("Salary bands 2025", "", None) == {}


def test_a_version_joined_to_words_by_a_hyphen_is_a_version(lemmatizer):
    assert identifiers("Wer hat den 4.1.2-Bericht zuletzt bearbeitet?", "de", lemmatizer) == {"version": {"4.1.2"}}
    assert identifiers("HVX-4.1 gateways", "", None) == {"version": {"4.1"}}
    assert identifiers("IPC-520 and SEV-2", "en", lemmatizer) == {"code": {"ipc-520", "sev-2"}}  # no version in them


def test_words_keep_versions_and_codes_whole():
    assert words("HVX 4.1.2 and hvx-2588?") == ["hvx", "4.1.2", "and", "hvx-2588"]


def test_translations_drop_the_target_languages_stop_words():
    lexicon = Lexicon({("de", "en"): {"tag": ["day", "the"]}, ("en", "de"): {}})
    assert translations(lexicon, ["tag", "xyz"], "de") == {"en": {"tag": ["day"]}}
    assert translations(None, ["tag"], "de") == {}


def test_translations_ask_the_corpus_once_a_language_and_take_the_senses_it_holds():
    lexicon = Lexicon({("de", "en"): {"seite": ["leaf", "quarter", "page"], "tag": ["day"]}, ("en", "de"): {}})
    asked: list[tuple[list[str], str]] = []

    def present(words: list[str], target: str) -> set[str]:
        asked.append((words, target))
        return {"page", "leaf", "day"}

    assert translations(lexicon, ["seite", "tag"], "de", present) == {"en": {"seite": ["leaf", "page"], "tag": ["day"]}}
    assert asked == [(["leaf", "quarter", "page", "day"], "en")]


def test_a_compound_takes_the_translation_the_corpus_holds_as_a_phrase():
    lexicon = Lexicon({("de", "en"): {"statusseite": ["state quarter", "status quarter", "state page", "status page"]},
                       ("en", "de"): {}})
    held = {"status", "quarter", "state", "page", "status page"}
    found = translations(lexicon, ["statusseite"], "de", lambda words, target: held.intersection(words))
    assert found == {"en": {"statusseite": ["status", "page", "state", "quarter"]}}  # "status page" first


def test_a_term_whose_lemma_has_no_translation_is_looked_up_as_written(lemmatizer):
    # spaCy's lemma table reads the adverb "schnell" as the verb "schnellen" (to jump up)
    lexicon = Lexicon({("de", "en"): {"schnellen": ["spring"], "schnell": ["fast", "quick"]}, ("en", "de"): {}})
    held = {"fast", "quick", "page"}
    found = translations(lexicon, ["schnellen"], "de", lambda words, target: held.intersection(words),
                         written={"schnellen": "schnell"})
    assert found == {"en": {"schnellen": ["fast", "quick"]}}
    query = understand("Wie schnell?", "de", ResolvedQuery.standalone("Wie schnell?"), lemmatizer, lexicon,
                       lambda words, target: held.intersection(words))
    assert query.translated == {"en": {query.lemmas[0]: ["fast", "quick"]}}


def test_understand_reads_the_resolved_question(lemmatizer):
    resolved = ResolvedQuery("Which buoy models?", {"harbour": 1.0}, "Which buoy models?", {}, False)
    query = understand("Which buoy models?", "en", resolved, lemmatizer, None)
    assert query.lemmas == ["buoy", "model"] and query.translated == {} and query.resolved is resolved


def test_a_corrected_word_stands_for_the_typed_term_it_corrects(lemmatizer):
    assert respelled_terms({"pasword": "password", "ratelimit": "rate limit"}, "en", lemmatizer) == {
        "pasword": ["password"], "ratelimit": ["rate", "limit"]}
    # a compound searched beside the part the corpus holds says less than the compound: it stays a term
    assert respelled_terms({"Verpflegungspauschale": "Pauschale", "crewbase": "base"}, "de", lemmatizer) == {}
    asked = "how do I reset my pasword password"
    query = understand(asked, "en", ResolvedQuery.standalone(asked), lemmatizer, None,
                       corrections={"pasword": "password"})
    assert query.respelled == {"pasword": ["password"]}
    assert understand(asked, "en", ResolvedQuery.standalone(asked), lemmatizer, None).respelled == {}


def test_a_german_compound_of_two_neighbouring_terms_is_searched_when_the_corpus_holds_it():
    lexicon = Lexicon({("en", "de"): {"salary": ["gehalt"], "round": ["runde"]}, ("de", "en"): {}})
    held = {"gehalt", "runde", "gehaltsrunde"}
    found = translations(lexicon, ["salary", "round"], "en", lambda words, target: held.intersection(words))
    assert found == {"de": {"salary": ["gehalt"], "round": ["runde", "gehaltsrunde"]}}
    carried = translations(lexicon, ["salary", "round"], "en", lambda words, target: held.intersection(words),
                           neighbours=False)  # terms of earlier turns are no neighbours
    assert carried == {"de": {"salary": ["gehalt"], "round": ["runde"]}}
    assert translations(lexicon, ["salary", "round"], "en") == {"de": {"salary": ["gehalt"], "round": ["runde"]}}
