"""PDF structure: headings and their levels, lists (text layer and OCR)."""
from __future__ import annotations

import re

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


def test_handbook_chapters_are_headings(handbook):
    chapters = {b.heading_path[0] for b in handbook.blocks if b.heading_path}
    assert chapters == {"Contents", "1 Welcome", "2 Working Time", "3 Leave and Absence", "4 Pay and Benefits",
                        "5 Learning and Development", "6 Conduct and Ethics", "7 Information Security Basics",
                        "8 Leaving Talvik"}
    sections = {tuple(b.heading_path) for b in handbook.blocks if len(b.heading_path) == 2}
    assert ("2 Working Time", "2.3 Time account and overtime") in sections
    assert ("4 Pay and Benefits", "4.2 Benefits by country") in sections
    overtime = next(b for b in handbook.blocks if b.heading_path[-1:] == ["2.3 Time account and overtime"])
    assert overtime.page == 4


def test_handbook_lists(handbook):
    lists = {b.page: b.text.split("\n") for b in of_kind(handbook, "list")}
    assert sorted(lists) == [3, 10, 11]
    assert [len(lists[p]) for p in (3, 10, 11)] == [4, 4, 6]
    assert lists[3][0] == ("- Reliability. Our products run machines; we would rather ship late than ship "
                           "something we do not trust.")
    assert lists[11][-1] == "- documents and data carriers that contain company information"


def test_scanned_bench_pdf_structure(scanned):
    assert scanned.document.title == "Information Security Guidelines"
    for block in scanned.blocks:
        assert not re.search(r"Page \d of 3", block.text)
    paths = {tuple(b.heading_path[-1:]) for b in scanned.blocks if b.kind != "pdf_page"}
    assert ("3 Passwords and authentication",) in paths
    assert ("5 Travel",) in paths
    lists = of_kind(scanned, "list", 1)
    assert lists and lists[0].text.startswith("- Public: approved for publication")
