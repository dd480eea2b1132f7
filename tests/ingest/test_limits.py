"""Hostile or careless files: refused or cut with a sentence naming the file and the reason, never a raw
exception, never silently emptied."""
from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from ingest import evidence as kinds
from ingest.blocks import ParseError
from ingest.config import IngestConfig
from ingest.assemble import NEIGHBOUR_CHARS
from ingest.index_records import parse_index_records
from ingest.limits import flatten_markup
from ingest.pipeline import MAX_TITLE_CHARS, evidence_for, parse_file
from ingest.sources import SourceFile
from ingest.tables import TABLE_EXPANSION, Cell, expand_spans, limit_table
from text.lemmas import Lemmatizer

DEEP = 100_000  # the depth of the hostile corpus's file, far beyond libxml2's 2,048 levels
DEEPER_THAN_WALKER = 1_000  # parsed by libxml2, but deeper than a recursive walk may go


def parse(name: str, data: bytes | str, config: IngestConfig | None = None, **file_args):
    data = data.encode("utf-8") if isinstance(data, str) else data
    return parse_file(SourceFile(name, data, **file_args), config or IngestConfig())


def page_json(body: str = "<p>Hello</p>", **fields) -> bytes:
    return json.dumps({"id": "42", "title": "T", "body": {"storage": {"value": body}}, **fields}).encode()


def nested(depth: int, tag: str = "div") -> str:
    return f"<p>start</p>{f'<{tag}>' * depth}deep text{f'</{tag}>' * depth}<p>end</p>"


def text_of(parsed) -> str:
    return "\n".join(b.text for b in parsed.blocks)


# ------------------------------------------------------------------ binary content named as text

def test_binary_garbage_named_html_is_refused_with_the_reason():
    rng = random.Random(7)
    garbage = bytes(rng.randrange(1, 256) for _ in range(20_000))  # no NUL byte in it
    with pytest.raises(ParseError) as refused:
        parse("site/garbage.html", garbage)
    assert str(refused.value).startswith("site/garbage.html: binary data (")
    assert str(refused.value).endswith("control bytes in its first 8,192 bytes; text has under 2%), not text; "
                                       "a file named .html must be an HTML page; skipped")


def test_binary_json_is_refused_even_when_it_starts_like_an_object():
    with pytest.raises(ParseError, match=r"^wiki/9\.json: binary data \(NUL bytes\)"):
        parse("wiki/9.json", b'{"id": "9"' + b"\x00\x01\x02" * 100)


def test_text_in_a_legacy_or_wide_encoding_is_not_mistaken_for_binary():
    latin1 = ('<html><head><meta charset="iso-8859-1"></head><body><p>Größe und Übermaß: ÄÖÜ ß</p></body></html>'
              .encode("latin-1"))
    assert "Größe und Übermaß" in text_of(parse("a.html", latin1))
    utf16 = "<html><body><p>Wide text here</p></body></html>".encode("utf-16")
    assert "Wide text here" in text_of(parse("b.html", utf16))


# ------------------------------------------------------------------ nesting depth

@pytest.mark.parametrize("depth", [DEEPER_THAN_WALKER, DEEP])
@pytest.mark.parametrize("tag", ["div", "span"])
def test_deep_html_keeps_its_text_and_says_it_was_flattened(depth: int, tag: str):
    parsed = parse("deep.html", f"<html><body>{nested(depth, tag)}</body></html>")
    assert text_of(parsed).split() == ["start", "deep", "text", "end"]
    [note] = parsed.errors
    assert note.startswith("deep.html: markup nested") and "flattened, their text kept" in note


@pytest.mark.parametrize("depth", [DEEPER_THAN_WALKER, DEEP])
def test_deep_confluence_storage_keeps_its_text_and_says_it_was_flattened(depth: int):
    parsed = parse("wiki/42.json", page_json(nested(depth)))
    assert text_of(parsed).split() == ["start", "deep", "text", "end"]
    [note] = parsed.errors
    assert note.startswith("wiki/42.json: storage format nested") and "flattened, their text kept" in note


def test_shallow_markup_is_not_flattened():
    parsed = parse("ok.html", "<html><body><div><ul><li>one<ul><li>two</li></ul></li></ul></div></body></html>")
    assert parsed.errors == [] and parsed.blocks[0].text == "- one\n  - two"


