"""PDF files: text pages with their structure recovered, scanned pages through OCR.

A text page is read line by line (``pdf_layout``): running headers, footers and page numbers are
dropped; headings, lists and paragraphs are recognised (``pdf_structure``); ruled tables are found
and verbalized with ``ingest.tables`` and their text is kept out of the passages (``pdf_tables``).
Here the pieces become blocks: the lines of a paragraph are joined (words hyphenated at a line end
joined, real hyphens kept: ``text.hyphenation``), a paragraph cut by a page break is finished on the
page where it starts and its rest opens the next page's passage too (a link to that page shows the words
there), consecutive paragraphs under one heading on one page become one ``passage`` block, and each list
one ``list`` block.

A page without a text layer but with images is rendered and read by Tesseract (``pdf_ocr``); its
blocks carry ``{"ocr": True, "ocr_confidence": mean word confidence}``. Every page also yields one
``pdf_page`` block with its whole clean text, under the headings in force where the page begins (its
context names the section its first words continue). Problems with single pages are recorded in
``ParsedDocument.errors``; a file that cannot be read at all, that needs a password to open or that holds no
text at all raises ParseError. One encrypted with an owner password only (it opens without one) is read, with a
warning saying so.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

import pymupdf

from ingest import evidence as kinds
from ingest.blocks import Block, ParsedDocument, ParseError
from ingest.config import IngestConfig
from ingest.evidence import Document
from ingest.sources import SourceFile
from ingest.sources.pdf_layout import (TERMINAL, Line, Page, PageError, drop_running_lines, mark_paragraph_starts,
                                       text_lines)
from ingest.sources.pdf_ocr import OCR_TIMEOUT_SECONDS, Ocr
from ingest.sources.pdf_structure import Heading, HeadingStyles, ItemList, Para, structure
from ingest.sources.pdf_tables import Table, find_tables, place_tables
from ingest.tables import table_blocks
from text.hyphenation import join_line, join_lines, vocabulary

if hasattr(pymupdf, "no_recommend_layout"):
    pymupdf.no_recommend_layout()  # find_tables() would otherwise print an advertisement on stdout

# A page with fewer text-layer characters than this (and images) is treated as scanned.
MIN_TEXT_CHARS = 20
# Share of the page that images must cover for a page without text to be OCRed.
MIN_IMAGE_COVER = 0.2
# A page's first paragraph continues the previous page's last when that last line reaches to within
# this many line heights of the paragraphs' right edge (it was cut by the page break, not ended).
_FULL_LINE = 3.0
_REASONS_SHOWN = 3  # of a PDF's page problems, in the sentence refusing a PDF without any text: the first few
_OTHER_KINDS = (".html", ".htm", ".json")  # names other sources read: PDF bytes under them are a mistake


# --------------------------------------------------------------------------- the source

class PdfSource:
    name = "pdf"

    def __init__(self, tesseract_cmd: str | None = None, ocr_timeout: float = OCR_TIMEOUT_SECONDS):
        self.tesseract_cmd = tesseract_cmd  # None: "tesseract" on PATH
        self.ocr_timeout = ocr_timeout

    def accepts(self, file: SourceFile) -> bool:
        """A ``.pdf``, or PDF bytes under a name of no other source's kind (a named HTML or JSON file is one)."""
        name = file.name.lower()
        return name.endswith(".pdf") or (not name.endswith(_OTHER_KINDS) and file.data[:1024].lstrip()[:5] == b"%PDF-")

    def parse(self, file: SourceFile, config: IngestConfig) -> ParsedDocument:
        doc = _open(file)
        try:
            return self._parse(doc, file, config)
        finally:
            doc.close()

    # ------------------------------------------------------------------ internals

    def _parse(self, doc: pymupdf.Document, file: SourceFile, config: IngestConfig) -> ParsedDocument:
        errors: list[str] = []
        if doc.is_repaired:
            errors.append(f"damaged PDF repaired on reading ({_mupdf_warning() or 'xref rebuilt'}); "
                          "what could be read kept")
        ocr = Ocr(self.tesseract_cmd, config, self.ocr_timeout)
        pages: list[Page] = []
        unreadable: list[str] = []
        for pno in range(doc.page_count):
            try:
                page = doc[pno]
                pages.append(self._read_page(page, pno + 1, ocr, errors))
            except PageError as exc:
                unreadable.append(f"page {pno + 1}: {exc}")
                pages.append(Page(pno + 1, 0, 0))
            except Exception as exc:  # a broken page must not take the file with it
                unreadable.append(f"page {pno + 1} could not be read ({type(exc).__name__}: {exc})")
                pages.append(Page(pno + 1, 0, 0))
        if len(unreadable) == len(pages):
            raise ParseError(file.name, f"none of its {len(pages)} page(s) could be read ({unreadable[0]})")
        errors.extend(f"{problem}; the page skipped" for problem in unreadable)
        errors.extend(ocr.notes)

        drop_running_lines(pages)
        words = vocabulary(item.text for page in pages for item in page.items if isinstance(item, Line))
        mark_paragraph_starts(pages)
        headings = HeadingStyles(pages)
        structured = [structure(page, headings) for page in pages]
        blocks = _emit(pages, structured, words)
        if not blocks:
            found = "; ".join(errors[:_REASONS_SHOWN])
            raise ParseError(file.name, f"no text on any of its {len(pages)} page(s)" + (f" ({found})" if found else
                                        " (no text layer, and no page mostly an image for OCR to read)"))
        meta = doc.metadata or {}
        if meta.get("encryption"):  # one that needs a password to open was refused by ``_open``
            copying = "" if doc.permissions & pymupdf.PDF_PERM_COPY else ", though its permissions forbid copying it"
            errors.append(f"encrypted ({meta['encryption']}) with an owner password only, which restricts what "
                          f"readers may do but is not needed to open it: its text read and kept{copying}")
        errors = [f"{file.name}: {error}" for error in errors]

        title = file.title or _metadata_title(meta.get("title")) or headings.title or PurePosixPath(file.name).stem
        document = Document(
            doc_id=file.doc_id("pdf", file.name), source_type="pdf", url=file.url, title=title,
            acl=list(file.acl), lang=file.lang or "",
            updated=_pdf_date(meta.get("modDate") or meta.get("creationDate") or ""),
            author=(meta.get("author") or "").strip(),
            created=_pdf_date(meta.get("creationDate") or ""),
        )
        return ParsedDocument(document, blocks, errors)

    def _read_page(self, page: pymupdf.Page, number: int, ocr: Ocr, errors: list[str]) -> Page:
        rect = page.rect
        out = Page(number, rect.width, rect.height)
        lines = text_lines(page)
        chars = sum(len(ln.text.replace(" ", "")) for ln in lines)
        if chars < MIN_TEXT_CHARS and _image_cover(page) >= MIN_IMAGE_COVER:
            if not ocr.available:
                raise PageError(f"no text layer and OCR unavailable ({ocr.unavailable_reason})")
            out.items, out.ocr_confidence = ocr.read(page)
            out.ocr = True
            if not out.items:
                errors.append(f"page {number}: OCR found no text; the page left out")
            return out
        try:
            tables = find_tables(page, lines)
        except Exception as exc:
            errors.append(f"page {number}: table detection failed ({type(exc).__name__}: {exc}); its text kept as passages")
            tables = []
        out.items = place_tables(lines, tables)
        return out


