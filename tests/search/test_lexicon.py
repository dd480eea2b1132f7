"""The German-English word list: parsing Ding's format, compounds, and the installed Debian list."""
from __future__ import annotations

from pathlib import Path

import pytest

from search.lexicon import Lexicon, load_lexicon
from core.settings import SearchConfig

DING_SAMPLE = """\
# Version :: test
Tag {m} | Tage {pl} | am Tag :: day | days | by day
Tag {m} (Etikett) [comp.] :: tag
Gehalt {n}; Besoldung {f} | Gehälter {pl} :: salary; pay | salaries
lernen {vt} | lernend | gelernt :: to learn; to study | learning | learned
Weiterbildung {f} :: further education; continuing education
Budget {n}; Etat {m} :: budget
Konferenz {f} | Konferenzen {pl} | Er ist in einer Besprechung. | x :: conference | conferences
etw. auszahlen {vt} :: to pay out sth.
Unterstützung {f} :: support
Suppe {f} :: soup
Port {m} :: port
Status {m} :: status; state
Seite {f} :: side; page
aus {prp; +Dat.} :: from; out of
Land {n} :: country; land
halten {vt} | haltend | gehalten :: to keep | keeping | kept
Runde {f} :: round; lap
Jahrgang {m} /Jg./ :: volume /vol./; year
Boot {n} :: boat
Stiefel {m} :: boot
Konfiguration {f} :: configuration
"""

# The words of the question below and the parts of its compounds: every line of the installed list that gives one
# of their senses holds one of these.
INSTALLED_LIST_WORDS = ("gehalt", "weiterbildung", "budget", "reisekosten", "seite")


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> Lexicon:
    path = tmp_path_factory.mktemp("ding") / "de-en"
    path.write_text(DING_SAMPLE, encoding="utf-8")
    return Lexicon.from_ding(path)


def test_head_sense_comes_first_and_notes_are_dropped(lexicon):
    assert lexicon.lookup("Tag", "de", "en")[:2] == ["day", "tag"]
    assert lexicon.lookup("gehälter", "de", "en") == ["salaries"]
    assert lexicon.lookup("auszahlen", "de", "en") == ["pay out"]  # "etw." and "sth." are placeholders


def test_abbreviations_in_either_case_are_notes(lexicon):
    # "/Jg./" and "/vol./" name the abbreviation; read as words, they cost "Jahrgang" its sense "volume"
    assert lexicon.lookup("jahrgang", "de", "en")[:2] == ["volume", "year"]


def test_the_list_knows_its_words_in_both_languages_and_their_compounds(lexicon):
    assert lexicon.knows("Gehalt") and lexicon.knows("salary") and lexicon.knows("Lerntag")  # lernen + Tag
    assert not lexicon.knows("xyzzyplugh") and not lexicon.knows("Quaymaster")


def test_one_file_gives_both_directions(lexicon):
    assert lexicon.pairs == {("de", "en"), ("en", "de")}
    assert lexicon.lookup("salary", "en", "de") == ["gehalt", "besoldung"]


def test_sub_entries_that_do_not_line_up_give_their_head_word_only(lexicon):
    # The Konferenz line has four German parts but two English ones: the head words still pair up, and
    # nothing is guessed from the rest.
    assert lexicon.lookup("konferenz", "de", "en") == ["conference"]
    assert lexicon.lookup("konferenzen", "de", "en") == []


def test_german_compound_unknown_as_a_whole_is_split(lexicon):
    assert lexicon.lookup("Weiterbildungsbudget", "de", "en")[0] == "further education budget"
    assert lexicon.lookup("Lerntage", "de", "en")[0] == "learn days"  # Lern|tage: the verb lernen
    assert lexicon.lookup("Gartenzwerg", "de", "en") == []
    assert lexicon.lookup("budgetday", "en", "de") == []  # only German is split


def test_a_split_compound_gives_every_pairing_of_its_parts_senses_best_first(lexicon):
    assert lexicon.lookup("Statusseite", "de", "en") == ["status side", "state page", "status page", "state side"]


def test_a_compound_starts_with_a_noun_never_with_a_preposition(lexicon):
    assert lexicon.lookup("Gehaltsrunde", "de", "en")[0] == "salary round"  # Gehalt, not gehalten ("kept")
    assert lexicon.lookup("Ausland", "de", "en") == []  # not "from country": aus is a prefix


def test_a_loanword_is_meant_as_in_its_own_language_not_split(lexicon):
    # German has no entry "Support": it is the English word, not Supp(e)|port
    assert lexicon.lookup("Support", "de", "en") == ["support"]


def test_a_hyphenated_word_unknown_as_a_whole_is_translated_part_by_part(lexicon):
    assert lexicon.lookup("Gehalt-Budget", "de", "en") == ["salary budget", "pay budget"]
    assert lexicon.lookup("4.1-Gehalt", "de", "en") == ["4.1 salary", "4.1 pay"]  # a version stays as written
    assert lexicon.lookup("salary-budget", "en", "de") == ["gehalt budget", "besoldung etat"]  # both directions
    assert lexicon.lookup("SEV-2", "de", "en") == []  # no part known: searched as written


