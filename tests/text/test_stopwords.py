"""Stop words of a language and the content-word rule."""
import pytest

from text.lemmas import Lemmatizer, Token
from text.stopwords import content_words, is_stop, stopwords


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
