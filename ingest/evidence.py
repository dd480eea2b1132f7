"""The units the product indexes: a source document and its typed evidence."""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

# Evidence kinds, in the order a reader meets them on a page.
PASSAGE = "passage"
LIST = "list"
TABLE = "table"
TABLE_ROW = "table_row"
CODE = "code"
PANEL = "panel"
SECTION = "section"
PDF_PAGE = "pdf_page"
PAGE = "page"  # a whole wiki or HTML page; a PDF's pages are PDF_PAGE
TERM = "term"
PAGE_FACTS = "page_facts"  # what is known about a page itself: title, space, place, who wrote and changed it, when
# What a person calls each kind, as a result list and its type filter say it (a PDF page's result adds its number).
KIND_LABELS = {PASSAGE: "Passage", LIST: "List", TABLE: "Table", TABLE_ROW: "Table row", CODE: "Code", PANEL: "Note",
               SECTION: "Section", PDF_PAGE: "PDF page", PAGE: "Whole page", TERM: "Index term",
               PAGE_FACTS: "Page details"}
# Raised when evidence gains a field or a kind: part of each file's fingerprint (``workers.tasks.fingerprint``),
# so the next ``evident ingest`` after an upgrade redoes every file instead of keeping evidence without it.
# 2: ``defines``, the acronyms the evidence defines. 3: ``author``, who last changed the page. 4: ``space_name``.
# 5: a page's facts in both languages. 6: a page's facts a line a fact group, naming the page ("Page last updated").
FORMAT_VERSION = 6


@dataclass
class Document:
    """One page of a source (a wiki page, an HTML page, a PDF file) and its metadata."""

    doc_id: str  # stable id of the source page, e.g. "confluence:1048790" or "pdf:employee-handbook.pdf"
    source_type: str  # confluence | html | pdf
    url: str  # canonical URL of the page (a PDF's evidence adds #page=N)
    title: str
    breadcrumb: list[str] = field(default_factory=list)  # ancestor titles, root first
    space: str = ""
    labels: list[str] = field(default_factory=list)
    acl: list[str] = field(default_factory=list)  # principals allowed to read (ingest.principals); empty = public
    acl_inherited: list[list[str]] = field(default_factory=list)  # levels above acl, each must admit the reader
    lang: str = ""
    updated: str = ""  # ISO-8601 date of the last version, when known
    author: str = ""  # who wrote it (a wiki page's creator, a PDF's or web page's author), when known
    space_name: str = ""  # the space's name where ``space`` holds its key
    created: str = ""  # ISO-8601 date of the first version, when known
    editor: str = ""  # who made the last version, when known
    version: int | None = None  # the number of the last version, when known
    attachments: list[str] = field(default_factory=list)  # file names attached to the page


@dataclass
class Evidence:
    """A typed unit of a page with the context that makes it findable.

    ``text`` is the raw content (what a snippet shows); ``context`` is the
    contextualized text that is indexed and embedded (title, breadcrumb,
    heading path, neighbours around the raw content).
    """

    id: str
    doc_id: str
    kind: str
    url: str
    title: str
    text: str
    heading_path: list[str] = field(default_factory=list)
    breadcrumb: list[str] = field(default_factory=list)
    section_id: str = ""
    position: int = 0  # order of the evidence within its document
    context: str = ""
    prev_text: str = ""
    next_text: str = ""
    lang: str = ""
    acl: list[str] = field(default_factory=list)
    acl_inherited: list[list[str]] = field(default_factory=list)
    space: str = ""
    space_name: str = ""  # the space's name, as a result and the space filter show it ("Operations" for OPS)
    labels: list[str] = field(default_factory=list)
    source_type: str = ""
    updated: str = ""
    # Who last changed the page (a wiki page's last editor, else its creator; a PDF's or web page's author), shown
    # beside ``updated`` in a result and filtered on as a facet.
    author: str = ""
    created: str = ""  # ISO-8601 date of the page's first version, when known
    page_simhash: str = ""  # the page's text signature (``text.simhash``), for near-duplicate pages
    page: int | None = None  # 1-based PDF page
    keywords: list[str] = field(default_factory=list)
    summary: str = ""
    # The sentence view: each sentence of a leaf evidence after its page's title ("Acronyms: Row 7 ... CSM ..."),
    # embedded one by one, so a question can meet the one sentence that answers it (``search.sentences``).
    sentences: list[str] = field(default_factory=list)
    lemmas: str = ""  # lowercased lookup lemmas of the context, space separated
    # The acronyms the evidence defines, as "IC = Incident Commander" (``text.acronyms``): a glossary row's, or
    # its prose's in parentheses, so a question asking "IC?" also searches the words the pages write out.
    defines: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)  # kind-specific facts (table/row numbers, OCR confidence, term links)

    def to_dict(self) -> dict:
        return asdict(self)


def evidence_id(doc_id: str, *parts: object) -> str:
    """Deterministic id from the source and the position, so re-ingesting replaces instead of duplicating."""
    key = "\x1f".join([doc_id, *map(str, parts)])
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]
