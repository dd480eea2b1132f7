"""Generic HTML pages -> document metadata and blocks, without the site chrome."""
from __future__ import annotations

from pathlib import Path

import pytest

from ingest.blocks import ParseError
from ingest.config import IngestConfig
from ingest.sources import SourceFile
from ingest.sources.html import HtmlSource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CHROME_MARKERS = ["SCRIPT-TEXT", "HEADER-TEXT", "NAV-TEXT", "COOKIE-TEXT", "FORM-TEXT", "SIDEBAR-TEXT",
                  "FOOTER-TEXT", "NOSCRIPT-TEXT", "secret-style", "Accept"]


def parse(html: str | bytes, name: str = "page.html", config: IngestConfig | None = None, **file_args):
    data = html.encode("utf-8") if isinstance(html, str) else html
    return HtmlSource().parse(SourceFile(name, data, **file_args), config or IngestConfig())


def blocks(html: str, **kwargs) -> list[tuple]:
    return [(b.kind, b.heading_path, b.text) for b in parse(html, **kwargs).blocks]


def fixture():
    return parse((FIXTURES / "site_page.html").read_bytes(), name="it/guides/vpn.html")


def test_fixture_metadata():
    doc = fixture().document
    assert (doc.doc_id, doc.source_type, doc.url, doc.title) == (
        "html:it/guides/vpn.html", "html", "", "VPN Setup")  # no URL given: none made up
    assert doc.breadcrumb == ["Home", "IT Guides"]  # the current page is not its own ancestor
    assert doc.labels == ["vpn", "remote access", "it"]
    assert doc.acl == ["staff", "it-team"]
    assert (doc.lang, doc.updated, doc.author) == ("en", "2025-03-01", "IT Service Desk")


def test_fixture_blocks():
    parsed = fixture()
    assert [(b.kind, b.heading_path, b.text) for b in parsed.blocks] == [
        ("passage", [], "The VPN connects your laptop to the office network.\n"
                        "It uses WireGuard since 2024—the old client is gone."),
        ("panel", [], "Only company laptops can connect."),
        ("list", ["Install"], "1. Download the client.\n2. Import the profile:\n  - Windows: double-click\n"
                              "  - Linux: wg-quick up talvik"),
        ("code", ["Install"], "wg-quick up talvik\nwg show"),
        ("panel", ["Install"], "Careful\nNever share your profile."),
        ("table", ["Servers"], "Table 1 columns: Site, Endpoint. Row 1 in Table 1: Site is Karlsruhe, and Endpoint is "
                               "vpn-ka.talvik.example. Row 2 in Table 1: Site is Brno."),
        ("table_row", ["Servers"], "Row 1 in Table 1: Site is Karlsruhe, and Endpoint is vpn-ka.talvik.example"),
        ("table_row", ["Servers"], "Row 2 in Table 1: Site is Brno"),
    ]
    meta = [b.meta for b in parsed.blocks]
    assert meta[1] == {"panel": "note"}
    assert meta[3] == {"language": "bash"}
    assert meta[4] == {"panel": "warning", "title": "Careful"}
    assert meta[5]["markdown"] == "| Site | Endpoint |\n|---|---|\n| Karlsruhe | vpn-ka.talvik.example |\n| Brno |  |"
    assert meta[7] == {"table_no": 1, "row_no": 2}


def test_chrome_never_reaches_the_blocks():
    text = "\n".join(b.text for b in fixture().blocks)
    for marker in CHROME_MARKERS:
        assert marker not in text


def test_chrome_dropped_without_a_main_element():
    html = ("<html><body><header>HEADER-TEXT</header><nav>NAV-TEXT</nav><div class='sidebar'>SIDEBAR-TEXT</div>"
            "<script>SCRIPT-TEXT</script><div class='cookie-consent'>COOKIE-TEXT</div>"
            "<h2>Body heading</h2><p>Body text.</p><aside>ASIDE-TEXT</aside><footer>FOOTER-TEXT</footer>"
            "<form>FORM-TEXT</form><noscript>NOSCRIPT-TEXT</noscript></body></html>")
    assert blocks(html) == [("passage", ["Body heading"], "Body text.")]


