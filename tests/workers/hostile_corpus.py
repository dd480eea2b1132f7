"""A hostile or careless corpus written into a folder, each file with what a user should get from ingesting it.

``write_corpus(root)`` writes the sources ``hostile/`` (one folder given to the ingest, most cases in
subfolders), ``c1/site`` and ``c2/site`` (a file of the same relative name in each), ``acl-site`` (a page whose
manifest later gains an ``acl``) and ``outside/`` (canary files nothing may read or index), and returns the
cases. A case's expectation is what a user should see, not what the code does today:

- ``INDEXED``: its marker word is searchable; with a ``reason``, a record naming the file says so (a warning:
  truncated, flattened, partially indexed);
- ``SKIPPED`` / ``FAILED``: nothing of it is in the index, and a record naming the file, a sentence, matches
  ``reason`` (a regular expression of the words such a sentence uses, not one implementation's wording);
- ``EITHER``: a limit case that may be flattened (indexed with a warning matching ``reason``) or refused (not
  indexed, a record matching ``reason``); never indexed silently cut, never silently emptied;
- ``PAIRED``: two files claiming one identity (a repeated page id): exactly one is indexed, whichever a worker
  took first, and the other's record matches ``reason`` (naming both files).

Every file holds its own marker word (``hcase<n>``), also inside binary garbage, so what reached the index is
told by searching, whatever doc ids the ingest gives.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

import pymupdf

INDEXED, SKIPPED, FAILED, EITHER, PAIRED = "indexed", "skipped", "failed", "either", "one of a pair"
CANARY = "zebracanary4417"  # the word only the outside files hold: never in the index
BIG_HTML_BYTES = 20 * 1024 * 1024  # the stalling file: 20 MB of HTML
NESTING = 100_000  # elements nested inside each other, the empty-result page
# Rows of a big table, indexed row by row. The table had 5,000 and took 333 s, by work that grew faster
# than its bytes; that bound is held per byte in tests/ingest/test_limits.py, and more rows only add embedding here
# (each row is an evidence of its own: 1,000 rows took a worker process a minute of embedding).
TABLE_ROWS = 200
SPAN_BOMB = 1_000_000  # rowspan and colspan of one cell: a trillion cells if expanded
LONG_ID = 40_000  # characters of a page id and a label: OpenSearch refuses ids over 512 bytes
HUGE_LINE_BYTES = 4 * 1024 * 1024  # one line without a newline or a sentence end
GARBAGE_BYTES = 64 * 1024  # random bytes named like a document
SEED = 17  # the garbage is the same on every run, so a failure can be looked at again
WIKI_BASE = "https://wiki.example.org"
SITE_BASE = "https://intranet.example.org/"
OUTSIDE_REASON = (r"outside|escap|climbs? out|only files (?:inside|within|under)|not (?:inside|within|under)|"
                  r"symlink|symbolic link")
SENTENCE_OF_SIZE = r"limit|large|bytes|size|MB|truncat|time"


@dataclass(frozen=True)
class Case:
    path: str  # relative to the corpus root; the file's base name is unique in the corpus unless the case is a clash
    expect: str
    reason: str = ""  # a regular expression (case-insensitive) the record's sentence matches
    marker: str = ""  # the word only this file holds
    why: str = ""  # what is hostile about it


class Corpus:
    """The folder being written and the cases so far."""

    def __init__(self, root: Path):
        self.root = root
        self.cases: list[Case] = []
        self.random = random.Random(SEED)

    def marker(self) -> str:
        return f"hcase{len(self.cases):03d}"

    def folder(self, relative: str, manifest: dict | None = None) -> Path:
        """A folder with a manifest giving its files a web URL (or the ``manifest`` given)."""
        path = self.root / relative
        path.mkdir(parents=True, exist_ok=True)
        data = manifest if manifest is not None else {"base": f"{SITE_BASE}{relative}/"}
        (path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
        return path

    def add(self, relative: str, data: bytes | None, expect: str, reason: str = "", why: str = "",
            marker: str = "") -> Case:
        """Write ``data`` (None: the caller makes the file) and record the case."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is not None:
            path.write_bytes(data)
        case = Case(relative, expect, reason, marker, why)
        self.cases.append(case)
        return case