def test_a_hyphenated_words_part_that_the_other_language_writes_too_is_also_meant_as_written(lexicon):
    # "Boot-Konfiguration" joins the English "boot" by a hyphen: the boat is the list's sense, the corpus tells
    assert lexicon.lookup("Boot-Konfiguration", "de", "en") == ["boat configuration", "boot configuration"]
    held = {"boot", "configuration"}  # an English page on boot configurations
    assert lexicon.translate(["boot-konfiguration"], "de", "en", held=held) == ["boot", "configuration"]
    assert lexicon.lookup("Boot", "de", "en") == ["boat"]  # a word alone is the list's: its page may say "boat"


def test_translate_takes_the_best_senses_the_corpus_holds(lexicon):
    assert lexicon.sense_words(["tag", "weiterbildungsbudget"], "de", "en")[:3] == ["day", "tag", "further"]
    held = {"salary", "salaries", "day", "education", "budget"}  # the words some page holds
    assert lexicon.translate(["tag"], "de", "en", per_term=1) == ["day"]
    assert lexicon.translate(["tag"], "de", "en", per_term=2, held=held) == ["day"]  # no page says "tag"
    # of a phrase, the words a page holds: "further education budget" -> "education budget"
    assert lexicon.translate(["weiterbildungsbudget"], "de", "en", per_term=1, held=held) == ["education", "budget"]
    assert lexicon.translate(["konferenz"], "de", "en", held=held) == []  # no sense any page holds


def test_neighbouring_terms_give_german_compounds_for_the_corpus_to_confirm(lexicon):
    glued = lexicon.compounds(["salary", "budget"], "en", "de")
    assert glued.keys() == {"budget"}  # under the compound's head
    assert {"gehaltbudget", "gehaltsbudget", "besoldungsetat"} <= set(glued["budget"])
    assert lexicon.compounds(["gehalt", "budget"], "de", "en") == {}  # English writes them apart


def test_translate_gives_each_word_once(lexicon):
    assert lexicon.translate(["gehalt", "tag", "tage"], "de", "en") == ["salary", "pay", "day", "tag", "days"]


def test_missing_list_turns_cross_lingual_search_off(tmp_path):
    assert load_lexicon(str(tmp_path / "absent")) is None
    assert load_lexicon("") is None


def test_the_installed_debian_list_translates_a_question(tmp_path):
    """Read from the installed list's lines that hold the question's words, as the whole list gives them; the
    whole list (seconds to read) is read by the session's searcher in the tests against the services."""
    path = SearchConfig().lexicon
    assert Path(path).is_file(), f"{path} missing: scripts/bootstrap.sh installs the Debian package trans-de-en"
    with open(path, encoding="utf-8") as installed:
        lines = [line for line in installed if any(word in line.lower() for word in INSTALLED_LIST_WORDS)]
    (tmp_path / "de-en").write_text("".join(lines), encoding="utf-8")
    lexicon = load_lexicon(str(tmp_path / "de-en"))
    words = lexicon.translate(["gehalt", "weiterbildungsbudget", "reisekosten"], "de", "en")
    assert {"salary", "education", "budget", "travel", "expenses"} <= set(words)
    assert "page" in lexicon.translate(["seite"], "de", "en")  # "page /p./": the list's own abbreviation


def test_a_variant_of_a_sense_taken_gives_way_to_the_next_sense():
    lexicon = Lexicon({("de", "en"): {"urlaub": ["leave", "leave of absence", "vacation"]}, ("en", "de"): {}})
    assert lexicon.translate(["urlaub"], "de", "en") == ["leave", "vacation"]


def test_a_translation_counts_only_where_the_corpus_holds_most_of_its_words():
    lexicon = Lexicon({("en", "de"): {"budget": ["haushaltsplan", "die ausgaben planen"]},
                       ("de", "en"): {"weiterbildungsbudget": ["further education budget"]}})
    assert lexicon.translate(["budget"], "en", "de", held={"die", "planen"}) == []  # "planen" is no budget
    assert lexicon.translate(["weiterbildungsbudget"], "de", "en", held={"education", "budget"}) == [
        "education", "budget"]


def test_a_compound_splits_into_the_words_the_list_knows(lexicon):
    """The head as the list has it and as the compound writes it; none for English or unknown parts."""
    assert lexicon.split_compound("Weiterbildungsbudget", "de", "en") == (
        "weiterbildung", "budget", "weiterbildung", "weiterbildung")
    assert lexicon.split_compound("lerntage", "de", "en") == ("lernen", "tage", "lern", "lernen")
    assert lexicon.split_compound("daybudget", "en", "de") is None
    assert lexicon.split_compound("suppenkasper", "de", "en") is None


def test_a_combining_form_is_searched_as_the_noun_it_joins(tmp_path):
    """Ding lists combining forms ("Gehalts-"); their senses suit compounds, but pages write "Gehalt"."""
    path = tmp_path / "de-en"
    path.write_text(DING_SAMPLE + "Gehalts- :: salary\n", encoding="utf-8")
    assert Lexicon.from_ding(path).split_compound("Gehaltsrunde", "de", "en") == ("gehalts", "runde", "gehalts",
                                                                                   "gehalt")
