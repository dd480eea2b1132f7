"""Page signatures: a copy keeps its page's signature, a lightly edited copy stays within the collapse threshold,
a template filled in for another release and a translation land outside it."""
from __future__ import annotations

import random

import pytest

from core.settings import SearchConfig
from text.simhash import MIN_SIGNATURE_WORDS, SIGNATURE_BITS, page_signature, signature_distance

THRESHOLD = SearchConfig().near_duplicate_bits

HANDBOOK = [
    "New engineers receive a laptop, a security badge and a desk in the harbour office on their first morning.",
    "The badge opens the main entrance, the lab on the second floor and the bicycle cellar behind the loading dock.",
    "Before touching any buoy hardware, complete the electrical safety briefing with the workshop supervisor.",
    "The briefing takes about forty minutes and ends with a short quiz that the supervisor signs off on paper.",
    "Source code lives in the internal Git server; request access through the service desk with your manager in copy.",
    "Every repository has a README that names its owner, its build command and the channel where questions go.",
    "Builds run on the shared CI cluster, which keeps artefacts for thirty days before cleaning them up.",
    "Firmware releases follow a fixed train: a branch is cut on Monday, tested for a week and shipped on Thursday.",
    "Hotfixes skip the train only when the on-call engineer and the release manager both approve them in writing.",
    "Field trips to the test buoys in the outer harbour are booked in the boat calendar at least two days ahead.",
    "Life jackets are mandatory on the boat, and the skipper may cancel a trip when the wind exceeds six Beaufort.",
    "Sensor data from the buoys arrives every ten minutes and is stored in the telemetry warehouse for five years.",
    "Dashboards for salinity, temperature and battery voltage are linked from the operations space home page.",
    "Alarms page the on-call engineer through the paging app; acknowledge within fifteen minutes or it escalates.",
    "Expense claims for travel, tools and training are filed in the finance portal before the end of each month.",
    "Receipts must be photographed in full, including the date and the merchant's tax number, or finance returns them.",
    "Holidays are requested in the HR portal; the team lead approves them, usually within two working days.",
    "Sick days are reported by phone to the team lead before nine o'clock, and a certificate follows after three days.",
    "The canteen serves lunch between half past eleven and two, with a vegetarian dish every day of the week.",
    "Coffee is free, but the machine on the third floor is descaled on Fridays and stays off for an hour.",
    "Visitors sign in at reception, wear a visitor badge and are accompanied by their host at all times.",
    "Confidential documents are shredded in the locked bins next to each printer, never thrown into the paper waste.",
    "Questions about anything in this handbook go to the people team, who answer within one working day.",
    "The handbook is reviewed every spring; suggestions for changes are welcome at any time of the year.",
]


# A long page (about 1,600 words): the handbook, then 1,200 words drawn from its vocabulary. The signature sees
# word triples, not meaning, so drawn words stand in for more of the same prose.
_VOCABULARY = sorted({w.strip(".,;'") for w in " ".join(HANDBOOK).lower().split()})
_RNG = random.Random(14)
LONG_TAIL = " ".join(_RNG.choice(_VOCABULARY) for _ in range(1200))


def release_report(version: str, day: str, figures: list[int], manager: str) -> str:
    """A release test report as a wiki template fills it in: the same headings and sentences, another
    version, date, people and numbers."""
    passed, failed, blocked, skipped, bugs, critical, hours, hosts = figures
    return "\n".join([
        f"HVX {version} release test report, signed off on {day} by {manager}.",
        f"Scope: regression, upgrade and performance suites for HVX {version} on {hosts} hosts.",
        "Summary",
        f"Of {passed + failed + blocked + skipped} test cases, {passed} passed, {failed} failed, {blocked} were "
        f"blocked and {skipped} were skipped.",
        f"{bugs} new bugs were filed, {critical} of them critical; testing took {hours} hours in total.",
        "Suite | Passed | Failed | Blocked",
        f"Regression | {passed - 40} | {failed - 2} | {blocked}",
        f"Upgrade | 25 | {failed - (failed - 2)} | 0",
        f"Performance | 15 | 0 | {skipped}",
        "Known issues",
        f"See the release notes of HVX {version} for the known issues and their workarounds.",
        "Sign-off",
        f"Release manager: {manager}. QA lead: Pavla Horakova. Date: {day}.",
    ])


ENGLISH = ("Travel expenses are reimbursed when the trip was approved by the team lead in advance. Train tickets "
           "in second class are always covered; flights only when the train takes more than six hours. Hotel costs "
           "are covered up to one hundred and twenty euros a night. Meals are paid as a daily allowance, and "
           "receipts are uploaded to the finance portal within four weeks of the trip.")
GERMAN = ("Reisekosten werden erstattet, wenn die Reise vorab von der Teamleitung genehmigt wurde. Bahnfahrkarten "
          "in der zweiten Klasse werden immer übernommen; Flüge nur, wenn die Bahnfahrt länger als sechs Stunden "
          "dauert. Hotelkosten werden bis zu einhundertzwanzig Euro pro Nacht übernommen. Verpflegung wird als "
          "Tagespauschale gezahlt, und Belege werden innerhalb von vier Wochen nach der Reise im Finanzportal "
          "hochgeladen.")


def test_a_copy_has_the_same_signature():
    text = " ".join(HANDBOOK)
    assert page_signature(text) == page_signature(text)
    assert len(page_signature(text)) == 16


def test_one_sentence_changed_in_a_long_page_stays_within_the_threshold():
    edited = list(HANDBOOK)
    edited[10] = "Life jackets are mandatory on the boat, and the skipper decides on the day whether the trip goes."
    distance = signature_distance(page_signature(" ".join([*HANDBOOK, LONG_TAIL])),
                                  page_signature(" ".join([*edited, LONG_TAIL])))
    assert distance <= THRESHOLD


def test_a_release_report_of_another_version_is_outside_the_threshold():
    old = release_report("4.0", "2024-03-12", [412, 9, 3, 6, 14, 2, 96, 12], "Jonas Weber")
    new = release_report("4.1", "2024-09-16", [437, 5, 1, 4, 8, 1, 88, 16], "Henrike Vogelsang")
    assert signature_distance(page_signature(old), page_signature(new)) > THRESHOLD


def test_a_translation_is_outside_the_threshold():
    assert signature_distance(page_signature(ENGLISH), page_signature(GERMAN)) > THRESHOLD


def test_a_short_page_has_no_signature():
    assert page_signature("Knowledge Base. Start here.") == ""
    assert page_signature(" ".join(["word"] * MIN_SIGNATURE_WORDS))


def test_a_signature_that_is_not_hex_is_refused_by_name():
    with pytest.raises(ValueError, match="'not-a-hash' is not a hexadecimal SimHash"):
        signature_distance("not-a-hash", page_signature(ENGLISH))


def test_a_page_repeating_one_row_thousands_of_times_gets_a_signature():
    rows = "\n".join(f"host web order status pending row {n}" for n in range(5000))
    assert len(page_signature(rows)) == SIGNATURE_BITS // 4