def page_text(marker: str, body: str = "") -> str:
    return (f"<!doctype html><html><head><title>Page {marker}</title></head><body><h1>Page {marker}</h1>"
            f"<p>The {marker} procedure explains how requests are approved by the team lead.</p>{body}"
            f"</body></html>")


def html(marker: str, body: str = "") -> bytes:
    return page_text(marker, body).encode()


def wiki_page(page_id: str, marker: str, **changes) -> dict:
    """A Confluence REST page (``GET /rest/api/content/<id>?expand=body.storage,...``), open to everyone."""
    page = {"id": page_id, "type": "page", "status": "current", "title": f"Wiki {marker}",
            "space": {"key": "OPS", "name": "Operations"}, "ancestors": [{"id": "1", "title": "Home"}],
            "version": {"number": 3, "when": "2025-01-10T10:00:00.000Z"},
            "metadata": {"labels": {"results": [{"name": "howto"}]}},
            "restrictions": {"read": {"restrictions": {"user": {"results": []}, "group": {"results": []}}}},
            "body": {"storage": {"value": f"<p>The {marker} checklist lists what to prepare before a release.</p>",
                                 "representation": "storage"}},
            "_links": {"base": WIKI_BASE, "webui": f"/spaces/OPS/pages/{page_id}"}}
    page.update(changes)
    return page


def pdf(marker: str, pages: int = 2) -> bytes:
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page()
        page.insert_text((72, 72), f"Manual page {number}", fontsize=16)
        page.insert_text((72, 110), f"The {marker} valve is checked every week on page {number}.", fontsize=11)
    data = doc.tobytes()
    doc.close()
    return data


def write_corpus(root: Path) -> list[Case]:
    """Write the whole corpus under ``root``; returns its cases, good files first."""
    corpus = Corpus(root)
    for group in (_good, _paths, _manifests, _wiki, _html, _pdf, _csv, _clashes):
        group(corpus)
    return corpus.cases


def _good(c: Corpus) -> None:
    c.folder("hostile/good")
    for name in ("guide.html", "notes.html", "faq.htm", "UPPER.HTML"):
        m = c.marker()
        c.add(f"hostile/good/{name}", html(m), INDEXED, marker=m, why="a plain page")
    m = c.marker()
    c.add("hostile/good/runbook.json", json.dumps(wiki_page("880001", m)).encode(), INDEXED, marker=m,
          why="a plain Confluence page")
    m = c.marker()
    c.add("hostile/good/manual.pdf", pdf(m), INDEXED, marker=m, why="a plain two-page PDF")
    m = c.marker()
    c.add("hostile/good/latin1.html", page_text(m, "<p>Stra\xdfe und Gr\xfc\xdfe f\xfcr das Team.</p>").encode(
        "latin-1"), INDEXED, marker=m, why="not UTF-8 (Latin-1), still a page")
    m = c.marker()
    c.add("hostile/good/utf16.html", b"\xff\xfe" + page_text(m).encode("utf-16-le"), INDEXED, marker=m,
          why="UTF-16 with a byte order mark")


