"""The question's acronyms, and the text searched with their long forms (no services)."""
from __future__ import annotations

from search.acronyms import MAX_ACRONYMS, expanded, question_acronyms


def test_the_acronyms_of_a_question_are_its_acronym_shaped_words_as_written():
    assert question_acronyms("IC? And who was IC during the SEV-2 on the fTPM boards, is it OK?") == ["IC", "fTPM", "OK"]
    assert question_acronyms("who owns it?") == []  # "it" is a word, not IT


def test_a_line_of_capitals_asks_about_its_first_few_acronyms_only():
    pasted = " ".join(f"ERR{n}X" for n in range(50))
    assert question_acronyms(pasted) == [f"ERR{n}X" for n in range(MAX_ACRONYMS)]


def test_each_acronym_is_searched_beside_its_long_form_and_a_level_or_code_is_left_alone():
    searched = expanded("IC? Was the IC paged for the SEV-2?", {"IC": "Incident Commander", "SEV": "Severity level"})
    assert searched == "IC Incident Commander? Was the IC Incident Commander paged for the SEV-2?"
