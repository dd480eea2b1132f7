"""The spacy-lookups-data reader: tables, lemma values, part-of-speech lemma lists."""
from text.lookups import lemma_of, pos_lemmas, read_table, verb_lemmas


def test_read_table():
    assert read_table("de", "lemma_lookup")["Anträge"] == "Antrag"
    assert read_table("en", "lexeme_prob")["the"] < 0
    assert read_table("xx", "lemma_lookup") == {}
    assert read_table("en", "no_such_table") == {}


def test_lemma_of_a_table_value():
    assert lemma_of("Antrag") == "Antrag"
    assert lemma_of(["ser", "ir"]) == "ser"
    assert lemma_of([]) is None and lemma_of("") is None and lemma_of(None) is None


def test_part_of_speech_lemmas():
    assert "report" in pos_lemmas("en", "noun") and "create" in pos_lemmas("EN", "verb")
    assert pos_lemmas("de", "noun") == frozenset()  # no POS index for German
    assert "create" in verb_lemmas("en") and "report" not in verb_lemmas("en")