def test_deeply_nested_json_is_a_sentence_not_a_recursion_error():
    with pytest.raises(ParseError, match=r"^wiki/1\.json: JSON nested too deep to read .*; skipped$"):
        parse("wiki/1.json", b'{"a":' * DEEP + b"1" + b"}" * DEEP)


def test_flattening_drops_only_the_tags_below_the_depth():
    markup = "<div><p>a<p>b<section><span>deep</span></section></p><br><img src=x /></div></b>"
    flat, dropped = flatten_markup(markup, 2)
    # <p>b closes <p>a (as HTML parsers do), so <p>b is at level 2 and everything inside it is flattened;
    # void elements and the stray </b> open no level
    assert flat == "<div><p>a<p>b  deep  </p><br><img src=x /></div></b>"
    assert dropped == 4


# ------------------------------------------------------------------ tables

def test_immense_spans_cost_nothing_and_keep_the_cells():
    html = ("<table><tr><th>Name</th><th>Value</th></tr>"
            "<tr><td rowspan=1000000 colspan=1000000>x</td><td>y</td></tr></table>")
    parsed = parse("spans.html", html)
    assert parsed.errors == ["spans.html: table 1: 1 cell(s) span more than HTML allows (up to rowspan 1,000,000, "
                             "colspan 1,000,000); their spans were clipped to the table's 2 rows and 3 columns"]
    [row] = [b.text for b in parsed.blocks if b.kind == kinds.TABLE_ROW]
    assert row.startswith("Row 1 in Table 1: Name is x") and row.endswith("y")


def test_a_rowspan_is_capped_by_the_rows_below_it():
    rows, note = limit_table([[Cell("a", rowspan=500), Cell("b")], [Cell("c")]], 100, 1_000)
    assert note == "" and rows[0][0].rowspan == 2
    assert [[c.text for c in row] for row in expand_spans(rows)] == [["a", "b"], ["a", "c"]]


def test_a_table_over_the_cell_limit_is_cut_with_a_warning():
    body = "".join(f"<tr><td>r{i}</td><td>v{i}</td><td>w{i}</td></tr>" for i in range(20))
    html = f"<h2>Stock</h2><table><tr><th>A</th><th>B</th><th>C</th></tr>{body}</table>"
    parsed = parse("big/table.html", html, replace(IngestConfig(), max_table_cells=30))
    rows = [b.text for b in parsed.blocks if b.kind == kinds.TABLE_ROW]
    assert len(rows) == 9 and rows[-1].endswith("A is r8, and B is v8, and C is w8")  # 10 rows x 3 = 30 cells
    assert parsed.errors == ["big/table.html: table 1 under 'Stock': 21 rows of up to 3 columns are over the "
                             "limit of 30 cells (EVIDENT_INGEST_MAX_TABLE_CELLS); the first 10 rows were "
                             "indexed, 11 left out"]


# ------------------------------------------------------------------ big documents