def _open(file: SourceFile) -> pymupdf.Document:
    if not file.data:
        raise ParseError(file.name, "empty file (no bytes, or only whitespace)")
    if b"%PDF-" not in file.data[:1024]:
        raise ParseError(file.name, "not a PDF (no %PDF- header)")
    truncated = b"%%EOF" not in file.data[-2048:]
    _mupdf_warning()  # reset MuPDF's warning buffer
    try:
        doc = pymupdf.open(stream=file.data, filetype="pdf")
    except Exception as exc:
        reason = "truncated PDF (no %%EOF marker at the end)" if truncated else "corrupt PDF"
        raise ParseError(file.name, f"{reason} that cannot be opened ({type(exc).__name__}: {exc})") from None
    if doc.needs_pass:
        doc.close()
        raise ParseError(file.name, "an encrypted PDF that opens only with a password, which ingest is not "
                                    "given (an unencrypted copy would be read)")
    if doc.is_repaired and truncated:
        doc.close()
        raise ParseError(file.name, "truncated PDF (no %%EOF marker at the end, cross-reference table missing)")
    if doc.page_count == 0:
        warning = _mupdf_warning() if doc.is_repaired else ""
        doc.close()
        raise ParseError(file.name, "no pages" + (f" (corrupt PDF: {warning})" if warning else ""))
    return doc


def _mupdf_warning() -> str:
    try:
        text = pymupdf.TOOLS.mupdf_warnings(reset=True) or ""
    except Exception:
        return ""
    return "; ".join(line for line in text.splitlines()[:3] if line.strip())


