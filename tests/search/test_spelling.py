"""Spelling: which words of a question are typos, and the word searched beside each, asked of the real
OpenSearch index as the caller may read it."""
from __future__ import annotations

import pytest

from core.profile import TOTAL, recording
from search.lexicon import Lexicon
from search.spelling import (MAX_CHECKED_WORDS, MAX_JOINED_CHARS, MAX_JOINED_WORDS, MIN_SIMILARITY,
                             SpellingCorrector, close_words, rare_words, spelled, suggestions,
                             two_word_readings, typo_candidates)
from search.vocabulary import CorpusWords
from tests.search.passages import index_passages
from text.lemmas import Lemmatizer

PAGES = {  # doc id -> (read groups, text)
    "spell:open": ([], "Reimbursement of travel expenses after a business trip. Salutation and greeting. The"
                       " probation period is six months."),
    "spell:api": ([], "The API rate limit is 600 calls a minute. A list of lint rules runs on every build."),
    "spell:hr": (["hr"], "The severance formula for a departing employee"),
    "spell:reise": ([], "Für den Verpflegungsmehraufwand gilt eine Pauschale von 28 Euro am Tag. Keine Sorge:"
                            " Belege kommen danach in die blaue Tonne."),
    "spell:konto": (["hr"], "Das Konto für Überstunden führt die Personalabteilung."),
    "spell:oncall": ([], "Page the on-call engineer. Keep the recovery codes in the password manager."),
    "spell:vault": (["it"], "The vault key rotation runs in the key store, weekly."),
}
DING_SAMPLE = """\
Verpflegung {f} :: board; catering
Pauschale {f} | Pauschalen {pl} :: flat rate | flat rates
Zeit {f} :: time
Konto {n} :: account
entsorgen {vt} :: to dispose of
Sorge {f} :: worry
Ente {f} | Enten {pl} :: duck | ducks
"""


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


def test_only_rare_plain_words_may_be_typos(lemmatizer):
    """Stop words, words the language knows, short words, numbers, codes and acronyms are meant as written."""
    asked = "krankmeldng ab wann brauche ich ein attest"
    assert typo_candidates(rare_words(lemmatizer, asked, "de")) == ["krankmeldng"]
    assert typo_candidates(rare_words(lemmatizer, "Can I work from Thailand?", "en")) == []
    assert typo_candidates(rare_words(lemmatizer, "lmt of HVX-4.2 on the VPN in 2025", "en")) == []


def test_only_words_rarer_than_the_common_ones_may_be_compounds(lemmatizer):
    """An inflected word the language uses often ("laufenden", "bestanden") is no compound to split."""
    assert rare_words(lemmatizer, "Wie viel Verpflegungspauschale gibt es?", "de") == ["verpflegungspauschale"]
    assert rare_words(lemmatizer, "Welche Tests haben die laufenden Geräte bestanden?", "de") == []


def test_a_word_is_read_as_two_at_every_place_but_a_pasted_string_is_not():
    assert two_word_readings(["oncall"]) == {"oncall": ["o ncall", "on call", "onc all", "onca ll", "oncal l"]}
    long_word = "x" * (MAX_JOINED_CHARS + 1)
    assert two_word_readings([long_word, *(f"word{c}" for c in "abcdef")]) == {
        f"word{c}": [f"w ord{c}", f"wo rd{c}", f"wor d{c}", f"word {c}"] for c in "abcdef"[:MAX_JOINED_WORDS]}


def test_a_pasted_text_has_only_its_first_rare_words_checked(lemmatizer):
    pasted = " ".join(f"zzq{chr(97 + i // 26)}{chr(97 + i % 26)}x" for i in range(3 * MAX_CHECKED_WORDS))
    assert typo_candidates(rare_words(lemmatizer, pasted, "en")) == pasted.split()[:MAX_CHECKED_WORDS]


def test_a_correction_is_searched_beside_the_word_as_typed():
    assert spelled("Minimum Pasword length", {"pasword": "password"}) == "Minimum Pasword password length"
    assert spelled("passwords and pasword", {"pasword": "password"}) == "passwords and pasword password"


def test_only_suggestions_alike_enough_are_taken():
    answer = {"suggest": {"w0": [{"text": "limt", "options": [{"text": "limit", "score": 0.75, "freq": 21}]}],
                          "w1": [{"text": "pasword", "options": [{"text": "password", "score": 0.86, "freq": 22},
                                                                 {"text": "passwords", "score": 0.71, "freq": 9}]}]}}
    assert close_words(suggestions(answer, ["limt", "pasword"]), MIN_SIMILARITY) == {"limt": [],
                                                                                      "pasword": ["password"]}
    assert 0.75 < MIN_SIMILARITY <= 0.86


@pytest.fixture(scope="module")
def corrector(stores, settings) -> SpellingCorrector:
    index_passages(stores, settings, PAGES)
    index = settings.opensearch.index_alias
    return SpellingCorrector(stores, index, CorpusWords(stores, index))


def test_a_typo_gets_the_close_word_the_corpus_holds(corrector, lemmatizer):
    assert corrector.run("reimbursemnt of a trip", "en", [], lemmatizer) == {"reimbursemnt": "reimbursement"}