def test_main_content_candidates():
    article = ("<html><body><div>OUTSIDE</div><article><header><h1>News</h1><p>By IT</p></header>"
               "<p>Text.</p></article></body></html>")
    assert blocks(article) == [("passage", [], "By IT\nText.")]  # h1 = title (no <title>)
    role = "<html><body><p>OUTSIDE</p><div role='main'><p>Inside.</p></div></body></html>"
    assert blocks(role) == [("passage", [], "Inside.")]
    content = "<html><body><p>OUTSIDE</p><div id='content'><p>Inside.</p></div></body></html>"
    assert blocks(content) == [("passage", [], "Inside.")]


def test_title_from_h1_and_breadcrumb_from_folders():
    parsed = parse("<html><body><main><h1>Holiday Rules</h1><p>Text.</p></main></body></html>",
                   name="hr/policies/holidays.htm")
    assert parsed.document.title == "Holiday Rules"
    assert parsed.document.breadcrumb == ["hr", "policies"]
    assert [(b.heading_path, b.text) for b in parsed.blocks] == [([], "Text.")]  # the title h1 is not a heading


def test_url_acl_and_lang_fallbacks():
    html = "<html><head><title>T</title></head><body><p>x</p></body></html>"
    assert parse(html, url="https://intra/x").document.url == "https://intra/x"
    # A base URL is the folder's to apply (workers.folder); the source makes up no link of its own.
    assert parse(html, name="a/b.html", config=IngestConfig(files_base_url="https://files/")).document.url == ""
    doc = parse(html, acl=["hr-team"], lang="de").document
    assert (doc.acl, doc.lang) == (["hr-team"], "de")


def test_lists_tables_code_and_panels():
    html = """<html lang="de"><body><main>
      <h2>Steps</h2>
      <p>Intro</p><p>more intro</p>
      <ul><li>one<ol start="3"><li>three</li><li>four</li></ol></li><li>two</li></ul>
      <dl><dt>VPN</dt><dd>Virtual private network</dd><dt>SSO</dt><dd>Single sign-on</dd></dl>
      <table><tr><th></th><th>Q1</th><th>Q2</th></tr><tr><th>Revenue</th><td>10</td><td>12</td></tr></table>
      <pre class="brush: python">print("hi")</pre>
      <div class="alert alert-danger"><h4 class="alert-heading">Stop</h4><p>Do not deploy on Fridays.</p>
        <ul><li>really</li></ul></div>
      <details><summary>More</summary><p>Hidden text.</p></details>
      <p>Image: <img src="/img/flow.png"> and <img alt="Logo" src="l.png"></p>
    </main></body></html>"""
    parsed = parse(html)
    assert parsed.document.lang == "de"
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("passage", "Intro\nmore intro"),
        ("list", "- one\n  3. three\n  4. four\n- two"),
        ("list", "- VPN: Virtual private network\n- SSO: Single sign-on"),
        ("table", "Table 1 columns: Q1, Q2. Row 1 in Table 1: Revenue: Q1 is 10, and Q2 is 12."),
        ("table_row", "Row 1 in Table 1: Revenue: Q1 is 10, and Q2 is 12"),
        ("code", 'print("hi")'),
        ("panel", "Stop\nDo not deploy on Fridays.\n- really"),
        ("list", "- really"),
        ("passage", "More\nHidden text."),
        ("passage", "Image: [image: flow.png] and [image: Logo]"),
    ]
    assert parsed.blocks[5].meta == {"language": "python"}
    assert parsed.blocks[6].meta == {"panel": "warning", "title": "Stop"}
    assert parsed.blocks[7].meta["panel"] == "warning"


