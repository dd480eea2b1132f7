"""Table verbalization (RAGONITE style): exact strings for the table shapes of the bench, and the blocks."""
from ingest.tables import Cell, expand_spans, table_blocks
from ingest.tables import verbalize as numbered_verbalize


def verbalize(rows, table_no):
    """The table's text and its row texts (without their numbers)."""
    text, numbered = numbered_verbalize(rows, table_no)
    return text, [row for _, row in numbered]


def H(text, rowspan=1, colspan=1):
    return Cell(text, header=True, rowspan=rowspan, colspan=colspan)


def D(text, rowspan=1, colspan=1):
    return Cell(text, header=False, rowspan=rowspan, colspan=colspan)


def test_one_header_row():
    table, rows = verbalize([[H("Machine"), H("BIOS")], [D("X"), D("Y")], [D("Z"), D("W")]], 1)
    assert rows == ["Row 1 in Table 1: Machine is X, and BIOS is Y", "Row 2 in Table 1: Machine is Z, and BIOS is W"]
    assert table == ("Table 1 columns: Machine, BIOS. Row 1 in Table 1: Machine is X, and BIOS is Y. "
                     "Row 2 in Table 1: Machine is Z, and BIOS is W.")


def test_table_number_is_used():
    _, rows = verbalize([[H("Machine"), H("BIOS")], [D("A"), D("B")], [D("X"), D("Y")]], 3)
    assert rows[1] == "Row 2 in Table 3: Machine is X, and BIOS is Y"


def test_two_row_header_with_rowspan_and_colspan():
    # the release test reports 4.1.2 / 4.2: "Boot test result" spans Legacy and UEFI
    rows = [
        [H("Machine model", rowspan=2), H("BIOS version", rowspan=2), H("Boot test result", colspan=2)],
        [H("Legacy (CSM)"), H("UEFI")],
        [D("Orbis EdgeBox E3"), D("E3.26"), D("PASS"), D("FAIL")],
    ]
    table, texts = verbalize(rows, 1)
    assert texts == ["Row 1 in Table 1: Machine model is Orbis EdgeBox E3, and BIOS version is E3.26, "
                     "and Boot test result Legacy (CSM) is PASS, and Boot test result UEFI is FAIL"]
    assert table.startswith("Table 1 columns: Machine model, BIOS version, Boot test result Legacy (CSM), "
                            "Boot test result UEFI. Row 1")


def test_header_column_with_two_row_header():
    # the escalation matrix: spans in the header and a header column naming each row
    rows = [
        [H("Severity", rowspan=2), H("Response time", rowspan=2), H("Escalation", colspan=2)],
        [H("Level 1"), H("Level 2")],
        [H("SEV-1"), D("15 minutes"), D("SRE lead"), D("CTO")],
        [H("SEV-4"), D("2 business days"), D("\u2014"), D("")],
    ]
    _, texts = verbalize(rows, 1)
    assert texts == [
        "Row 1 in Table 1: Severity is SEV-1, and Response time is 15 minutes, and Escalation Level 1 is SRE lead, "
        "and Escalation Level 2 is CTO",
        "Row 2 in Table 1: Severity is SEV-4, and Response time is 2 business days, and Escalation Level 1 is \u2014",
    ]


def test_header_column_without_header_row():
    # the postmortem summary: label | value
    rows = [[H("Date"), D("2025-02-07")], [H("Severity"), D("SEV-2")], [H("Team"), D("SRE"), D("QA")]]
    table, texts = verbalize(rows, 1)
    assert texts == ["Row 1 in Table 1: Date is 2025-02-07", "Row 2 in Table 1: Severity is SEV-2",
                     "Row 3 in Table 1: Team is SRE, QA"]
    assert table == ("Row 1 in Table 1: Date is 2025-02-07. Row 2 in Table 1: Severity is SEV-2. "
                     "Row 3 in Table 1: Team is SRE, QA.")