def _metadata_title(value: str | None) -> str:
    """The title in the PDF's metadata, unless it is a producer's placeholder ("Microsoft Word - x.docx")."""
    title = re.sub(r"\s+", " ", value or "").strip()
    if re.fullmatch(r"(?i)(untitled.*|microsoft (word|powerpoint|excel) - .*|.*\.(docx?|pptx?|xlsx?|pdf|odt|tex|dvi|"
                    r"indd|rtf|txt)|document\d*|slide \d+|\(?anonymous\)?)", title):
        return ""
    return title


def _pdf_date(value: str) -> str:
    m = re.match(r"D:(\d{4})(\d{2})(\d{2})", value)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else ""


def _image_cover(page: pymupdf.Page) -> float:
    area = abs(page.rect)
    if not area:
        return 0.0
    covered = 0.0
    for info in page.get_image_info():
        box = pymupdf.Rect(info["bbox"]) & page.rect
        covered += abs(box)
    return min(covered / area, 1.0)


# --------------------------------------------------------------------------- structure -> blocks

def _emit(pages: list[Page], structured: list[list], words: frozenset[str]) -> list[Block]:
    """Each page's ``pdf_page`` block, then its passage, list, table and row blocks.

    One pass over all pages in order, and longer than most functions for it: the heading stack, the
    table numbering and a paragraph left open by a page break all carry from one page to the next.
    ``words``: the document's vocabulary, for words hyphenated at a line end.
    """
    blocks: list[Block] = []
    stack: list[Heading] = []
    table_no = 0
    open_para: dict | None = None  # the last paragraph of the previous page, when it may continue

    for page, elements in zip(pages, structured):
        meta_ocr = {"ocr": True, "ocr_confidence": page.ocr_confidence} if page.ocr else {}
        headings_at_start = [h.text for h in stack]
        page_blocks: list[Block] = []
        page_text: list[str] = []
        passage: list[str] = []
        right_edge = max((ln.x1 for el in elements if isinstance(el, Para) for ln in el.lines), default=0.0)

        def path() -> list[str]:
            return [h.text for h in stack]

        def flush() -> None:
            if passage:
                page_blocks.append(Block(kinds.PASSAGE, "\n\n".join(passage), path(), page.number, dict(meta_ocr)))
                passage.clear()

        for index, el in enumerate(elements):
            if isinstance(el, Heading):
                flush()
                while stack and stack[-1].key >= el.key:
                    stack.pop()
                stack.append(el)
                page_text.append(el.text)
            elif isinstance(el, Para):
                text = join_lines((ln.text for ln in el.lines), words)
                page_text.append(text)
                if index == 0 and open_para and _continues(open_para, el):
                    block = open_para["block"]
                    paras = block.text.split("\n\n")
                    paras[-1] = join_line(paras[-1], text, words)
                    block.text = "\n\n".join(paras)
                    open_para = None
                passage.append(text)
            elif isinstance(el, ItemList):
                flush()
                lines = [f"{marker} {join_lines((ln.text for ln in item_lines), words)}"
                         for marker, item_lines in el.items]
                text = "\n".join(lines)
                page_blocks.append(Block(kinds.LIST, text, path(), page.number, dict(meta_ocr)))
                page_text.append(text)
            elif isinstance(el, Table):
                flush()
                found = table_blocks(el.rows, table_no + 1, path(), page.number, meta_ocr)
                if found:
                    table_no += 1
                    page_blocks.extend(found)
                page_text.append("\n".join(" | ".join(c for c in row) for row in el.raw))
            if index == 0:
                open_para = None
        last = elements[-1] if elements else None
        flush()
        open_para = None
        if isinstance(last, Para) and page_blocks and page_blocks[-1].kind == kinds.PASSAGE:
            open_para = {"block": page_blocks[-1], "line": last.lines[-1], "right": right_edge,
                         "text": page_blocks[-1].text}
        if page_text:
            page_meta = {"ocr": page.ocr}
            if page.ocr:
                page_meta["ocr_confidence"] = page.ocr_confidence
            blocks.append(Block(kinds.PDF_PAGE, "\n\n".join(page_text), headings_at_start, page.number, page_meta))
        blocks.extend(page_blocks)
    return blocks


def _continues(open_para: dict, el: Para) -> bool:
    """Does this first paragraph of a page finish the previous page's last paragraph?"""
    prev_text = open_para["text"].rstrip()
    nxt = el.lines[0].text.lstrip()
    if not prev_text or not nxt or prev_text.endswith(tuple(TERMINAL)):
        return False
    if prev_text.endswith(("-", "\u00ad", ",", "–", "(")) or nxt[0].islower():
        return True
    last_line: Line = open_para["line"]
    return open_para["right"] > 0 and last_line.x1 >= open_para["right"] - _FULL_LINE * max(last_line.size, 1.0)