def test_accepts_and_errors():
    source = HtmlSource()
    assert source.accepts(SourceFile("a/B.HTML", b"<p>x</p>"))
    assert source.accepts(SourceFile("b.htm", b"<p>x</p>"))
    assert not source.accepts(SourceFile("c.json", b"{}"))
    with pytest.raises(ParseError) as info:
        parse(b"  \n", name="empty.html")
    assert info.value.source == "empty.html"
    with pytest.raises(ParseError, match="binary"):
        parse(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", name="image.html")


def test_encoding_from_meta_charset():
    html = ('<html><head><meta charset="iso-8859-1"><title>Gr\xfc\xdfe</title></head>'
            '<body><p>\xdcbersicht</p></body></html>')
    parsed = parse(html.encode("latin-1"))
    assert parsed.document.title == "Grüße"
    assert parsed.blocks[0].text == "Übersicht"


def test_encoding_from_a_windows_1252_declaration():
    html = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
            '<title>Reisekosten – Überblick</title></head>'
            '<body><p>Pauschale: 28 € pro Tag, „Hotel“ bis 120 €.</p></body></html>')
    data = html.encode("cp1252")
    assert b"\x80" in data and b"\x96" in data  # bytes that mean €, – only in windows-1252
    parsed = parse(data)
    assert parsed.document.title == "Reisekosten – Überblick"
    assert parsed.blocks[0].text == "Pauschale: 28 € pro Tag, „Hotel“ bis 120 €."


def test_encoding_without_a_declaration_or_by_byte_order_mark():
    html = "<html><head><title>Grüße</title></head><body><p>Straße – café</p></body></html>"
    for data in (html.encode("utf-8"), html.encode("utf-16"), b"\xef\xbb\xbf" + html.encode("utf-8")):
        parsed = parse(data)
        assert (parsed.document.title, parsed.blocks[0].text) == ("Grüße", "Straße – café")
    xml = '<?xml version="1.0" encoding="utf-8"?>' + html
    assert parse(xml.encode("utf-8")).blocks[0].text == "Straße – café"


@pytest.mark.parametrize("text", ["Hello 😀 ok", "€ 😀 €"])  # charset detection took the second for Shift JIS
def test_utf8_without_a_declaration_comes_out_as_written(text):
    parsed = parse(f"<p>{text}</p>".encode("utf-8"))
    assert (parsed.blocks[0].text, parsed.errors) == (text, [])


def test_latin1_declared_as_utf8_is_read_and_the_guess_is_recorded_naming_the_file():
    html = '<html><head><meta charset="utf-8"></head><body><p>Grüße aus der Straße</p></body></html>'
    parsed = parse(html.encode("latin-1"), name="legacy/gruss.html")
    assert parsed.blocks[0].text == "Grüße aus der Straße"
    assert len(parsed.errors) == 1
    assert parsed.errors[0].startswith("legacy/gruss.html: it declares UTF-8 but its bytes are not valid UTF-8")
    assert "read as Windows-1252 and kept, a guess" in parsed.errors[0]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_read_not_refused_as_binary(codec):
    html = "<html><head><title>Grüße</title></head><body><p>Straße – café 😀</p></body></html>"
    parsed = parse(html.encode(codec), name="wide.html")
    assert (parsed.document.title, parsed.blocks[0].text) == ("Grüße", "Straße – café 😀")
    assert parsed.errors == [f"wide.html: it has no byte-order mark; read as {codec.upper()}, told by the pattern "
                             "of its NUL bytes, its text kept"]


def test_text_outside_an_empty_main_element_is_read_with_a_warning_not_lost():
    parsed = parse("<body><main></main><div><p>The night shift hands over at six.</p></div></body>", name="shift.html")
    assert [b.text for b in parsed.blocks] == ["The night shift hands over at six."]
    assert parsed.errors == ["shift.html: its main content (<main>) holds no text; the whole page was read instead"]