def test_a_typo_asked_again_asks_opensearch_nothing(corrector, stores, settings, lemmatizer):
    """The suggester's answer is kept beside the presence checks', so a question typed again costs no round trip."""
    index = settings.opensearch.index_alias
    fresh = SpellingCorrector(stores, index, CorpusWords(stores, index))  # its own caches, on the corpus indexed
    with recording() as first:
        assert fresh.run("reimbursemnt of a trip", "en", [], lemmatizer) == {"reimbursemnt": "reimbursement"}
    with recording() as again:
        assert fresh.run("reimbursemnt of a trip", "en", [], lemmatizer) == {"reimbursemnt": "reimbursement"}
    assert first.stages[TOTAL].round_trips >= 2 and again.stages[TOTAL].round_trips == 0


def test_a_word_the_corpus_holds_in_another_form_is_no_typo(corrector, lemmatizer):
    assert corrector.run("when is travel reimbursed", "en", [], lemmatizer) == {}


def test_a_word_the_language_knows_is_left_as_typed(corrector, lemmatizer):
    """"saturation" is one letter from "salutation", which the corpus holds; the user meant "saturation"."""
    assert corrector.run("saturation", "en", [], lemmatizer) == {}


def test_a_word_only_restricted_pages_hold_is_offered_only_to_their_readers(corrector, lemmatizer):
    """The suggester reads every page's words: a correction must not tell an outsider what restricted pages say."""
    assert corrector.run("severance formual", "en", [], lemmatizer) == {}
    assert corrector.run("severance formual", "en", ["hr"], lemmatizer) == {"formual": "formula"}


def test_a_short_typo_whose_close_words_are_alike_is_searched_as_typed(corrector, lemmatizer):
    """"limit", "list" and "lint" are each one edit from "limt": no guess is offered, and the question's other
    words ("rate") find the page."""
    assert corrector.run("fleet api rate limt", "en", [], lemmatizer) == {}


@pytest.fixture(scope="module")
def splitting(corrector, stores, settings, tmp_path_factory) -> SpellingCorrector:
    path = tmp_path_factory.mktemp("ding") / "de-en"
    path.write_text(DING_SAMPLE, encoding="utf-8")
    index = settings.opensearch.index_alias
    return SpellingCorrector(stores, index, CorpusWords(stores, index), Lexicon.from_ding(path))


def test_a_compound_the_corpus_lacks_is_searched_beside_the_part_it_holds(splitting, lemmatizer):
    """The page says "Verpflegungsmehraufwand" and "Pauschale", never "Verpflegungspauschale" or "Verpflegung"."""
    assert splitting.run("Wie hoch ist die Verpflegungspauschale?", "de", [], lemmatizer) == {
        "verpflegungspauschale": "pauschale"}
    assert splitting.run("Verpflegungsmehraufwand am Tag", "de", [], lemmatizer) == {}


def test_no_compound_is_split_without_a_lexicon_or_into_a_verb_s_prefix(corrector, splitting, lemmatizer):
    """"entsorge" (dispose of) is ent|sorge only to a splitter: the page's "Sorge" (worry) is no part of it, and
    no search for ducks ("Ente") either. The German word list counts "entsorge" rare, as it does "entsperren"."""
    assert corrector.run("Wie hoch ist die Verpflegungspauschale?", "de", [], lemmatizer) == {}
    assert rare_words(lemmatizer, "wo entsorge ich Papier", "de") == ["entsorge"]
    assert splitting.run("wo entsorge ich Papier", "de", [], lemmatizer) == {}


def test_a_part_only_restricted_pages_hold_is_offered_only_to_their_readers(splitting, lemmatizer):
    assert splitting.run("Zeitkonto", "de", [], lemmatizer) == {}
    assert splitting.run("Zeitkonto", "de", ["hr"], lemmatizer) == {"zeitkonto": "konto"}


def test_a_word_run_together_is_searched_as_the_two_words_the_corpus_writes(corrector, lemmatizer):
    """Pages write "on-call" and "password manager"; the suggester alone took "checkin" for "checking"."""
    assert corrector.run("oncall engineer", "en", [], lemmatizer) == {"oncall": "on call"}
    assert corrector.run("passwordmanager codes", "en", [], lemmatizer) == {"passwordmanager": "password manager"}


def test_a_typo_whose_stem_and_a_particle_the_corpus_holds_is_no_word_run_together(corrector, lemmatizer):
    """The English analyzer reads "probation" as "probat": "probaton" read as "probat on" would be held where
    "probation" stands, though no page writes "probat". It is a typo of "probation"."""
    assert corrector.run("probaton period", "en", [], lemmatizer) == {"probaton": "probation"}


def test_a_word_run_together_only_restricted_pages_write_apart_is_split_only_for_their_readers(corrector,
                                                                                               lemmatizer):
    assert corrector.run("keystore rotation", "en", [], lemmatizer) == {}
    assert corrector.run("keystore rotation", "en", ["it"], lemmatizer) == {"keystore": "key store"}
