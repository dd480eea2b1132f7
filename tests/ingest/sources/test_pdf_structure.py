"""PDF structure: headings and their levels, lists (text layer and OCR)."""
from __future__ import annotations

from tests.ingest.sources.pdf_helpers import of_kind


def test_bullet_list_is_one_block(structured):
    lists = of_kind(structured, "list")
    assert len(lists) == 1
    assert lists[0].heading_path == ["1 Purpose", "1.2 Principles"]
    assert lists[0].text.split("\n") == [
        "- Travel only when a meeting cannot take place online.",
        "- Choose the most economical option that is reasonable for the purpose of the trip.",
        "- Book through the travel portal Wayfarer.",
    ]
    before_after = [b.text for b in structured.blocks if b.page == 1 and b.kind == "passage"]
    assert "Three principles guide every trip:" in before_after
    assert "Exceptions to these principles are decided by the head of unit." in before_after


def test_sample_manual_chapters_and_sections_are_headings(manual):
    chapters = {b.heading_path[0] for b in manual.blocks if b.heading_path}
    assert chapters == {"1 Safety and preparation", "2 Sensor maintenance", "3 Batteries and returns"}
    sections = {tuple(b.heading_path) for b in manual.blocks if len(b.heading_path) == 2}
    assert ("2 Sensor maintenance", "2.2 Salinity probe calibration") in sections
    assert len(sections) == 8


def test_sample_manual_lists(manual):
    lists = {b.page: b.text.split("\n") for b in of_kind(manual, "list")}
    assert sorted(lists) == [1, 3]
    assert [len(lists[p]) for p in (1, 3)] == [3, 3]
    assert lists[1][0] == "- the magnetic service key and the service tablet with the current app"


def test_scanned_copy_structure(scanned):
    assert scanned.document.title == "TideSense Field Service Manual"
    paths = {tuple(b.heading_path[-1:]) for b in scanned.blocks if b.kind != "pdf_page"}
    assert {("1.1 Service mode",), ("2.2 Salinity probe calibration",), ("3.2 Returning a unit",)} <= paths
    lists = of_kind(scanned, "list", 3)
    assert lists and lists[0].text.startswith("- close the hull and check both seals")
