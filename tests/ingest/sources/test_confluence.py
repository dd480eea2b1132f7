"""Confluence storage format -> blocks: golden tests per construct, metadata, errors, and a whole wiki."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import HARBORLANE

from ingest.blocks import ParseError
from ingest.config import IngestConfig
from ingest.sources import SourceFile
from ingest.sources.confluence import ConfluenceSource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
USERS = {"acc-known": "Lea Schürmann"}


def page(body: str, **extra) -> bytes:
    data = {"id": "7", "title": "T", "body": {"storage": {"value": body, "representation": "storage"}}}
    data.update(extra)
    return json.dumps(data).encode("utf-8")


def parse(body: str, users: dict | None = None):
    return ConfluenceSource().parse(SourceFile("7.json", page(body), users=users if users is not None else USERS),
                                    IngestConfig())


def blocks(body: str, users: dict | None = None) -> list[tuple]:
    return [(b.kind, b.heading_path, b.text) for b in parse(body, users).blocks]


def texts(body: str) -> list[str]:
    return [b.text for b in parse(body).blocks]


def status(title: str) -> str:
    return (f'<ac:structured-macro ac:name="status" ac:schema-version="1"><ac:parameter ac:name="title">{title}'
            '</ac:parameter><ac:parameter ac:name="colour">Green</ac:parameter></ac:structured-macro>')


def macro(name: str, inner: str) -> str:
    return f'<ac:structured-macro ac:name="{name}" ac:schema-version="1">{inner}</ac:structured-macro>'


# ------------------------------------------------------------------ headings and passages

def test_headings_build_the_heading_path():
    body = ("<p>Intro.</p><h1>A</h1><p>a</p><h2>B</h2><p>b</p><h3>C</h3><p>c</p><h2>D</h2><p>d</p>"
            "<h1>E</h1><h3>F</h3><p>f</p>")
    assert blocks(body) == [
        ("passage", [], "Intro."),
        ("passage", ["A"], "a"),
        ("passage", ["A", "B"], "b"),
        ("passage", ["A", "B", "C"], "c"),
        ("passage", ["A", "D"], "d"),
        ("passage", ["E", "F"], "f"),
    ]


def test_paragraph_runs_are_one_passage_until_another_block():
    body = "<h2>S</h2><p>one</p><p>two</p><ul><li>x</li></ul><p>three</p><p>four</p>"
    assert blocks(body) == [
        ("passage", ["S"], "one\ntwo"),
        ("list", ["S"], "- x"),
        ("passage", ["S"], "three\nfour"),
    ]


def test_inline_markup_and_whitespace():
    body = "<p>  Use <strong>bold</strong>,\n <em>em</em> and <code>hvx-diag</code>   now<br />next line</p><p> </p>"
    assert texts(body) == ["Use bold, em and hvx-diag now\nnext line"]


def test_empty_heading_and_empty_paragraphs_make_no_blocks():
    assert blocks("<h2>Real</h2><h3> </h3><p>&#160;</p><p>x</p>") == [("passage", ["Real"], "x")]


# ------------------------------------------------------------------ lists

def test_nested_lists_keep_order_and_indent():
    body = ("<ol><li>Clone<ul><li>with ssh</li><li>or https<ol><li>token</li></ol></li></ul></li>"
            "<li><p>Build</p></li></ol>")
    assert blocks(body) == [("list", [], "1. Clone\n  - with ssh\n  - or https\n    1. token\n2. Build")]


def test_code_macro_in_list_item_stays_in_the_item_and_is_a_code_block():
    body = ('<ol><li>Confirm:' + macro("code", '<ac:parameter ac:name="language">bash</ac:parameter>'
            '<ac:plain-text-body><![CDATA[fdctl db status]]></ac:plain-text-body>') + '</li></ol>')
    result = parse(body).blocks
    assert [(b.kind, b.text) for b in result] == [("list", "1. Confirm: fdctl db status"), ("code", "fdctl db status")]
    assert result[1].meta == {"language": "bash", "in_list": True}


def test_task_list_with_status_owner_and_due_date():
    body = ('<h2>Action items</h2><ac:task-list>'
            '<ac:task><ac:task-id>1</ac:task-id><ac:task-uuid>u1</ac:task-uuid>'
            '<ac:task-status>complete</ac:task-status>'
            '<ac:task-body><ac:link><ri:user ri:account-id="acc-known" /></ac:link> publish the calendar '
            '&#8212; due <time datetime="2025-01-10" /></ac:task-body></ac:task>'
            '<ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status>'
            '<ac:task-body>Greta Albrecht: bring up HVX &#8212; due 2025-01-15</ac:task-body></ac:task>'
            '</ac:task-list>')
    result = parse(body).blocks
    assert [(b.kind, b.heading_path, b.text) for b in result] == [
        ("list", ["Action items"],
         "[x] Lea Schürmann publish the calendar — due 2025-01-10\n"
         "[ ] Greta Albrecht: bring up HVX — due 2025-01-15"),
    ]
    assert result[0].meta == {"task_list": True}


def test_nested_task_list():
    body = ('<ac:task-list><ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>parent'
            '<ac:task-list><ac:task><ac:task-status>complete</ac:task-status><ac:task-body>child</ac:task-body>'
            '</ac:task></ac:task-list></ac:task-body></ac:task></ac:task-list>')
    assert texts(body) == ["[ ] parent\n  [x] child"]


# ------------------------------------------------------------------ tables

def table_blocks(body: str):
    return [(b.kind, b.text, {k: v for k, v in b.meta.items() if k != "markdown"}) for b in parse(body).blocks]


def test_table_with_header_row_status_cells_and_markdown():
    body = ('<h2>Matrix</h2><table data-layout="default"><colgroup><col /><col /></colgroup><tbody>'
            '<tr><th><p><strong>Machine</strong></p></th><th><p><strong>BIOS</strong></p></th><th><p>UEFI</p></th></tr>'
            f'<tr><td><p>X</p></td><td><p>Y</p></td><td><p>{status("PASS")}</p></td></tr>'
            f'<tr><td><p>Z</p></td><td></td><td>{status("FAIL")}</td></tr>'
            '</tbody></table><p><em>Footer note.</em></p>')
    result = parse(body).blocks
    assert table_blocks(body) == [
        ("table", "Table 1 columns: Machine, BIOS, UEFI. Row 1 in Table 1: Machine is X, and BIOS is Y, and UEFI is "
                  "PASS. Row 2 in Table 1: Machine is Z, and UEFI is FAIL.", {"table_no": 1, "rows": 2}),
        ("table_row", "Row 1 in Table 1: Machine is X, and BIOS is Y, and UEFI is PASS", {"table_no": 1, "row_no": 1}),
        ("table_row", "Row 2 in Table 1: Machine is Z, and UEFI is FAIL", {"table_no": 1, "row_no": 2}),
        ("passage", "Footer note.", {}),
    ]
    assert result[0].meta["markdown"] == "| Machine | BIOS | UEFI |\n|---|---|---|\n| X | Y | PASS |\n| Z |  | FAIL |"
    assert all(b.heading_path == ["Matrix"] for b in result)


def test_two_row_header_with_rowspan_and_colspan():
    body = ('<table><tbody><tr><th rowspan="2">Machine model</th><th colspan="2"><p>Boot test result</p></th></tr>'
            '<tr><th>Legacy (CSM)</th><th>UEFI</th></tr>'
            f'<tr><td>Orbis EdgeBox E3</td><td>{status("PASS")}</td><td>{status("FAIL")}</td></tr></tbody></table>')
    assert table_blocks(body)[1] == (
        "table_row", "Row 1 in Table 1: Machine model is Orbis EdgeBox E3, and Boot test result Legacy (CSM) is PASS, "
                     "and Boot test result UEFI is FAIL", {"table_no": 1, "row_no": 1})


def test_header_column_and_thead():
    body = ('<table><thead><tr><td>Severity</td><td>Response</td></tr></thead><tbody>'
            '<tr><th>SEV-1</th><td>15 minutes</td></tr><tr><th>SEV-2</th><td>30 minutes</td></tr></tbody></table>'
            '<table class="wrapped"><tbody><tr><th>Date</th><td>2025-02-07</td></tr>'
            '<tr><th>Status</th><td>' + status("IN REVIEW") + '</td></tr></tbody></table>')
    rows = [(text, meta) for kind, text, meta in table_blocks(body) if kind == "table_row"]
    assert rows == [
        ("Row 1 in Table 1: Severity is SEV-1, and Response is 15 minutes", {"table_no": 1, "row_no": 1}),
        ("Row 2 in Table 1: Severity is SEV-2, and Response is 30 minutes", {"table_no": 1, "row_no": 2}),
        ("Row 1 in Table 2: Date is 2025-02-07", {"table_no": 2, "row_no": 1}),
        ("Row 2 in Table 2: Status is IN REVIEW", {"table_no": 2, "row_no": 2}),
    ]


def test_cell_text_includes_paragraphs_code_links_and_jira():
    body = ('<table><tbody><tr><th>Ticket</th><th>Notes</th></tr><tr><td>'
            + macro("jira", '<ac:parameter ac:name="server">Jira</ac:parameter><ac:parameter ac:name="key">HVX-2588'
                            '</ac:parameter>')
            + '</td><td><p>Run <code>hvx-keytool</code>.</p><p>See <ac:link><ri:page ri:content-title="Glossary" />'
              '</ac:link>.</p></td></tr></tbody></table>')
    assert table_blocks(body)[1][1] == \
        "Row 1 in Table 1: Ticket is HVX-2588, and Notes is Run hvx-keytool. See Glossary."


# ------------------------------------------------------------------ code, panels, expand, navigation macros

def test_code_macro_keeps_cdata_lines_and_language():
    body = macro("code", '<ac:parameter ac:name="language">yaml</ac:parameter><ac:parameter ac:name="title">m.yaml'
                         '</ac:parameter><ac:plain-text-body><![CDATA[\npartitions:\n  - name: <rt> & co\n\n]]>'
                         '</ac:plain-text-body>')
    result = parse("<h2>Manifest</h2>" + body).blocks
    assert [(b.kind, b.heading_path, b.text, b.meta) for b in result] == [
        ("code", ["Manifest"], "partitions:\n  - name: <rt> & co", {"language": "yaml", "title": "m.yaml"}),
    ]


def test_pre_is_code():
    assert [(b.kind, b.text) for b in parse("<pre>make -j8\nmake install</pre>").blocks] == [
        ("code", "make -j8\nmake install")]


@pytest.mark.parametrize("kind", ["info", "note", "warning", "tip"])
def test_panels(kind):
    body = "<p>before</p>" + macro(kind, '<ac:rich-text-body><p>Do not <strong>ever</strong>.</p><p>Really.</p>'
                                         '</ac:rich-text-body>') + "<p>after</p>"
    result = parse(body).blocks
    assert [(b.kind, b.text) for b in result] == [
        ("passage", "before"), ("panel", "Do not ever.\nReally."), ("passage", "after")]
    assert result[1].meta == {"panel": kind}


def test_panel_title_and_inner_list_and_table():
    body = macro("warning", '<ac:parameter ac:name="title">4.1.1 was withdrawn</ac:parameter><ac:rich-text-body>'
                            '<p>Update to 4.1.2.</p><ul><li>a</li><li>b</li></ul>'
                            '<table><tr><th>K</th><th>V</th></tr><tr><td>k</td><td>v</td></tr></table>'
                            '</ac:rich-text-body>')
    result = parse(body).blocks
    assert [(b.kind, b.text) for b in result] == [
        ("panel", "4.1.1 was withdrawn\nUpdate to 4.1.2.\n- a\n- b"),
        ("list", "- a\n- b"),
        ("table", "Table 1 columns: K, V. Row 1 in Table 1: K is k, and V is v."),
        ("table_row", "Row 1 in Table 1: K is k, and V is v"),
    ]
    assert result[0].meta == {"panel": "warning", "title": "4.1.1 was withdrawn"}
    assert result[1].meta["panel"] == "warning" and result[2].meta["table_no"] == 1


def test_expand_title_opens_a_passage_and_the_body_is_walked():
    body = ("<h2>Troubleshooting</h2><p>Known errors:</p>"
            + macro("expand", '<ac:parameter ac:name="title">fatal error: libfdt.h</ac:parameter><ac:rich-text-body>'
                              '<p>Run <code>sudo apt install libfdt-dev</code>.</p><ul><li>then rebuild</li></ul>'
                              '</ac:rich-text-body>')
            + "<p>Other text.</p>")
    assert blocks(body) == [
        ("passage", ["Troubleshooting"], "Known errors:"),
        ("passage", ["Troubleshooting"], "fatal error: libfdt.h\nRun sudo apt install libfdt-dev."),
        ("list", ["Troubleshooting"], "- then rebuild"),
        ("passage", ["Troubleshooting"], "Other text."),
    ]


def test_navigation_macros_are_dropped():
    body = (macro("toc", '<ac:parameter ac:name="maxLevel">2</ac:parameter>') + "<p>Text.</p>"
            + macro("children", '<ac:parameter ac:name="all">true</ac:parameter>')
            + '<p><ac:structured-macro ac:name="anchor"><ac:parameter ac:name="">here</ac:parameter>'
              '</ac:structured-macro>More.</p>')
    assert texts(body) == ["Text.\nMore."]


def test_unknown_macro_keeps_its_body_drops_parameters():
    body = (macro("details", '<ac:parameter ac:name="id">secret-param</ac:parameter><ac:rich-text-body><p>Owner: QA'
                             '</p></ac:rich-text-body>')
            + macro("mystery", '<ac:parameter ac:name="x">p</ac:parameter><ac:plain-text-body><![CDATA[plain body]]>'
                               '</ac:plain-text-body>'))
    assert texts(body) == ["Owner: QA\nplain body"]


def test_status_and_jira_inline():
    body = ("<p><strong>Release decision:</strong> " + status("GO") + " see "
            + macro("jira", '<ac:parameter ac:name="key">HVX-1993</ac:parameter><ac:parameter ac:name="columns">'
                            'key,summary</ac:parameter>') + ".</p>")
    assert texts(body) == ["Release decision: GO see HVX-1993."]


# ------------------------------------------------------------------ links, mentions, images, time, entities

def test_page_links_use_link_body_or_target_title():
    body = ('<p>See <ac:link><ri:page ri:space-key="OPS" ri:content-title="Escalation Matrix" /></ac:link>, '
            '<ac:link><ri:page ri:content-title="Glossary" /><ac:plain-text-link-body><![CDATA[the glossary]]>'
            '</ac:plain-text-link-body></ac:link> and <ac:link><ri:page ri:content-title="X" /><ac:link-body>'
            '<strong>rich</strong> body</ac:link-body></ac:link>.</p>')
    assert texts(body) == ["See Escalation Matrix, the glossary and rich body."]


def test_user_mentions_known_and_unknown():
    body = ('<p>SRE lead: <ac:link><ri:user ri:account-id="acc-known" /></ac:link> &#8212; deputy: '
            '<ac:link><ri:user ri:account-id="5b03822dc6ae8e154abb8609" /></ac:link>.</p>')
    assert texts(body) == ["SRE lead: Lea Schürmann — deputy: @user:5b03822dc6ae8e154abb8609."]
    assert blocks(body, users={})[0][2] == "SRE lead: @user:acc-known — deputy: @user:5b03822dc6ae8e154abb8609."


def test_images_alt_or_filename_and_emoticons_dropped():
    body = ('<p><ac:image ac:alt="System context"><ri:attachment ri:filename="ctx.png" /></ac:image></p>'
            '<p><ac:image ac:width="300"><ri:attachment ri:filename="setup-step-2.png" ri:version-at-save="1" />'
            '</ac:image> <ac:emoticon ac:name="smile" /> done</p>')
    assert texts(body) == ["[image: System context]\n[image: setup-step-2.png] done"]


def test_time_uses_datetime_or_its_text():
    body = '<p>On <time datetime="2024-09-16" />, until <time datetime="2024-10-01">1 Oct 2024</time>.</p>'
    assert texts(body) == ["On 2024-09-16, until 1 Oct 2024."]


def test_named_and_numeric_entities_and_cdata():
    body = ("<p>a&nbsp;b &mdash; c&#8212;d &#x2192; e &auml;&szlig; &amp;&lt;x&gt; &bogus;</p>"
            + macro("code", "<ac:plain-text-body><![CDATA[x && y < z &nbsp;]]></ac:plain-text-body>"))
    assert texts(body) == ["a b — c—d → e äß &<x> &bogus;", "x && y < z &nbsp;"]


# ------------------------------------------------------------------ document, golden page, errors

def test_golden_page_fixture():
    file = SourceFile("confluence_page.json", (FIXTURES / "confluence_page.json").read_bytes(), users=USERS)
    parsed = ConfluenceSource().parse(file, IngestConfig())
    doc = parsed.document
    assert (doc.doc_id, doc.source_type, doc.url, doc.title) == (
        "confluence:424242", "confluence", "https://wiki.example.com/spaces/OPS/pages/424242/Fleet+Gateway",
        "Fleet Gateway")
    assert doc.breadcrumb == ["Operations Home", "Services"]
    assert (doc.space, doc.labels, doc.acl) == ("OPS", ["gateway", "mqtt"], ["sre", "security"])
    assert (doc.updated, doc.editor, doc.version, doc.lang) == ("2025-03-02T09:15:00.000Z", "Lea Schürmann", 3, "")
    assert (doc.space_name, doc.author, doc.created, doc.attachments) == ("Operations", "", "", [])
    expected = json.loads((FIXTURES / "confluence_page.expected.json").read_text("utf-8"))
    got = [{"kind": b.kind, "heading_path": b.heading_path, "text": b.text, "meta": b.meta} for b in parsed.blocks]
    assert got == expected
    assert parsed.errors == []
    assert all("<" not in b.text or b.kind == "code" or "<TLS>" in b.text for b in parsed.blocks)


def test_url_falls_back_to_the_file_url_and_user_restrictions_close_the_page():
    data = page("<p>x</p>", restrictions={"read": {"restrictions": {"user": {"results": [{"accountId": "a1"}]},
                                                                     "group": {"results": []}}}})
    doc = ConfluenceSource().parse(SourceFile("7.json", data, url="https://mirror/7"), IngestConfig()).document
    assert doc.url == "https://mirror/7"
    assert doc.acl == ["user:a1"]


def test_accepts():
    source = ConfluenceSource()
    assert source.accepts(SourceFile("pages/1.json", page("<p>x</p>")))
    assert not source.accepts(SourceFile("page.html", b"<html></html>"))
    assert not source.accepts(SourceFile("list.json", b"[1, 2]"))


@pytest.mark.parametrize("data, reason", [
    (b"{not json", "invalid JSON"),
    (json.dumps({"id": "1", "title": "T"}).encode(), "missing body"),
    (json.dumps({"id": "1", "body": {"view": {}}}).encode(), "missing body"),
    (json.dumps([1]).encode(), "not a Confluence content object"),
])
def test_unparseable_input_raises_parse_error(data, reason):
    with pytest.raises(ParseError) as info:
        ConfluenceSource().parse(SourceFile("broken.json", data), IngestConfig())
    assert info.value.source == "broken.json"
    assert reason in info.value.reason


def test_malformed_markup_is_recovered_and_reported():
    parsed = parse("<p>unclosed <strong>bold</p><p>next</p>")
    assert "unclosed bold" in parsed.blocks[0].text and "next" in parsed.blocks[0].text
    assert parsed.errors and "not well-formed" in parsed.errors[0]


# ------------------------------------------------------------------ a whole wiki (harborlane, in evalsets/)


def harborlane_users() -> dict[str, str]:
    return {u["accountId"]: u["displayName"]
            for u in json.loads((HARBORLANE / "users.json").read_text("utf-8"))["results"]}


def harborlane_parse(page_id: str):
    path = HARBORLANE / "pages" / f"{page_id}.json"
    return ConfluenceSource().parse(SourceFile(path.name, path.read_bytes(), users=harborlane_users()), IngestConfig())


def test_all_harborlane_pages_parse_with_blocks():
    pages = sorted((HARBORLANE / "pages").glob("*.json"))
    assert len(pages) == 28
    kinds: Counter = Counter()
    for path in pages:
        parsed = harborlane_parse(path.stem)
        assert parsed.blocks, path.name
        assert parsed.errors == [], path.name
        assert all(b.text.strip() for b in parsed.blocks), path.name
        assert not any("ac:" in b.text or "ri:" in b.text for b in parsed.blocks if b.kind != "code"), path.name
        kinds.update(b.kind for b in parsed.blocks)
    assert (kinds["table"], kinds["table_row"], kinds["code"], kinds["panel"]) == (27, 156, 4, 13)


def test_rowspan_row_and_mention():
    parsed = harborlane_parse("8454251")  # On-call & Escalation: a rowspan table, a user mention
    rows = [b for b in parsed.blocks if b.kind == "table_row" and "TraceLane on-call" in b.text]
    assert [b.text for b in rows] == [
        "Row 5 in Table 1: Service is TraceLane, and Level is L2, and Who is TraceLane on-call (weekly rotation), "
        "and Response time is 30 min, and Hours is 24/7"]
    assert rows[0].meta == {"table_no": 1, "row_no": 5}
    assert any(b.text.endswith("Page owner: Niels Oudshoorn.") for b in parsed.blocks)


def test_header_column_table_row():
    parsed = harborlane_parse("10682473")  # Office Locations: the header is the first column
    row = next(b.text for b in parsed.blocks if b.kind == "table_row" and "Main phone" in b.text)
    assert row == "Row 2 in Table 1: Main phone: Hamburg (HQ) is +49 40 5550 7000, and Rotterdam is +31 10 555 8200"


def test_layouts_are_walked_in_order():
    body = ('<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><h2>Left</h2><p>left</p>'
            '</ac:layout-cell><ac:layout-cell><ul><li>right</li></ul></ac:layout-cell></ac:layout-section></ac:layout>')
    assert blocks(body) == [("passage", ["Left"], "left"), ("list", ["Left"], "- right")]


def test_an_archived_page_carries_the_archived_label():
    archived = ConfluenceSource().parse(SourceFile("7.json", page("<p>Old text</p>", status="archived",
                                                                  metadata={"labels": {"results": [{"name": "ops"}]}})),
                                        IngestConfig())
    current = ConfluenceSource().parse(SourceFile("7.json", page("<p>Text</p>", status="current")), IngestConfig())
    assert (archived.document.labels, current.document.labels) == (["ops", "archived"], [])


def _refusal(name: str, data: bytes) -> str:
    with pytest.raises(ParseError) as info:
        ConfluenceSource().parse(SourceFile(name, data), IngestConfig())
    assert info.value.source == name and str(info.value).startswith(f"{name}: ")
    return info.value.reason


def test_restrictions_given_twice_refuse_the_page_naming_the_key_never_guessing_who_may_read_it():
    restricted = {"read": {"restrictions": {"group": {"results": [{"name": "hr-team"}]}}}}
    data = page("<p>Salary bands</p>")[:-1] + (', "restrictions": ' + json.dumps(restricted) +
                                               ', "restrictions": {}}').encode()
    assert "'restrictions' appears twice" in _refusal("pages/salaries.json", data)


def test_a_number_python_cannot_read_and_a_lone_surrogate_are_refused_in_a_sentence():
    big_number = page("<p>x</p>")[:-1] + b', "size": ' + b"7" * 5_000 + b"}"
    assert _refusal("big_number.json", big_number) == (
        "it holds a number of 5,000 digits, more than can be read (4,300 at most)")
    surrogate = page("<p>x</p>")[:-1] + rb', "excerpt": "Gr\ud800"}'
    assert _refusal("surrogate.json", surrogate).startswith(
        "a text under the key 'excerpt' holds the lone surrogate escape \\ud800")


def test_a_utf16_page_is_accepted_and_read():
    data = json.dumps(json.loads(page("<p>Grüße</p>")), ensure_ascii=False).encode("utf-16-le")
    file = SourceFile("7.json", data)
    assert ConfluenceSource().accepts(file)
    assert [b.text for b in ConfluenceSource().parse(file, IngestConfig()).blocks] == ["Grüße"]
