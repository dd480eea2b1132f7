"""The text searched with the long forms of the question's acronyms (no services)."""
from __future__ import annotations

from search.acronyms import expanded


def test_each_acronym_is_searched_beside_its_long_form_and_a_level_or_code_is_left_alone():
    searched = expanded("IC? Was the IC paged for the SEV-2?", {"IC": "Incident Commander", "SEV": "Severity level"})
    assert searched == "IC Incident Commander? Was the IC Incident Commander paged for the SEV-2?"