def _paths(c: Corpus) -> None:
    outside = c.root / "outside"
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.pdf").write_bytes(pdf(CANARY, pages=1))
    (outside / "secret.html").write_bytes(html(CANARY))
    c.folder("hostile/links")
    m = c.marker()
    target = c.add("hostile/links/secret-link.pdf", None, SKIPPED, OUTSIDE_REASON, "a symlink to a PDF outside", m)
    (c.root / target.path).symlink_to(outside / "secret.pdf")
    m = c.marker()
    target = c.add("hostile/links/secret-rel.html", None, SKIPPED, OUTSIDE_REASON,
                   "a relative symlink to an HTML outside", m)
    (c.root / target.path).symlink_to(Path("../../outside/secret.html"))
    m = c.marker()
    c.add("hostile/links/loop-a.html", None, SKIPPED, r"symlink|symbolic link|loop", "a symlink loop (a -> b -> a)",
          m)
    c.add("hostile/links/loop-b.html", None, SKIPPED, r"symlink|symbolic link|loop", "the loop's other end", m)
    (c.root / "hostile/links/loop-a.html").symlink_to("loop-b.html")
    (c.root / "hostile/links/loop-b.html").symlink_to("loop-a.html")
    m = c.marker()
    c.add("hostile/links/dangling.html", None, SKIPPED, r"symlink|symbolic link|dangling|missing|no such|not exist",
          "a symlink to nothing", m)
    (c.root / "hostile/links/dangling.html").symlink_to("gone.html")
    m = c.marker()
    c.add("hostile/links/fifo.html", None, SKIPPED, r"regular file|fifo|pipe|special",
          "a named pipe: reading it would block the submitter forever", m)
    os.mkfifo(c.root / "hostile/links/fifo.html")
    c.folder("hostile/escape")
    m = c.marker()
    rows = [f"Secret {n},../../outside/secret.pdf,1" for n in range(3)]
    c.add("hostile/escape/relative.csv", ("term,file,page\n" + "\n".join(rows) + "\n").encode(), SKIPPED,
          OUTSIDE_REASON, "an index whose targets climb out with ..", m)
    m = c.marker()
    rows = [f"Secret {n},{outside / 'secret.pdf'},1" for n in range(3)]
    c.add("hostile/escape/absolute.csv", ("term,file,page\n" + "\n".join(rows) + "\n").encode(), SKIPPED,
          OUTSIDE_REASON + "|absolute", "an index whose targets are absolute paths outside", m)


def _manifests(c: Corpus) -> None:
    m = c.marker()
    c.folder("hostile/jsurl", {"files": [{"file": "jspage.html", "url": "javascript:alert(document.cookie)"}]})
    c.add("hostile/jsurl/jspage.html", html(m), FAILED, r"javascript|scheme|http", "a javascript: manifest url", m)
    m = c.marker()
    c.folder("hostile/jsbase", {"base": "javascript:alert(1)//"})
    c.add("hostile/jsbase/jsbased.html", html(m), FAILED, r"javascript|scheme|http", "a javascript: manifest base", m)
    m = c.marker()
    c.folder("hostile/nofile", {"base": f"{SITE_BASE}nofile/", "files": [{"url": f"{SITE_BASE}orphan"}]})
    c.add("hostile/nofile/beside.html", html(m), INDEXED, r"manifest|entry",
          "its manifest has an entry without 'file': the others still apply", m)
    m = c.marker()
    c.folder("hostile/badmanifest")
    (c.root / "hostile/badmanifest/manifest.json").write_text('{"base": "https://x.example.org/", "files": [',
                                                              encoding="utf-8")
    c.add("hostile/badmanifest/governed.html", html(m), FAILED, r"manifest",
          "its manifest is broken JSON: the ACL it may give is unknown, so it is not indexed as public", m)
    m = c.marker()
    c.folder("hostile/aclstring", {"base": f"{SITE_BASE}aclstring/",
                                   "files": [{"file": "restricted.html", "acl": "hr-team"}]})
    c.add("hostile/aclstring/restricted.html", html(m), FAILED, r"acl",
          "its manifest acl is a string, not a list: read as letters it would admit groups 'h', 'r', ...", m)


