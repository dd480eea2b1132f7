"""The search box's syntax: "exact phrases" required, -words and -"phrases" excluded, everything else as typed."""
from __future__ import annotations

import pytest

from search.syntax import Syntax, read_syntax


@pytest.mark.parametrize("typed, read", [
    ('"signing certificate" expiry', Syntax("signing certificate expiry", ("signing certificate",))),
    ("certificate -signing -“code signing”", Syntax("certificate", (), ("signing", "code signing"))),
    ("Was sagt „Elements of Record Theory“ zu Integrity?",
     Syntax("Was sagt Elements of Record Theory zu Integrity?", ("Elements of Record Theory",))),
    ('meeting notes -draft -Entwurf "  weekly   sync "', Syntax("meeting notes weekly sync", ("weekly sync",),
                                                               ("draft", "Entwurf"))),
    ('"a -b" c', Syntax("a -b c", ("a -b",))),  # a minus inside quotes is the phrase's
    ('"same" and "same"', Syntax("same and same", ("same",))),
])
def test_phrases_are_required_and_minus_words_excluded(typed, read):
    assert read_syntax(typed) == read


@pytest.mark.parametrize("typed", [
    "How do I lease an E-Bike?", "Wer hat den 4.1.2-Bericht bearbeitet?", "What to do below -20 °C?",
    "Zwischen den Jahren ist ja zu - muss ich Urlaub nehmen?", 'a 5" display and a 7" one', 'an "open quote',
    'empty "" quotes', "C++ or C# -",
])
def test_a_question_without_that_syntax_is_searched_as_typed(typed):
    read = read_syntax(typed)
    assert not read.asks_more and read.text == " ".join(typed.split())


def test_the_warning_names_a_few_phrases_and_counts_the_rest():
    assert read_syntax('"a b" x').unheld() == "no page holds “a b” as written; showing results without requiring it"
    many = read_syntax(" ".join(f'"p{n} q"' for n in range(7)))
    assert many.unheld().startswith("no page holds “p0 q”, “p1 q”, “p2 q” and 4 more phrases as written")


def test_the_filters_ask_the_phrases_unless_told_not_to():
    read = read_syntax('"rotate the key" -staging')
    assert read.filters() == {"phrases": ["rotate the key"], "excluded": ["staging"]}
    assert read.filters(phrases=False) == {"phrases": [], "excluded": ["staging"]}
    assert read_syntax("-staging").text == ""  # nothing left to search: the API refuses it, a search takes it as typed
