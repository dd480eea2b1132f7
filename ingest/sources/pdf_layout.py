"""The text layer of a PDF as lines: what a page holds, the body font size, page furniture, paragraphs.

``text_lines`` reads a page's visual lines from PyMuPDF's ``get_text("dict")`` (pieces of one row
merged, font sizes voted by characters, bold when every span is bold). ``drop_running_lines``
removes running headers and footers (lines that repeat in the top or bottom margin across pages beside
text of their own, digits ignored) and page numbers ("3", "— 3 —", "Page 3 of 9").
``mark_paragraph_starts`` decides where paragraphs begin, from gaps, font size jumps, indents and ended
sentences (on OCR pages from Tesseract's own paragraphs).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import pymupdf

__all__ = ["Line", "Page", "PageError", "BULLET_CHARS", "DASH_BULLETS", "TERMINAL", "PARAGRAPH_GAP",
           "text_lines", "body_size", "drop_running_lines", "mark_paragraph_starts"]

BULLET_CHARS = "•●◦○▪▫■□‣⁃∙►▸▹▶➢➤✓✔❖\uf0b7\uf0a7\uf076\uf0d8\uf0a8\uf0fc"
DASH_BULLETS = "-–—*·"
TERMINAL = ".!?:;…\"”»)]’'"  # a line ending in one of these ends its sentence
PARAGRAPH_GAP = 0.9  # a vertical gap of more than 0.9 line heights is a blank line between paragraphs

_SIZE_STEP = 2  # font sizes are compared to the half point: 10.98 and 11.0 are one style
_ROW_OVERLAP = 0.5  # two pieces are one row when their centres are within half the smaller height
_X_TOLERANCE = 1.0  # points two pieces of one row may overlap (kerning, rounding)
_MARGIN = 0.12  # top and bottom share of the page where running headers and footers live
_HEADING_OVER_BODY = 1.15  # a margin line set this much larger than the body is a heading, never furniture
_SAME_HEIGHT = 0.025  # share of the page height two running lines on different pages may differ by
_MAX_PAGE_NUMBER_CHARS = 40  # "Employee Handbook — Page 12 of 40" is about the longest page number line
_PAGE_NUMBER_RES = (
    re.compile(r"^[\W_]*(?:page|seite|p[áa]gina|pag\.?|p\.|s\.|pg\.?)?\s*\d{1,4}"
               r"(?:\s*(?:of|von|de|/|sur)\s*\d{1,4})?[\W_]*$", re.IGNORECASE),
    re.compile(r"^[\W_]*[ivxlcdm]{1,7}[\W_]*$", re.IGNORECASE),  # roman page numbers
    re.compile(r"^[^\W\d_][^\d]{0,40}?\s[—–\-|·•]\s*\d{1,4}$"),  # "Index — 1", "Chapter 2 | 14"
)
_OCR_SIZE_RATIO = 1.4  # on a scan, a word size this many times the previous line's starts a new paragraph
_NEW_BLOCK_GAP = 0.5  # a new PyMuPDF block after an ended line or a gap of half a line is a new paragraph
_SIZE_JUMP = 0.25  # a font size change of a quarter (at least 1 pt) starts a new paragraph
_MIN_SIZE_JUMP = 1.0  # points: smaller changes are rounding between fonts of one style
_INDENT = 0.8  # a first line indented by 0.8 line heights after an ended sentence starts a paragraph


@dataclass
class Line:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    block: int
    text_x0: float = 0.0  # where the text starts after a bullet glyph
    ocr: bool = False
    para_start: bool = False
    kind: str = "body"  # body | heading | item
    marker: str = ""  # the list marker of an item line

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass
class Page:
    number: int
    width: float
    height: float
    items: list = field(default_factory=list)  # Line and pdf_tables.Table in reading order
    ocr: bool = False
    ocr_confidence: float | None = None


class PageError(Exception):
    """A page that cannot be read; the message is recorded, the other pages proceed."""


# --------------------------------------------------------------------------- lines of the text layer

def _is_bold(span: dict) -> bool:
    font = span.get("font", "").lower()
    return bool(span.get("flags", 0) & 16) or any(w in font for w in ("bold", "black", "heavy", "semibold"))


def text_lines(page: pymupdf.Page) -> list[Line]:
    """Visual lines of the text layer in content order; pieces of one row within a block are merged."""
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    data = page.get_text("dict", flags=flags)
    out: list[Line] = []
    for bno, block in enumerate(data.get("blocks", [])):
        if block.get("type") != 0:
            continue
        row: list[Line] = []
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text")]
            text = "".join(s["text"] for s in spans).replace("\u00a0", " ")
            if not text.strip():
                continue
            real = [s for s in spans if s["text"].strip()]
            size_votes: Counter = Counter()
            for s in real:
                size_votes[round(s["size"] * _SIZE_STEP) / _SIZE_STEP] += len(s["text"].strip())
            x0, y0, x1, y1 = line["bbox"]
            piece = Line(text=re.sub(r"\s+", " ", text).strip(), x0=x0, y0=y0, x1=x1, y1=y1,
                         size=size_votes.most_common(1)[0][0], bold=all(_is_bold(s) for s in real),
                         block=bno, text_x0=x0)
            if row and _same_row(row[-1], piece):
                row[-1] = _merge(row[-1], piece)
            else:
                row.append(piece)
        if out and row and _is_lone_bullet(out[-1]) and _same_row(out[-1], row[0]):
            row[0] = _merge(out.pop(), row[0])  # a bullet glyph set apart from its item's text
        out.extend(row)
    return out


def _is_lone_bullet(line: Line) -> bool:
    return line.text in BULLET_CHARS or (len(line.text) == 1 and line.text in DASH_BULLETS)


def _same_row(a: Line, b: Line) -> bool:
    ca, cb = (a.y0 + a.y1) / 2, (b.y0 + b.y1) / 2
    return abs(ca - cb) <= _ROW_OVERLAP * min(a.height, b.height) and b.x0 >= a.x1 - _X_TOLERANCE


def _merge(a: Line, b: Line) -> Line:
    if _is_lone_bullet(a):
        size, bold, text_x0 = b.size, b.bold, b.x0
    else:
        size = a.size if len(a.text) >= len(b.text) else b.size
        bold, text_x0 = a.bold and b.bold, a.text_x0
    return Line(text=f"{a.text} {b.text}", x0=a.x0, y0=min(a.y0, b.y0), x1=b.x1, y1=max(a.y1, b.y1),
                size=size, bold=bold, block=a.block, text_x0=text_x0)


def body_size(pages: list[Page]) -> float | None:
    """The body text's font size: the size most characters of the text layer are set in (None without any)."""
    votes: Counter = Counter()
    for page in pages:
        for item in page.items:
            if isinstance(item, Line) and not item.ocr:
                votes[item.size] += len(item.text)
    return votes.most_common(1)[0][0] if votes else None