def _wiki(c: Corpus) -> None:
    c.folder("hostile/wiki")
    cases = [
        ("body-list.json", {"body": [{"storage": "x"}]}, FAILED, r"body", "body is a list"),
        ("title-number.json", {"title": 12345}, INDEXED, "", "title is a number: a fine title"),
        ("ancestors-str.json", {"ancestors": "Home"}, EITHER, r"ancestor", "ancestors is a string"),
        ("version-str.json", {"version": "3"}, EITHER, r"version", "version is a string"),
        ("storage-number.json", {"body": {"storage": {"value": 42}}}, FAILED, r"body|storage", "the body is a number"),
        ("labels-str.json", {"metadata": {"labels": "howto"}}, EITHER, r"label", "labels is a string"),
        ("space-list.json", {"space": ["OPS"]}, EITHER, r"space", "space is a list"),
        ("links-js.json", {"_links": {"base": "javascript:alert(1)//", "webui": "/x"}}, FAILED,
         r"javascript|scheme|http", "_links.base is javascript:"),
        ("links-data.json", {"_links": {"base": "data:text/html,<script>alert(1)</script>", "webui": "/x"}},
         FAILED, r"data:|scheme|http", "_links.base is a data: URL"),
        ("restrictions-str.json", {"restrictions": "hr-team"}, FAILED, r"restriction",
         "restrictions is a string: who may read it is unknown, so it is not indexed as public"),
    ]
    for n, (name, changes, expect, reason, why) in enumerate(cases):
        m = c.marker()
        c.add(f"hostile/wiki/{name}", json.dumps(wiki_page(f"88{n + 1:04d}0", m, **changes)).encode(), expect,
              reason, why, m)
    m = c.marker()
    c.add("hostile/wiki/long-id.json", json.dumps(wiki_page("7" * LONG_ID, m)).encode(), EITHER,
          r"\bid\b|long|characters", "a 40,000-character page id", m)
    m = c.marker()
    c.add("hostile/wiki/long-label.json", json.dumps(wiki_page("880100", m, metadata={"labels": {"results": [
        {"name": "x" * LONG_ID}]}})).encode(), EITHER, r"label|long|characters", "a 40,000-character label", m)
    m = c.marker()
    c.add("hostile/wiki/array.json", json.dumps([wiki_page("880101", m)]).encode(), FAILED,
          r"object|page|list|array", "a JSON array, not a page", m)
    m = c.marker()
    c.add("hostile/wiki/not-a-page.json", json.dumps({"name": m, "size": 3}).encode(), FAILED,
          r"body|page|confluence", "a JSON object that is no Confluence page", m)
    m = c.marker()
    c.add("hostile/wiki/deep.json", (b'{"id": "880102", "x": ' + b"[" * NESTING + b"]" * NESTING
                                     + f', "title": "{m}"}}'.encode()), FAILED, r"deep|nest|depth",
          "JSON nested 100,000 deep", m)
    m = c.marker()
    c.add("hostile/wiki/deep-body.json", json.dumps(wiki_page("880103", m, body={"storage": {
        "value": f"<p>The {m} note.</p>" + "<div>" * NESTING + "deep" + "</div>" * NESTING}})).encode(),
          EITHER, r"deep|nest|depth", "a storage body nested 100,000 deep", m)
    m = c.marker()
    c.add("hostile/wiki/garbage.json", b"{" + m.encode() + bytes(c.random.getrandbits(8) for _ in range(GARBAGE_BYTES)),
          FAILED, r"binary|JSON|decod|UTF-8|not text", "binary garbage named .json", m)
    m = c.marker()
    c.add("hostile/wiki/latin1.json", json.dumps(wiki_page("880104", m, title="Gr\xfc\xdfe"),
                                                 ensure_ascii=False).encode("latin-1"),
          FAILED, r"UTF-8|encod|decod", "JSON that is not UTF-8", m)
    m = c.marker()
    c.add("hostile/wiki/empty.json", b"", FAILED, r"empty", "an empty file", m)
    m = c.marker()
    restricted = json.dumps(wiki_page("880105", m, restrictions={"read": {"restrictions": {"group": {"results": [
        {"name": ACL_GROUP}]}}}}))
    c.add("hostile/wiki/restrictions-twice.json", (restricted[:-1] + ', "restrictions": {}}').encode(), FAILED,
          r"'restrictions' appears twice", "restrictions given twice, the last empty: read as public, last key wins", m)
    m = c.marker()
    c.add("hostile/wiki/big_number.json", (json.dumps(wiki_page("880106", m))[:-1] + ', "size": ' + "9" * 5_000
                                           + "}").encode(), FAILED, r"5,000 digits", "a number of 5,000 digits", m)
    m = c.marker()
    c.add("hostile/wiki/surrogate.json", json.dumps(wiki_page("880107", m, excerpt="a\ud800b")).encode(), FAILED,
          r"surrogate", "a lone surrogate escape, which no text can store", m)
    m = c.marker()
    c.add("hostile/wiki/utf16.json", json.dumps(wiki_page("880108", m)).encode("utf-16-le"), INDEXED, marker=m,
          why="UTF-16 without a byte order mark")
    c.folder("hostile/dupe")
    m = c.marker()
    both = r"first\.json.*second\.json|second\.json.*first\.json"
    c.add("hostile/dupe/first.json", json.dumps(wiki_page("880200", m)).encode(), PAIRED, both,
          "a page; another file repeats its id", m)
    m = c.marker()
    c.add("hostile/dupe/second.json", json.dumps(wiki_page("880200", m)).encode(), PAIRED, both,
          "the same page id as first.json: one is indexed, the other's error names both files", m)


