"""Acronym definitions in prose and glossary rows (Schwartz & Hearst's letter match)."""
from __future__ import annotations

import pytest

from text.acronyms import (MAX_ACRONYMS, cell_definition, defined_acronym, definitions, is_acronym, keyword,
                           question_acronyms)


@pytest.mark.parametrize("word, shaped", [("IC", True), ("fTPM", True), ("eAU", True), ("UEFI", True),
                                          ("A1", False), ("Ic", False), ("it", False), ("RB-7", False),
                                          ("ABCDEFGHIJK", False)])
def test_an_acronym_is_a_short_word_with_two_capitals(word, shaped):
    assert is_acronym(word) is shaped


def test_prose_defines_an_acronym_after_its_long_form_or_before_it():
    text = ("The Incident Commander (IC) runs the call. The RTO (recovery time objective) is four hours, "
            "and the Betriebsrat (BR) signs off.")
    assert definitions(text) == [("IC", "Incident Commander"), ("RTO", "recovery time objective"),
                                 ("BR", "Betriebsrat")]


def test_a_long_form_stays_within_its_clause_and_ends_with_the_last_letter():
    # "Table 1: Method is Authenticator app (TOTP)" holds the letters, but across the colon and in no order a
    # reader would call a definition.
    assert definitions("Table 1: Method is Authenticator app (TOTP)") == []
    assert definitions("Every Hardware security module (HSM), however old.") == [("HSM", "Hardware security module")]


@pytest.mark.parametrize("text", ["Ask Merle Dahlberg (HR) first.", "The Next board (NX) ships in May.",
                                  "Restart the buoys (see below).", "The modem (LTE-M) is on."])
def test_a_parenthesis_that_defines_nothing_gives_nothing(text):
    assert definitions(text) == []


@pytest.mark.parametrize("name, meaning, long", [
    ("PCR", "Platform Configuration Register of a TPM", "Platform Configuration Register"),
    ("fTPM", "Firmware TPM: a TPM 2.0 implemented in the CPU firmware", "Firmware TPM"),
    ("OTA", "Over-the-air (update)", "Over-the-air"),
    ("HVX", "Talvik's hypervisor product (originally hypervisor, extended)", ""),
    ("AU / eAU", "Arbeitsunfähigkeitsbescheinigung", ""),
    ("NX", "Next generation board", ""),
])
def test_a_glossary_row_defines_its_acronym_when_the_next_cell_starts_with_the_long_form(name, meaning, long):
    assert cell_definition(name, meaning) == long


def test_the_index_keeps_a_definition_as_one_keyword():
    assert keyword("IC", "Incident Commander") == "IC = Incident Commander"


def test_the_acronyms_of_a_question_are_its_acronym_shaped_words_as_written():
    assert question_acronyms("IC? And who was IC during the SEV-2 on the fTPM boards, is it OK?") == ["IC", "fTPM", "OK"]
    assert question_acronyms("who owns it?") == []  # "it" is a word, not IT


def test_a_line_of_capitals_asks_about_its_first_few_acronyms_only():
    pasted = " ".join(f"ERR{n}X" for n in range(50))
    assert question_acronyms(pasted) == [f"ERR{n}X" for n in range(MAX_ACRONYMS)]


def test_the_acronym_of_a_stored_definition_is_what_precedes_the_separator():
    assert defined_acronym(keyword("IC", "Incident Commander")) == "IC"
    assert defined_acronym(keyword("fTPM", "Firmware TPM = on-chip")) == "fTPM"