# --------------------------------------------------------------------------- page furniture

def _norm_furniture(text: str) -> str:
    """Digits and stray one-letter tokens (OCR noise) do not tell two running lines apart."""
    words = [w for w in re.findall(r"[^\W\d_]+", text.lower()) if len(w) > 1]
    return " ".join(words) if words else re.sub(r"\d+", "#", re.sub(r"\s+", "", text))


def _is_page_number(text: str) -> bool:
    t = text.strip()
    return len(t) <= _MAX_PAGE_NUMBER_CHARS and any(p.match(t) for p in _PAGE_NUMBER_RES)


def drop_running_lines(pages: list[Page]) -> None:
    """Drop running headers/footers (repeated in the margins across pages) and page numbers.

    Lines set clearly larger than the body text are headings, even when two pages start with the same one. A
    running line runs beside a page's own text: a repeated line counts as one only when some page it is on has
    other text, so a document of one line a page ("... page 1", "... page 2") keeps its lines. Nothing is
    dropped when it would leave the document without any text.
    """
    body = body_size(pages)
    seen: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for page in pages:
        for item in page.items:
            zone = _zone(page, item)
            if zone and (item.ocr or not body or item.size <= _HEADING_OVER_BODY * body):
                seen.setdefault((zone, _norm_furniture(item.text)), []).append((page.number, item.y0 / page.height))
    repeated: set[tuple[str, str, int]] = set()
    for (zone, key), hits in seen.items():
        for number, pos in hits:
            # the same text at about the same height on at least one other page
            if any(n != number and abs(p - pos) <= _SAME_HEIGHT for n, p in hits):
                repeated.add((zone, key, number))

    def running(page: Page, item) -> tuple[str, str] | None:
        """The (zone, text) a line repeats as, when it does."""
        zone = _zone(page, item)
        key = (zone, _norm_furniture(item.text)) if zone else None
        return key if key and (*key, page.number) in repeated else None

    def page_number(page: Page, item) -> bool:
        return bool(_zone(page, item)) and _is_page_number(item.text)

    beside_text: set[tuple[str, str]] = set()  # repeated lines on a page that has text of its own
    for page in pages:
        keys = [running(page, item) for item in page.items]
        if any(key is None and not page_number(page, item) for key, item in zip(keys, page.items)):
            beside_text.update(key for key in keys if key)
    kept_pages = [[item for item in page.items if running(page, item) not in beside_text
                   and not page_number(page, item)] for page in pages]
    if any(kept_pages) or not any(page.items for page in pages):
        for page, kept in zip(pages, kept_pages):
            page.items = kept


def _zone(page: Page, item) -> str:
    if not isinstance(item, Line) or not page.height:
        return ""
    if item.y1 <= page.height * _MARGIN:
        return "top"
    if item.y0 >= page.height * (1 - _MARGIN):
        return "bottom"
    return ""


# --------------------------------------------------------------------------- paragraphs

def mark_paragraph_starts(pages: list[Page]) -> None:
    """Set ``para_start`` on the lines that open a paragraph (the first line after a table does)."""
    for page in pages:
        prev: Line | None = None
        for item in page.items:
            if not isinstance(item, Line):
                prev = None
                continue
            if prev is None:
                item.para_start = True
            elif item.ocr:  # rotated scans inflate line boxes: trust Tesseract's paragraphs and word sizes
                ratio = item.size / max(prev.size, 0.1)
                item.para_start = item.block != prev.block or not 1 / _OCR_SIZE_RATIO <= ratio <= _OCR_SIZE_RATIO
            else:
                gap = item.y0 - prev.y1
                size = max(min(item.size, prev.size), 1.0)
                ended = prev.text.rstrip().endswith(tuple(TERMINAL))
                hyphen = prev.text.endswith(("-", "\u00ad"))
                new_block = item.block != prev.block and not hyphen and (gap > _NEW_BLOCK_GAP * size or ended)
                size_jump = abs(item.size - prev.size) > max(_MIN_SIZE_JUMP, _SIZE_JUMP * size)
                indent = ended and item.x0 > prev.x0 + _INDENT * size and item.block == prev.block
                item.para_start = new_block or gap > PARAGRAPH_GAP * size or size_jump or indent
            prev = item
