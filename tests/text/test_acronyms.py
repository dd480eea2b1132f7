"""Acronym definitions in prose and glossary rows (Schwartz & Hearst's letter match)."""
from __future__ import annotations

import pytest

from text.acronyms import cell_definition, definitions, is_acronym, keyword


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