def _html(c: Corpus) -> None:
    c.folder("hostile/html")
    m = c.marker()
    c.add("hostile/html/rowspan.html", html(m, "".join(
        f"<table><tr><td rowspan={SPAN_BOMB} colspan={SPAN_BOMB}>cell {n}</td><td>b</td></tr>"
        f"<tr><td>c</td></tr></table>" for n in range(5))), INDEXED, r"span|cells",
        "rowspan and colspan bombs: the text stays, the spans are clipped with a warning", m)
    m = c.marker()
    rows = "".join(f"<tr><td>Item {n}</td><td>{n * 3} units</td><td>Shelf {n % 40}</td></tr>"
                   for n in range(TABLE_ROWS))
    c.add("hostile/html/rows.html",
          html(m, f"<table><tr><th>Item</th><th>Stock</th><th>Place</th></tr>{rows}</table>"),
          INDEXED, "", f"a {TABLE_ROWS:,}-row table: indexed (a warning when rows are cut is fine)", m)
    m = c.marker()
    c.add("hostile/html/nested.html", html(m, "<div>" * NESTING + "<p>deep text</p>" + "</div>" * NESTING), EITHER,
          r"deep|nest|depth", "HTML nested 100,000 deep", m)
    m = c.marker()
    c.add("hostile/html/garbage.html", m.encode() + b" " + bytes(c.random.getrandbits(8) for _ in range(GARBAGE_BYTES)),
          FAILED, r"binary|not text|not html|garbage", "binary garbage named .html", m)
    m = c.marker()
    c.add("hostile/html/nul.html", html(m).replace(b"<p>", b"<p>\x00\x00\x00"), EITHER, r"binary|NUL",
          "a page with a few NUL bytes: read without them, or refused as binary, with a word either way", m)
    m = c.marker()
    c.add("hostile/html/empty.html", b"", FAILED, r"empty", "an empty file", m)
    m = c.marker()
    c.add("hostile/html/blank.html", b"  \n\t\n  ", FAILED, r"empty|no text|blank", "only whitespace", m)
    m = c.marker()
    c.add("hostile/html/script-only.html", f"<html><script>var {m} = 1;</script></html>".encode(), FAILED,
          r"no (?:readable )?text|empty|nothing", "no readable text, only a script", m)
    m = c.marker()
    c.add("hostile/html/invalid-utf8.html", html(m, "<p>broken XX bytes</p>").replace(b"XX", b"\xff\xfe\xc3("),
          INDEXED, "", "invalid UTF-8 sequences inside a page", m)
    m = c.marker()
    c.add("hostile/html/oneline.html", html(m, "<p>" + "word " * (HUGE_LINE_BYTES // 5) + "</p>"), EITHER,
          SENTENCE_OF_SIZE + r"|evidence", "4 MB in one line without a sentence end", m)
    m = c.marker()
    c.add("hostile/html/attribute.html", html(m, f'<p title="{"a" * HUGE_LINE_BYTES}">short</p>'), INDEXED, "",
          "a 4 MB attribute value", m)
    m = c.marker()
    c.add("hostile/html/utf16-no-bom.html", page_text(m).encode("utf-16-le"), INDEXED, r"UTF-16",
          "UTF-16 without a byte order mark: its NUL bytes are halves of characters, not binary data", m)
    m = c.marker()
    c.add("hostile/html/latin1-as-utf8.html", page_text(m, "<p>Gr\xfc\xdfe aus der Stra\xdfe</p>").replace(
        "<head>", '<head><meta charset="utf-8">').encode("latin-1"), INDEXED, r"declares UTF-8.*guess",
          "Latin-1 declared as UTF-8: read, and the guess said", m)
    m = c.marker()
    c.add("hostile/html/bogus-charset.html", html(m).replace(b"<head>", b'<head><meta charset="x-no-such">'),
          INDEXED, "", "a charset nobody knows", m)
    m = c.marker()
    c.add("hostile/html/pdf-named.html", pdf(m), FAILED, r"binary|not text|not html|PDF",
          "a PDF named .html", m)
    m = c.marker()
    c.add("hostile/html/huge.html", None, EITHER, SENTENCE_OF_SIZE,
          "20 MB of HTML: the issue's 17-minute stall (written by write_big_file, removed after the ingest)", m)


def write_big_file(root: Path, case: Case) -> None:
    """The 20 MB HTML file, written only for the ingest and deleted after it (``remove_big_file``)."""
    paragraph = f"<p>Section {{n}}: the {case.marker} rule says how stock is counted at each shelf.</p>\n"
    count = BIG_HTML_BYTES // len(paragraph)
    (root / case.path).write_bytes(html(case.marker, "".join(paragraph.format(n=n) for n in range(count))))


def _pdf(c: Corpus) -> None:
    c.folder("hostile/pdf")
    m = c.marker()
    cyclic = (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
              b"2 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n"
              b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >> endobj\n"
              b"4 0 obj << /Length 44 >> stream\nBT /F1 12 Tf 72 712 Td (" + m.encode() + b") Tj ET\nendstream endobj\n"
              b"trailer << /Root 1 0 R >>\n%%EOF\n")
    c.add("hostile/pdf/cyclic.pdf", cyclic, EITHER, r"page tree|cycl|loop|damaged|broken|repair|cannot",
          "its page tree holds itself: its readable page kept with a warning, or refused", m)
    m = c.marker()
    whole = pdf(m, pages=3)
    c.add("hostile/pdf/truncated.pdf", whole[: len(whole) // 2], EITHER, r"truncat|damaged|broken|repair|cannot",
          "cut off half way", m)
    m = c.marker()
    doc = pymupdf.open(stream=pdf(m), filetype="pdf")
    encrypted = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")
    doc.close()
    c.add("hostile/pdf/encrypted.pdf", encrypted, FAILED, r"encrypt|password", "needs a password", m)
    m = c.marker()
    doc = pymupdf.open()
    for number in (1, 2):
        doc.new_page().insert_text((72, 72), f"{m} good pdf delta page {number}", fontsize=11)
    c.add("hostile/pdf/one-line-pages.pdf", doc.tobytes(), INDEXED, marker=m,
          why="each page's only line in the header margin, differing in its page number: no running header")
    doc.close()
    m = c.marker()
    doc = pymupdf.open(stream=pdf(m), filetype="pdf")
    owner_only = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner")
    doc.close()
    c.add("hostile/pdf/owner-encrypted.pdf", owner_only, INDEXED, r"encrypt", "encrypted with an owner password only",
          m)
    m = c.marker()
    c.add("hostile/pdf/header-only.pdf", b"%PDF-1.7\n" + m.encode() + b"\n%%EOF\n", FAILED,
          r"damaged|broken|cannot|no pages|empty|not a", "a PDF header and nothing else", m)
    m = c.marker()
    c.add("hostile/pdf/html-named.pdf", html(m), FAILED, r"PDF|damaged|broken|cannot|not a",
          "an HTML page named .pdf", m)
    m = c.marker()
    c.add("hostile/pdf/empty.pdf", b"", FAILED, r"empty", "an empty file", m)


def _csv(c: Corpus) -> None:
    c.folder("hostile/csv")
    m = c.marker()
    c.add("hostile/csv/target.pdf", pdf(m), INDEXED, marker=m, why="a plain PDF the broken indexes point at")
    m = c.marker()
    c.add("hostile/csv/quotes.csv", f'term,file,page\n"{m} unclosed,target.pdf,1\nB,target.pdf,1\n'.encode(),
          SKIPPED, r"index|record|row|quote|csv", "an unclosed quote swallowing the rest", m)
    m = c.marker()
    c.add("hostile/csv/nul.csv", f"term,file,page\n{m}\x00,target.pdf,1\nB\x00,target.pdf,2\n".encode(), SKIPPED,
          r"index|record|row|NUL|csv|binary", "NUL bytes in a CSV", m)
    m = c.marker()
    c.add("hostile/csv/header-only.csv", f"term,file,page\n".encode(), SKIPPED, r"index|record|row|no ",
          "a header and no rows: nothing to index, and the user is told", m)
    m = c.marker()
    c.add("hostile/csv/field.csv", f'term,file,page\n{m}{"x" * 200_000},target.pdf,1\n'.encode(), SKIPPED,
          r"index|record|row|field|csv|long|limit", "a field over the csv module's 131,072-character limit", m)
    m = c.marker()
    c.add("hostile/csv/pages.csv", "term,file,page\n".encode() + "".join(
        f"{m} {n},target.pdf,page {n}\n" for n in range(3)).encode(), SKIPPED, r"page|index|record",
        "page numbers that are no numbers", m)
    m = c.marker()
    c.add("hostile/csv/missing.csv", "term,file,page\n".encode() + "".join(
        f"{m} {n},nowhere.pdf,1\n" for n in range(3)).encode(), SKIPPED, r"nowhere\.pdf",
        "an index pointing at a file that is not there: the record names it", m)
    m = c.marker()
    c.add("hostile/csv/oneline.csv", (m + "," + "y," * (HUGE_LINE_BYTES // 2)).encode(), SKIPPED,
          r"index|record|row|csv|long|limit", "4 MB in one CSV line", m)
    m = c.marker()
    c.add("hostile/csv/garbage.csv", m.encode() + bytes(c.random.getrandbits(8) for _ in range(GARBAGE_BYTES)),
          SKIPPED, r"binary|index|csv|decod|UTF-8", "binary garbage named .csv", m)
    m = c.marker()
    c.add("hostile/csv/empty.csv", b"", SKIPPED, r"empty", "an empty file", m)


def _clashes(c: Corpus) -> None:
    """``c1/site`` and ``c2/site``: two sources with a file of the same relative name; ``acl-site``: a page whose
    manifest gains an acl between two ingests (``restrict_acl_site``)."""
    for source, names in (("c1/site", ("a.html", "b.html")), ("c2/site", ("a.html",))):
        c.folder(source, {"base": f"{SITE_BASE}{source.split('/')[0]}/"})
        for name in names:
            m = c.marker()
            c.add(f"{source}/{name}", html(m), INDEXED, marker=m, why=f"a page of {source}")
    m = c.marker()
    c.folder("acl-site", {"base": f"{SITE_BASE}acl/", "files": [{"file": "salaries.html"}]})
    c.add("acl-site/salaries.html", html(m), INDEXED, marker=m, why="public now; restricted by the next manifest")


ACL_GROUP = "hr-team"


def restrict_acl_site(root: Path) -> None:
    """The manifest of ``acl-site`` gives its page a read group: a re-ingest must make it restricted."""
    (root / "acl-site/manifest.json").write_text(json.dumps(
        {"base": f"{SITE_BASE}acl/", "files": [{"file": "salaries.html", "acl": [ACL_GROUP]}]}), encoding="utf-8")
