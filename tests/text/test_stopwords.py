"""Stop words of a language and the content-word rule."""
import pytest

from text.lemmas import Lemmatizer, Token
from text.stopwords import content_words, is_stop, stopwords, without_analyzer_stop_words, without_pronoun_i


def test_stopwords():
    assert {"the", "and", "be"} <= stopwords("en")
    assert {"und", "der", "sein", "werden"} <= stopwords("de")
    assert {"de", "la", "ser"} <= stopwords("es-ES")
    assert stopwords("xx") == frozenset() and stopwords("") == frozenset() and stopwords("e1") == frozenset()
    assert "report" not in stopwords("en")


def test_is_stop_by_surface_or_lemma():
    assert is_stop(Token("were", "be", "word"), "en")
    assert is_stop(Token("The", "the", "word"), "en")
    assert not is_stop(Token("report", "report", "word"), "en")
    assert is_stop(Token("report", "report", "word"), "en", stop=frozenset({"report"}))


@pytest.mark.parametrize("word", ["Für", "Eigene", "Sie", "Ihr", "Die", "Meine", "Beispiel"])
def test_capitalized_german_stop_words_stay_stop_words(word):
    assert is_stop(Token(word, word.lower(), "word"), "de")


def test_content_words():
    tokens = Lemmatizer().analyze("An welchem Tag wird das Gehalt überwiesen? Sie erhalten es am Ende.", "de")
    assert [t.text for t in content_words(tokens, "de")] == ["Gehalt", "überwiesen", "erhalten"]
    en = Lemmatizer().analyze("How do I reset the VPN token?", "en")
    assert [t.lemma for t in content_words(en, "en")] == ["reset", "vpn", "token"]


def test_the_english_analyzers_stop_words_are_dropped_and_the_rest_kept_as_written():
    assert without_analyzer_stop_words("Was the HVX-4.1 boot failure (in E3) fixed?", "en") == \
        "HVX-4.1 boot failure E3) fixed?"
    assert without_analyzer_stop_words("Who last edited it?", "en") == "Who last edited"  # "last" is content
    assert without_analyzer_stop_words("to be or not to be", "en") == "to be or not to be"  # nothing else left
    assert without_analyzer_stop_words("Wer hat die Seite geändert?", "de") == "Wer hat die Seite geändert?"


def test_the_pronoun_i_is_left_out_and_a_titles_numeral_kept():
    assert without_pronoun_i("I start on Monday – what do I need?") == "start on Monday – what do need?"
    assert without_pronoun_i("When I leave Talvik, can I keep it?") == "When leave Talvik, can keep it?"
    assert without_pronoun_i("What is in Part I of the records?") == "What is in Part I of the records?"
    assert without_pronoun_i("I") == "I"  # nothing else left