def test_header_column_with_blank_corner():
    # office locations: the first header row starts with an empty corner cell
    rows = [
        [H(""), H("Karlsruhe (HQ)"), H("Dresden")],
        [H("Main phone"), D("+49 721 5550 1000"), D("+49 351 5550 2000")],
        [H("Parking"), D(""), D("Public car park")],
    ]
    table, texts = verbalize(rows, 2)
    assert texts == [
        "Row 1 in Table 2: Main phone: Karlsruhe (HQ) is +49 721 5550 1000, and Dresden is +49 351 5550 2000",
        "Row 2 in Table 2: Parking: Dresden is Public car park",
    ]
    assert table.startswith("Table 2 columns: Karlsruhe (HQ), Dresden. Row 1 in Table 2: Main phone: ")


def test_blank_non_header_corner_still_makes_a_header_row():
    rows = [[D(""), H("Q1"), H("Q2")], [H("Revenue"), D("10"), D("12")]]
    _, texts = verbalize(rows, 1)
    assert texts == ["Row 1 in Table 1: Revenue: Q1 is 10, and Q2 is 12"]


def test_rowspan_in_body_repeats_the_value_in_each_row():
    rows = [
        [H("Time"), H("Event"), H("Who")],
        [D("06:00"), D("Certificate expires."), D("\u2014", rowspan=2)],
        [D("06:10"), D("Jobs fail.")],
    ]
    table, texts = verbalize(rows, 1)
    assert texts == [
        "Row 1 in Table 1: Time is 06:00, and Event is Certificate expires., and Who is \u2014",
        "Row 2 in Table 1: Time is 06:10, and Event is Jobs fail., and Who is \u2014",
    ]
    assert table.endswith("Row 2 in Table 1: Time is 06:10, and Event is Jobs fail., and Who is \u2014.")


def test_empty_cells_are_left_out_and_a_sentence_keeps_one_period():
    rows = [[H("Ticket"), H("Workaround"), H("State")], [D("HVX-1"), D("Reboot."), D("")]]
    table, texts = verbalize(rows, 1)
    assert texts == ["Row 1 in Table 1: Ticket is HVX-1, and Workaround is Reboot."]
    assert table == ("Table 1 columns: Ticket, Workaround, State. "
                     "Row 1 in Table 1: Ticket is HVX-1, and Workaround is Reboot.")


def test_no_header_at_all():
    _, texts = verbalize([[D("a"), D("b")], [D("c"), D("")]], 1)
    assert texts == ["Row 1 in Table 1: a, and b", "Row 2 in Table 1: c"]


def test_colspan_in_body_counts_once():
    rows = [[H("A"), H("B"), H("C")], [D("merged", colspan=2), D("z")]]
    _, texts = verbalize(rows, 1)
    assert texts == ["Row 1 in Table 1: A is merged, and C is z"]


def test_expand_spans_fills_the_grid():
    a, b, c = D("a", rowspan=2), D("b", colspan=2), D("c")
    matrix = expand_spans([[a, b], [c]])
    assert matrix == [[a, b, b], [a, c, None]]


def test_empty_table():
    assert verbalize([], 1) == ("", [])
    assert table_blocks([], 1, ["Heading"]) == []


def test_rows_keep_their_numbers_when_a_row_is_empty():
    rows = [[H("Model"), H("Firmware")], [D("S3"), D("3.2.1")], [D(""), D("")], [D("M1"), D("1.0")]]
    _, numbered = numbered_verbalize(rows, 2)
    assert numbered == [(1, "Row 1 in Table 2: Model is S3, and Firmware is 3.2.1"),
                        (3, "Row 3 in Table 2: Model is M1, and Firmware is 1.0")]


def test_table_blocks():
    rows = [[H("Model"), H("Firmware")], [D("S3"), D("3.2.1")], [D(""), D("")], [D("M1"), D("1.0")]]
    table, *row_blocks = table_blocks(rows, 2, ["Devices"], page=4, meta={"ocr": True})
    assert (table.kind, table.heading_path, table.page) == ("table", ["Devices"], 4)
    assert table.text.startswith("Table 2 columns: Model, Firmware. Row 1 in Table 2")
    assert table.meta == {"table_no": 2, "rows": 2, "ocr": True}
    assert [(b.kind, b.text[:15], b.meta) for b in row_blocks] == [
        ("table_row", "Row 1 in Table ", {"table_no": 2, "row_no": 1, "ocr": True}),
        ("table_row", "Row 3 in Table ", {"table_no": 2, "row_no": 3, "ocr": True})]
    assert row_blocks[0].heading_path is not table.heading_path
