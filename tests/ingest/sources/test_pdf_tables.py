"""PDF ruled tables: verbalized, with their rows, and kept out of the passages."""
from __future__ import annotations

from tests.ingest.sources.pdf_helpers import builders, of_kind, parse


def test_table_is_verbalized_and_kept_out_of_passages(structured):
    tables = of_kind(structured, "table")
    assert len(tables) == 1
    table = tables[0]
    assert table.page == 2 and table.heading_path == ["2 Limits"]
    assert table.meta == {"table_no": 1, "rows": 3}
    assert table.text.startswith("Table 1 columns: Expense, Limit, Approval.")
    rows = of_kind(structured, "table_row")
    assert [r.meta for r in rows] == [{"table_no": 1, "row_no": n} for n in (1, 2, 3)]
    assert rows[0].text == "Row 1 in Table 1: Expense is Hotel night, and Limit is EUR 140, and Approval is Team lead"
    for block in of_kind(structured, "passage"):
        assert "Hotel night" not in block.text and "Head of unit" not in block.text
    # reading order: intro passage, table, rows, the note after the table
    page2 = [b.kind for b in structured.blocks if b.page == 2]
    assert page2 == ["pdf_page", "passage", "table", "table_row", "table_row", "table_row", "passage", "passage"]


def test_cells_that_wrap_stay_one_value_and_the_caption_a_passage():
    parsed = parse(builders.wrapped_table_pdf(), "benefits.pdf")
    table = of_kind(parsed, "table")[0]
    assert table.heading_path == ["4 Pay and Benefits"]
    assert table.text.startswith("Table 1 columns: Benefit, Germany, USA.")
    rows = of_kind(parsed, "table_row")
    assert [r.text for r in rows] == [
        "Row 1 in Table 1: Benefit is Company pension, and Germany is Employer adds 20 % to every conversion, "
        "and USA is 401(k) plan with an employer match of up to 4 % of salary",
        "Row 2 in Table 1: Benefit is Lunch, and Germany is Meal vouchers, and USA is Team lunch every Friday"]
    passages = [b.text for b in of_kind(parsed, "passage")]
    assert passages == ["The main benefits differ by country:", "Table 1: Main benefits by country, as of January."]