def test_a_paragraph_over_libxml2s_ten_megabytes_is_cut_to_the_text_limit_not_emptied():
    sentence = "The printer on floor two needs a new toner cartridge. "
    giant = sentence * (11_000_000 // len(sentence))
    parsed = parse("giant.html", f"<html><body><p>{giant}</p><p>after it</p></body></html>")
    config = IngestConfig()
    assert text_of(parsed) == giant.strip()[:config.max_document_chars]
    assert parsed.errors == [f"giant.html: its text is {len(giant.strip()) + len('after it') + 1:,} characters, "
                             f"over the limit of {config.max_document_chars:,} "
                             f"(EVIDENT_INGEST_MAX_DOCUMENT_CHARS); partially indexed: the first "
                             f"{config.max_document_chars:,} characters, the rest left out"]


def test_evidence_per_document_are_capped_with_a_warning_and_the_page_facts_kept():
    paragraphs = "".join(f"<h2>Part {i}</h2><p>Section {i} explains topic {i}.</p>" for i in range(40))
    file = SourceFile("many.html", f"<html><body>{paragraphs}</body></html>".encode())
    config = replace(IngestConfig(), max_evidence_per_document=10)
    parsed, evidence = evidence_for(file, config, Lemmatizer())
    assert len(evidence) == 10 and evidence[-1].kind == kinds.PAGE_FACTS
    assert [e.text for e in evidence[:2]] == ["Section 0 explains topic 0.", "Section 1 explains topic 1."]
    [note] = parsed.errors
    assert note == ("many.html: the document makes 42 evidence, over the limit of 10 "
                    "(EVIDENT_INGEST_MAX_EVIDENCE_PER_DOCUMENT); partially indexed: the last 32 in reading order "
                    "(blocks, then sections and the whole page) were dropped")



def test_sentences_per_document_are_capped_in_reading_order_with_a_warning():
    paragraphs = "".join(f"<h2>Part {i}</h2><p>Section {i} explains topic {i}.</p>" for i in range(40))
    file = SourceFile("many.html", f"<html><body>{paragraphs}</body></html>".encode())
    parsed, evidence = evidence_for(file, replace(IngestConfig(), max_sentences_per_document=5), Lemmatizer())
    embedded = [s for e in evidence for s in e.sentences]
    assert embedded == [f"many: Section {i} explains topic {i}." for i in range(5)]
    assert len(evidence) == 40 + 1 + 1  # every evidence is still indexed: only the sentence view stops
    [note] = parsed.errors
    assert note.startswith("many.html: the document has 40 sentences, over the limit of 5 "
                           "(EVIDENT_INGEST_MAX_SENTENCES_PER_DOCUMENT)")

# ------------------------------------------------------------------ malformed Confluence JSON

@pytest.mark.parametrize(("field", "value", "said"), [
    ("title", {"x": 1}, "field 'title' is an object, not a text"),
    ("ancestors", {"title": "x"}, "field 'ancestors' is an object, not a list"),
    ("ancestors", 5, "field 'ancestors' is a number, not a list"),
    ("version", "3", "field 'version' is a text, not an object"),
    ("_links", ["x"], "field '_links' is a list, not an object"),
    ("space", "ENG", "field 'space' is a text, not an object"),
    ("metadata", {"labels": 7}, "field 'metadata.labels' is a number, not an object"),
    ("children", {"attachment": {"results": 3}}, "field 'children.attachment.results' is a number, not a list"),
    ("_expandable", {"space": 5}, "field '_expandable.space' is a number, not a text"),
])
def test_a_mistyped_field_is_dropped_with_a_sentence_and_the_page_indexed(field, value, said):
    parsed = parse("wiki/42.json", page_json("<p>Body text</p>", **{field: value}))
    assert text_of(parsed) == "Body text"
    assert parsed.errors == [f"wiki/42.json: {said}; ignored, the page indexed without it"]


def test_mistyped_restrictions_and_users_are_no_exception():
    parsed = parse("wiki/42.json", page_json('<p>Ask <ac:link><ri:user ri:account-id="u1"/></ac:link></p>'),
                   users={"u1": 12})
    assert text_of(parsed) == "Ask @user:u1" and parsed.document.acl == []


@pytest.mark.parametrize(("restrictions", "field"), [
    ("hr-team", "restrictions"),
    ({"read": ["hr-team"]}, "restrictions.read"),
    ({"read": {"restrictions": {"group": 5}}}, "restrictions.read.restrictions.group"),
    ({"read": {"restrictions": {"group": {"results": ["hr-team"]}}}}, "restrictions.read.restrictions.group"),
    ({"read": {"restrictions": {"user": {"results": [{"displayName": "Ann"}]}}}}, "restrictions.read.restrictions.user"),
])
def test_restrictions_of_another_shape_refuse_the_page_rather_than_making_it_public(restrictions, field):
    with pytest.raises(ParseError) as refused:
        parse("wiki/42.json", page_json(restrictions=restrictions))
    assert str(refused.value).startswith(f"wiki/42.json: read restrictions field '{field}' is ")
    assert str(refused.value).endswith("who may read the page is unknown: not indexed rather than indexed as "
                                       "public; skipped")


@pytest.mark.parametrize(("body", "reason"), [
    ([], "missing body"), ({"storage": {"value": 5}}, "missing body"), ({"storage": []}, "missing body")])
def test_a_body_that_is_no_text_is_refused_naming_the_file(body, reason):
    with pytest.raises(ParseError, match=rf"^wiki/42\.json: {reason}"):
        parse("wiki/42.json", json.dumps({"id": "42", "title": "T", "body": body}))


@pytest.mark.parametrize("page_id", ["9" * 40_000, "abc", "12/../13", True, 4.5])
def test_a_page_id_that_is_no_number_is_refused_naming_the_file(page_id):
    with pytest.raises(ParseError) as refused:
        parse("wiki/odd.json", page_json(id=page_id))
    message = str(refused.value)
    assert message.startswith("wiki/odd.json: page id ") and message.endswith(
        "is not a Confluence page id (a number of up to 20 digits); skipped")
    assert len(message) < 200


def test_immense_labels_and_space_keys_are_truncated_with_a_warning():
    labels = {"labels": {"results": [{"name": "x" * 40_000}, {"name": "ok"}]}}
    parsed = parse("wiki/42.json", page_json(metadata=labels, space={"key": "K" * 40_000}))
    assert parsed.document.labels == ["x" * 255, "ok"] and parsed.document.space == "K" * 255
    assert parsed.errors == ["wiki/42.json: 2 label(s) or space key(s) longer than 255 characters "
                             "(EVIDENT_INGEST_MAX_LABEL_CHARS) were truncated"]


def test_an_immense_group_in_the_read_restrictions_refuses_the_page_rather_than_making_it_public():
    restrictions = {"read": {"restrictions": {"group": {"results": [{"name": "g" * 40_000}]}}}}
    with pytest.raises(ParseError, match=r"^wiki/42\.json: a read restriction names a principal of 40,000 "
                                         r"characters.*not indexed rather than indexed as public; skipped$"):
        parse("wiki/42.json", page_json(restrictions=restrictions))


# ------------------------------------------------------------------ malformed PDFs

def _pdf(objects: list[bytes]) -> bytes:
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


CYCLIC_PDF = _pdf([  # the page tree lists itself as its own second kid
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R >>",
    b"<< /Length 53 >>\nstream\nBT /Helvetica 12 Tf 20 100 Td (Hello from page one) Tj ET\nendstream",
])


def test_a_cyclic_page_tree_is_a_skipped_page_not_a_raw_error():
    parsed = parse("manuals/cyclic.pdf", CYCLIC_PDF)
    assert parsed.errors == ["manuals/cyclic.pdf: page 2 could not be read (FzErrorFormat: code=7: cycle in page "
                             "tree); the page skipped"]
    assert [b.page for b in parsed.blocks if b.kind == kinds.PDF_PAGE] == [1]


def test_a_cyclic_page_tree_holds_no_index_records_and_raises_nothing():
    assert parse_index_records(CYCLIC_PDF, "manuals/cyclic.pdf") == []


def test_a_pdf_of_which_no_page_can_be_read_is_refused_not_indexed_empty():
    only_cycle = CYCLIC_PDF.replace(b"/Kids [3 0 R 2 0 R]", b"/Kids [2 0 R 3 0 R]")  # the cycle comes first
    with pytest.raises(ParseError, match=r"^manuals/loop\.pdf: none of its \d page\(s\) could be read \(page 1 "
                                         r"could not be read \(FzErrorFormat: code=7: cycle in page tree\)\); skipped$"):
        parse("manuals/loop.pdf", only_cycle)


# ------------------------------------------------------------------ files with nothing to read

@pytest.mark.parametrize("name", ["a.html", "b.json", "c.pdf"])
@pytest.mark.parametrize("data", [b"", b"  \n\t\n "])
def test_an_empty_file_is_refused_as_empty_whatever_its_kind(name: str, data: bytes):
    with pytest.raises(ParseError) as refused:
        parse(name, data)
    assert str(refused.value) == f"{name}: empty file (no bytes, or only whitespace); skipped"


def test_an_html_page_without_readable_text_is_refused():
    with pytest.raises(ParseError) as refused:
        parse("site/script.html", "<html><script>var secret = 1;</script><nav>Home</nav></html>")
    assert str(refused.value) == ("site/script.html: no readable text (only markup, scripts, styles or site "
                                  "chrome); skipped")


def test_a_pdf_named_html_is_refused_with_the_hint_to_rename_it():
    with pytest.raises(ParseError) as refused:
        parse("site/manual.html", CYCLIC_PDF)
    assert str(refused.value) == ("site/manual.html: a PDF named like an HTML page; rename it .pdf to have it read "
                                  "as a PDF; skipped")


# ------------------------------------------------------------------ cost linear in a file's size

@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


def colspan_page() -> str:
    """3 KB: a header spanning a 960-column grid (one 24-cell row of colspan 40) names every column; each of 60
    rows holds a rowspan and a colspan over the whole grid."""
    wide = "<tr>" + "<td colspan=40>w" * 24 + "</tr>"
    head = "<tr><th colspan=1000>" + "Quarterly figure " * 12 + "</th></tr>"
    body = "".join(f"<tr><td rowspan=500>r{n}<td colspan=1000>v{n}" for n in range(60))
    return f"<html><body><h1>Spans</h1><table>{head}{wide}{body}</table></body></html>"


def rowspan_page() -> str:
    """3 KB: a 1 KB note whose rowspan covers 200 rows of a few bytes each."""
    note = "The same long note is repeated in every row its rowspan covers. " * 16
    rows = "".join(f"<tr><td>n{i}" for i in range(1, 200))
    return (f"<html><body><h1>Spans</h1><table><tr><th>Topic</th><th>Note</th></tr>"
            f"<tr><td>n0</td><td rowspan=1000>{note}</td></tr>{rows}</table></body></html>")


def storage_macro(name: str, body: str) -> str:
    return f'<ac:structured-macro ac:name="{name}"><ac:rich-text-body>{body}</ac:rich-text-body></ac:structured-macro>'


def nested_storage_page(depth: int) -> bytes:
    """Panels nested ``depth`` deep around code, a list and a table whose rowspan would fill its grid with copies of
    a note: read naively, each level repeats the code and the list, each row the note."""
    code = ('<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[' + "deploy --stage blue\n" * 30
            + "]]></ac:plain-text-body></ac:structured-macro>")
    steps = "<ul>" + "".join(f"<li>Checklist step {n}</li>" for n in range(30)) + "</ul>"
    note = "The rollback note applies to every step below. " * 20
    table = ("<table><tbody><tr><th>Step</th><th>Note</th></tr>"
             f"<tr><td>s0</td><td rowspan=\"300\">{note}</td></tr>"
             + "".join(f"<tr><td>s{n}</td></tr>" for n in range(1, 120)) + "</tbody></table>")
    body = code + steps + table
    for _ in range(depth):
        body = storage_macro("info", body)
    return page_json(body)


def assert_linear(name: str, data: bytes, lemmatizer: Lemmatizer, config: IngestConfig | None = None) -> list[str]:
    """The file's blocks hold at most 2 x TABLE_EXPANSION characters per byte, its evidence stay within the
    size bounds of ``config``; returns the warnings."""
    config = config or IngestConfig()
    parsed, evidence = evidence_for(SourceFile(name, data), config, lemmatizer)
    size = max(len(data), config.cost_floor_bytes)
    assert sum(len(b.text) for b in parsed.blocks) <= 2 * TABLE_EXPANSION * len(data)
    assert len(evidence) <= size // config.bytes_per_evidence
    biggest = max(len(e.text) + len(e.context) for e in evidence)  # the one that crosses the bound is kept whole
    assert sum(len(e.text) + len(e.context) for e in evidence) <= size * config.evidence_chars_per_byte + biggest
    return parsed.errors


@pytest.mark.parametrize("page", [colspan_page, rowspan_page])
def test_a_3kb_page_of_spans_makes_work_linear_in_its_size_and_says_what_was_cut(page, lemmatizer):
    data = page().encode()
    assert 3_000 <= len(data) <= 3_500
    errors = assert_linear("site/spans.html", data, lemmatizer)
    assert errors and errors[0].startswith("site/spans.html: table 1: ")
    assert f"({TABLE_EXPANSION} times the table's " in errors[0] and "kept their text once" in errors[0]


def test_the_evidence_of_a_page_of_tiny_rows_are_bounded_by_its_bytes(lemmatizer):
    errors = assert_linear("site/spans.html", rowspan_page().encode(), lemmatizer)
    assert errors[-1].startswith("site/spans.html: the document makes ")
    assert "for its 3,437 bytes, one per 16 bytes (EVIDENT_INGEST_BYTES_PER_EVIDENCE); partially indexed" in errors[-1]


@pytest.mark.parametrize("depth", [5, 45])
def test_a_storage_page_of_nested_macros_and_spans_makes_work_linear_in_its_size(depth, lemmatizer):
    errors = assert_linear("wiki/42.json", nested_storage_page(depth), lemmatizer)
    assert errors[0].startswith("wiki/42.json: table 1: 1 cell(s) spanning so many slots that the grid's text "
                                "would pass ")
    panels = [b.text for b in parse("wiki/42.json", nested_storage_page(depth)).blocks if b.kind == kinds.PANEL]
    assert len(panels) == 1 and panels[0].count("Checklist step 7") == 1
    assert panels[0].count("deploy --stage blue") == 30


def test_nested_code_and_decisions_are_read_once():
    code = "<ul><li>Run:" + "<pre>" * 30 + "make release" + "</pre>" * 30 + "</li></ul>"
    item = '<ac:adf-node type="decision-item"><ac:adf-content>Ship it'
    decisions = ('<ac:adf-extension><ac:adf-node type="decision-list">' + item * 30
                 + "</ac:adf-content></ac:adf-node>" * 30 + "</ac:adf-node></ac:adf-extension>")
    blocks = parse("wiki/42.json", page_json(code + decisions)).blocks
    assert [(b.kind, b.text.count("make release"), b.text.count("Ship it")) for b in blocks] == [
        ("list", 1, 0), ("code", 1, 0), ("list", 0, 30)]


def test_a_normal_wide_table_with_a_few_spans_is_untouched(lemmatizer):
    head = "<tr><th>Site</th>" + "".join(f"<th>Quarter {q} figure</th>" for q in range(1, 11)) + "<th>Notes</th></tr>"
    rows = [f"<tr><td>Site {r}</td>" + "".join(f"<td>{r * q} units</td>" for q in range(1, 11))
            + f"<td>ok {r}</td></tr>" for r in range(40)]
    rows[3] = "<tr><td rowspan=3>Site 3 to 5</td>" + "<td>1 unit</td>" * 9 + "<td colspan=2>merged 3</td></tr>"
    rows[4], rows[5] = ("<tr>" + "<td>2 units</td>" * 11 + "</tr>",) * 2
    data = f"<html><body><h1>Stock</h1><table>{head}{''.join(rows)}</table></body></html>".encode()
    parsed, evidence = evidence_for(SourceFile("site/wide.html", data), IngestConfig(), lemmatizer)
    assert parsed.errors == []
    row_texts = [e.text for e in evidence if e.kind == kinds.TABLE_ROW]
    assert len(row_texts) == 40 and sum("Site is Site 3 to 5" in text for text in row_texts) == 3
    assert row_texts[3].endswith("Quarter 10 figure is merged 3")
    assert row_texts[39] == ("Row 40 in Table 1: Site is Site 39, " + ", ".join(
        f"and Quarter {q} figure is {39 * q} units" for q in range(1, 11)) + ", and Notes is ok 39")


def test_a_long_neighbour_is_not_repeated_in_full_by_every_row(lemmatizer):
    intro = "<p>" + " ".join(f"{'x' * 200}{n}" for n in range(50)) + "</p>"
    rows = "".join(f"<tr><td>r{n}</td><td>v{n}</td></tr>" for n in range(10))
    data = f"<html><body>{intro}<table><tr><th>K</th><th>V</th></tr>{rows}</table></body></html>".encode()
    _parsed, evidence = evidence_for(SourceFile("site/intro.html", data), IngestConfig(), lemmatizer)
    for row in (e for e in evidence if e.kind == kinds.TABLE_ROW):
        assert row.prev_text.endswith("x49") and len(row.prev_text) <= NEIGHBOUR_CHARS + 2  # and "… "
        assert row.prev_text in row.context


def test_an_immense_heading_over_many_blocks_is_cut_by_the_characters_its_bytes_allow(lemmatizer):
    lists = "".join(f"<ul><li>item {n}</li></ul><p>text {n}</p>" for n in range(100))
    data = f"<html><body><h2>{'Heading words ' * 300}</h2>{lists}</body></html>".encode()
    per_byte = 16  # a tight bound, so that the test reads little text
    errors = assert_linear("site/heading.html", data, lemmatizer,
                           replace(IngestConfig(), evidence_chars_per_byte=per_byte))
    [note] = errors
    assert note.startswith("site/heading.html: the text and context of its ") and (
        f"evidence come to over the limit of {per_byte * len(data):,} for its {len(data):,} bytes, {per_byte} per "
        "byte (EVIDENT_INGEST_EVIDENCE_CHARS_PER_BYTE); partially indexed: the last ") in note


def test_an_immense_title_is_cut_with_a_warning():
    parsed = parse("wiki/42.json", page_json(title="T" * 40_000))
    assert parsed.document.title == "T" * MAX_TITLE_CHARS
    assert parsed.errors == ["wiki/42.json: its title of 40,000 characters was cut to 255, the longest title "
                             "Confluence allows"]
