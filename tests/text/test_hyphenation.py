"""Words broken at a line end: joined, real hyphens kept, suspended hyphens kept with their space."""
import pytest

from text.hyphenation import dehyphenate, join_line, join_lines, vocabulary


@pytest.mark.parametrize("left, right, joined", [
    ("an excep-", "tion to the rule", "an exception to the rule"),
    ("Baden-", "Württemberg", "Baden-Württemberg"),  # a real hyphen before a capital
    ("Windows-", "11 clients", "Windows-11 clients"),
    ("Fach-", "und Führungskräfte", "Fach- und Führungskräfte"),  # a word part left out
    ("Vor-", "bzw. Nachteile", "Vor- bzw. Nachteile"),
    ("Urlaubs\u00ad", "anträge", "Urlaubsanträge"),  # a soft hyphen always continues the word
    ("a sentence", "goes on", "a sentence goes on"),
    ("a dash -", "and more", "a dash - and more"),
    ("text", "", "text"),
])
def test_join_line(left, right, joined):
    assert join_line(left, right) == joined


def test_a_word_the_document_writes_with_a_hyphen_keeps_it():
    words = vocabulary(["Send an e-mail to the desk.", "Use the well-known form, not the wellknown one."])
    assert {"e-mail", "well-known", "wellknown"} <= words
    assert join_line("Write an e-", "mail today", words) == "Write an e-mail today"
    # written both ways in the document: the hyphen was the line break's
    assert join_line("the well-", "known form", words) == "the wellknown form"
    assert join_lines([" Write an e-", "mail ", "", "today "], words) == "Write an e-mail today"


def test_dehyphenate_joins_only_line_end_breaks():
    text = "A journal en-\ntry records one e-\nmail per e-mail address.\nFach-\n und Führungskräfte\n\nNew-\n\nline"
    assert dehyphenate(text) == ("A journal entry records one e-mail per e-mail address.\n"
                                 "Fach- und Führungskräfte\n\nNew-\n\nline")
