"""PDF files: text pages with their structure recovered, scanned pages through OCR.

A text page is read line by line from PyMuPDF's ``get_text("dict")``:

* running headers and footers (lines that repeat in the top or bottom margin
  across pages, digits ignored) and page numbers ("3", "— 3 —", "Page 3 of 9")
  are dropped;
* headings are lines set larger than the body text (the most common size) or
  short lines set in bold; their level comes from the style's rank (larger
  first) refined by the heading's numbering ("2" above "2.3"); styles that
  occur only on a multi-page document's first page are its title page, not
  headings;
* ruled tables come from ``page.find_tables()`` and are verbalized with
  ``ingest.tables``; their text is kept out of the passages;
* bullet and numbered items become one ``list`` block per list;
* the other lines are joined into paragraphs (words hyphenated at a line end
  are joined, real hyphens kept), a paragraph cut by a page break is finished
  on the page where it starts, and consecutive paragraphs under one heading on
  one page become one ``passage`` block.

A page without a text layer but with images is rendered and read by the
Tesseract command line (TSV output: words, confidences and Tesseract's own
paragraphs); its blocks carry ``{"ocr": True, "ocr_confidence": mean word
confidence}``. Every page also yields one ``pdf_page`` block with its whole
clean text. Problems with single pages are recorded in
``ParsedDocument.errors``; a file that cannot be read at all raises ParseError.
"""
from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

import pymupdf

from ingest import evidence as kinds
from ingest.blocks import Block, ParsedDocument, ParseError
from ingest.config import IngestConfig
from ingest.evidence import Document
from ingest.sources import SourceFile
from ingest.tables import Cell, verbalize

if hasattr(pymupdf, "no_recommend_layout"):
    pymupdf.no_recommend_layout()  # find_tables() would otherwise print an advertisement on stdout

# A page with fewer text-layer characters than this (and images) is treated as scanned.
MIN_TEXT_CHARS = 20
# Share of the page that images must cover for a page without text to be OCRed.
MIN_IMAGE_COVER = 0.2
# Pages beyond these limits are not rendered for OCR.
MAX_PAGE_INCHES = 200.0
MAX_OCR_PIXELS = 50_000_000
OCR_TIMEOUT_SECONDS = 180.0
# OCR tokens without letters or digits below this confidence are scan noise ("|", ".").
_OCR_NOISE_CONF = 70.0

_BULLET_CHARS = "•●◦○▪▫■□‣⁃∙►▸▹▶➢➤✓✔❖\uf0b7\uf0a7\uf076\uf0d8\uf0a8\uf0fc"
_DASH_BULLETS = "-–—*·"
_BULLET_RE = re.compile(rf"^([{re.escape(_BULLET_CHARS)}])\s*(\S.*)$")
_DASH_BULLET_RE = re.compile(rf"^([{re.escape(_DASH_BULLETS)}])\s+(\S.*)$")
_NUMBERED_ITEM_RE = re.compile(r"^(\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)])\s+(\S.*)$")
_HEADING_NUMBER_RE = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")
_MULTILEVEL_HEADING_RE = re.compile(r"^\d{1,3}(?:\.\d{1,3})+\.?\s+[^\W\d_]")
_PAGE_NUMBER_RES = (
    re.compile(r"^[\W_]*(?:page|seite|p[áa]gina|pag\.?|p\.|s\.|pg\.?)?\s*\d{1,4}"
               r"(?:\s*(?:of|von|de|/|sur)\s*\d{1,4})?[\W_]*$", re.IGNORECASE),
    re.compile(r"^[\W_]*[ivxlcdm]{1,7}[\W_]*$", re.IGNORECASE),  # roman page numbers
    re.compile(r"^[^\W\d_][^\d]{0,40}?\s[—–\-|·•]\s*\d{1,4}$"),  # "Index — 1", "Chapter 2 | 14"
)
_TERMINAL = ".!?:;…\"”»)]’'"
_WORD_RE = re.compile(r"[^\W_]+(?:[-‐][^\W_]+)*")
_MARGIN = 0.12  # top and bottom share of the page where running headers and footers live


@dataclass
class _Line:
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
class _Table:
    bbox: tuple[float, float, float, float]
    rows: list[list[Cell]]
    raw: list[list[str]]


@dataclass
class _Page:
    number: int
    width: float
    height: float
    items: list = field(default_factory=list)  # _Line and _Table in reading order
    ocr: bool = False
    ocr_confidence: float | None = None


@dataclass
class _Heading:
    text: str
    key: tuple[int, int]
    style: tuple[float, bool] = (0.0, False)
    y1: float = 0.0
    lines: int = 1


@dataclass
class _Para:
    lines: list[_Line]


@dataclass
class _List:
    items: list[tuple[str, list[_Line]]]  # marker, lines


class _PageError(Exception):
    """A page that cannot be read; the message is recorded, the other pages proceed."""


# --------------------------------------------------------------------------- the source

class PdfSource:
    name = "pdf"

    def __init__(self, tesseract_cmd: str | None = None, ocr_timeout: float = OCR_TIMEOUT_SECONDS):
        self.tesseract_cmd = tesseract_cmd  # None: "tesseract" on PATH
        self.ocr_timeout = ocr_timeout

    def accepts(self, file: SourceFile) -> bool:
        return file.name.lower().endswith(".pdf") or file.data[:1024].lstrip()[:5] == b"%PDF-"

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
            errors.append(f"damaged PDF repaired on reading ({_mupdf_warning() or 'xref rebuilt'})")
        ocr = _Ocr(self.tesseract_cmd, config, self.ocr_timeout)
        pages: list[_Page] = []
        for pno in range(doc.page_count):
            try:
                page = doc[pno]
                pages.append(self._read_page(page, pno + 1, ocr, errors))
            except _PageError as exc:
                errors.append(f"page {pno + 1}: {exc}")
                pages.append(_Page(pno + 1, 0, 0))
            except Exception as exc:  # a broken page must not take the file with it
                errors.append(f"page {pno + 1}: unreadable page ({type(exc).__name__}: {exc})")
                pages.append(_Page(pno + 1, 0, 0))
        errors.extend(ocr.notes)

        _drop_running_lines(pages)
        vocabulary = _Vocabulary(pages)
        _mark_paragraph_starts(pages)
        headings = _HeadingStyles(pages)
        structured = [_structure(page, headings) for page in pages]
        blocks = _emit(pages, structured, vocabulary)

        meta = doc.metadata or {}
        title = file.title or _metadata_title(meta.get("title")) or headings.title or PurePosixPath(file.name).stem
        url = file.url or config.files_base_url + urllib.parse.quote(file.name)
        document = Document(
            doc_id=f"pdf:{file.name}", source_type="pdf", url=url, title=title,
            acl=list(file.acl), lang=file.lang or "",
            updated=_pdf_date(meta.get("modDate") or meta.get("creationDate") or ""),
            author=(meta.get("author") or "").strip(),
        )
        return ParsedDocument(document, blocks, errors)

    def _read_page(self, page: pymupdf.Page, number: int, ocr: "_Ocr", errors: list[str]) -> _Page:
        rect = page.rect
        out = _Page(number, rect.width, rect.height)
        lines = _text_lines(page)
        chars = sum(len(ln.text.replace(" ", "")) for ln in lines)
        if chars < MIN_TEXT_CHARS and _image_cover(page) >= MIN_IMAGE_COVER:
            if not ocr.available:
                raise _PageError(f"no text layer and OCR unavailable ({ocr.unavailable_reason})")
            out.items, out.ocr_confidence = ocr.read(page)
            out.ocr = True
            if not out.items:
                errors.append(f"page {number}: OCR found no text")
            return out
        try:
            tables = _find_tables(page, lines)
        except Exception as exc:
            errors.append(f"page {number}: table detection failed ({type(exc).__name__}: {exc})")
            tables = []
        out.items = _place_tables(lines, tables)
        return out


def _open(file: SourceFile) -> pymupdf.Document:
    if not file.data:
        raise ParseError(file.name, "empty file")
    if b"%PDF-" not in file.data[:1024]:
        raise ParseError(file.name, "not a PDF (no %PDF- header)")
    truncated = b"%%EOF" not in file.data[-2048:]
    _mupdf_warning()  # reset MuPDF's warning buffer
    try:
        doc = pymupdf.open(stream=file.data, filetype="pdf")
    except Exception as exc:
        reason = "truncated PDF (no %%EOF marker at the end)" if truncated else "corrupt PDF"
        raise ParseError(file.name, f"{reason}: {type(exc).__name__}: {exc}") from None
    if doc.needs_pass:
        doc.close()
        raise ParseError(file.name, "encrypted PDF (password required)")
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


# --------------------------------------------------------------------------- text layer

def _is_bold(span: dict) -> bool:
    font = span.get("font", "").lower()
    return bool(span.get("flags", 0) & 16) or any(w in font for w in ("bold", "black", "heavy", "semibold"))


def _text_lines(page: pymupdf.Page) -> list[_Line]:
    """Visual lines of the text layer in content order; pieces of one row within a block are merged."""
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    data = page.get_text("dict", flags=flags)
    out: list[_Line] = []
    for bno, block in enumerate(data.get("blocks", [])):
        if block.get("type") != 0:
            continue
        row: list[_Line] = []
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text")]
            text = "".join(s["text"] for s in spans).replace("\u00a0", " ")
            if not text.strip():
                continue
            weights = [len(s["text"].strip()) for s in spans]
            real = [s for s, w in zip(spans, weights) if w]
            size_votes: Counter = Counter()
            for s in real:
                size_votes[round(s["size"] * 2) / 2] += len(s["text"].strip())
            x0, y0, x1, y1 = line["bbox"]
            piece = _Line(text=re.sub(r"\s+", " ", text).strip(), x0=x0, y0=y0, x1=x1, y1=y1,
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


def _is_lone_bullet(line: _Line) -> bool:
    return line.text in _BULLET_CHARS or (len(line.text) == 1 and line.text in _DASH_BULLETS)


def _same_row(a: _Line, b: _Line) -> bool:
    ca, cb = (a.y0 + a.y1) / 2, (b.y0 + b.y1) / 2
    return abs(ca - cb) <= 0.5 * min(a.height, b.height) and b.x0 >= a.x1 - 1


def _merge(a: _Line, b: _Line) -> _Line:
    if _is_lone_bullet(a):
        size, bold, text_x0 = b.size, b.bold, b.x0
    else:
        size = a.size if len(a.text) >= len(b.text) else b.size
        bold, text_x0 = a.bold and b.bold, a.text_x0
    return _Line(text=f"{a.text} {b.text}", x0=a.x0, y0=min(a.y0, b.y0), x1=b.x1, y1=max(a.y1, b.y1),
                 size=size, bold=bold, block=a.block, text_x0=text_x0)


def _find_tables(page: pymupdf.Page, lines: list[_Line]) -> list[_Table]:
    found = page.find_tables()
    tables: list[_Table] = []
    for table in found.tables:
        raw = table.extract()
        if table.row_count < 2 or table.col_count < 2:
            continue  # a framed paragraph, not a table
        cells = [c for c in table.cells if c]
        col_starts = _cluster([c[0] for c in cells])
        row_starts = _cluster([c[1] for c in cells])
        rows: list[list[Cell]] = []
        raw_rows: list[list[str]] = []
        bbox = tuple(table.bbox)
        header_bbox = None
        if table.header.external and any(table.header.names):
            header_bbox = tuple(table.header.bbox)
            names = [_clean_cell(n or "") for n in table.header.names]
            rows.append([Cell(n, header=True) for n in names])
            raw_rows.append(names)
            bbox = (min(bbox[0], header_bbox[0]), min(bbox[1], header_bbox[1]),
                    max(bbox[2], header_bbox[2]), max(bbox[3], header_bbox[3]))
        first_row_header = not rows and _looks_like_header(table, raw, lines)
        for r, row in enumerate(table.rows):
            out_row: list[Cell] = []
            texts: list[str] = []
            for c, box in enumerate(row.cells):
                if box is None:
                    continue
                text = _clean_cell(raw[r][c] if r < len(raw) and c < len(raw[r]) else "")
                colspan = sum(1 for x in col_starts if box[0] - 1 <= x < box[2] - 1) or 1
                rowspan = sum(1 for y in row_starts if box[1] - 1 <= y < box[3] - 1) or 1
                out_row.append(Cell(text, header=first_row_header and r == 0, rowspan=rowspan, colspan=colspan))
                texts.append(text)
            if out_row:
                rows.append(out_row)
                raw_rows.append(texts)
        if any(any(t for t in r) for r in raw_rows):
            tables.append(_Table(bbox, rows, raw_rows))
    return tables


def _cluster(values: list[float], tol: float = 2.0) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return out


def _clean_cell(text: str) -> str:
    return _join_lines([ln.strip() for ln in text.split("\n") if ln.strip()], None)


def _looks_like_header(table, raw: list[list[str | None]], lines: list[_Line]) -> bool:
    """The first row is a header when it is set in bold, or when it holds words over numeric columns."""
    if not raw or not table.rows:
        return False
    box = pymupdf.Rect(table.rows[0].bbox)
    inside = [ln for ln in lines if box.contains(pymupdf.Point((ln.x0 + ln.x1) / 2, (ln.y0 + ln.y1) / 2))]
    if inside and all(ln.bold for ln in inside):
        return True
    first = [c or "" for c in raw[0]]
    if not all(c.strip() for c in first) or any(re.search(r"\d", c) for c in first):
        return False
    numeric = sum(1 for row in raw[1:] for c in row if c and re.fullmatch(r"[\d\s.,%€$:+-]+", c.strip()))
    return numeric >= max(1, len(raw) - 1)


def _place_tables(lines: list[_Line], tables: list[_Table]) -> list:
    """Lines and tables in reading order; a table takes the place of the first line inside it."""
    items: list = []
    placed: set[int] = set()
    for line in lines:
        cx, cy = (line.x0 + line.x1) / 2, (line.y0 + line.y1) / 2
        owner = next((i for i, t in enumerate(tables)
                      if t.bbox[0] - 1 <= cx <= t.bbox[2] + 1 and t.bbox[1] - 1 <= cy <= t.bbox[3] + 1), None)
        if owner is None:
            items.append(line)
        elif owner not in placed:
            placed.add(owner)
            items.append(tables[owner])
    for i, table in enumerate(tables):
        if i not in placed:
            at = next((k for k, it in enumerate(items) if isinstance(it, _Line) and it.y0 > table.bbox[1]),
                      len(items))
            items.insert(at, table)
    return items


# --------------------------------------------------------------------------- OCR

@lru_cache(maxsize=8)
def _tesseract_languages(cmd: str) -> frozenset[str]:
    result = subprocess.run([cmd, "--list-langs"], capture_output=True, timeout=30,
                            env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    names = (result.stdout + result.stderr).decode("utf-8", "replace").splitlines()
    return frozenset(n.strip() for n in names if n.strip() and " " not in n.strip() and not n.endswith(":"))


class _Ocr:
    """Tesseract's command line on a rendered page: words with confidences and Tesseract's paragraphs.

    The CLI (rather than MuPDF's built-in OCR) gives word confidences, and runs
    with OMP_THREAD_LIMIT=1: Tesseract's OpenMP threads make it several times
    slower on small machines and in parallel workers.
    """

    def __init__(self, cmd: str | None, config: IngestConfig, timeout: float):
        self.dpi = max(int(config.ocr_dpi or 300), 72)
        self.timeout = timeout
        self.notes: list[str] = []
        self.unavailable_reason = ""
        self.cmd = shutil.which(cmd or "tesseract") or ""
        self.languages = ""
        if not self.cmd:
            self.unavailable_reason = "tesseract not found"
            return
        wanted = [lang for lang in re.split(r"[+,\s]+", config.ocr_languages or "eng") if lang]
        try:
            installed = _tesseract_languages(self.cmd)
        except Exception as exc:
            self.unavailable_reason = f"tesseract does not run: {type(exc).__name__}: {exc}"
            return
        usable = [lang for lang in wanted if lang in installed]
        if not usable:
            self.unavailable_reason = f"no tesseract language data for {'+'.join(wanted)}"
            return
        if len(usable) < len(wanted):
            missing = "+".join(lang for lang in wanted if lang not in installed)
            self.notes.append(f"OCR language data missing for {missing}; used {'+'.join(usable)}")
        self.languages = "+".join(usable)

    @property
    def available(self) -> bool:
        return bool(self.languages)

    def read(self, page: pymupdf.Page) -> tuple[list[_Line], float | None]:
        rect = page.rect
        w_in, h_in = rect.width / 72, rect.height / 72
        pixels = (w_in * self.dpi) * (h_in * self.dpi)
        if w_in > MAX_PAGE_INCHES or h_in > MAX_PAGE_INCHES or pixels > MAX_OCR_PIXELS:
            raise _PageError(f"page too large to OCR ({w_in:.0f} x {h_in:.0f} in, "
                             f"{pixels / 1e6:.0f} Mpixel at {self.dpi} dpi)")
        pix = page.get_pixmap(dpi=self.dpi, colorspace=pymupdf.csGRAY, alpha=False)
        png = pix.tobytes("png")
        del pix
        try:
            result = subprocess.run(
                [self.cmd, "stdin", "stdout", "-l", self.languages, "--psm", "3", "--dpi", str(self.dpi), "tsv"],
                input=png, capture_output=True, timeout=self.timeout,
                env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        except subprocess.TimeoutExpired:
            raise _PageError(f"OCR timed out after {self.timeout:.0f} s") from None
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise _PageError(f"OCR failed ({message[-1] if message else f'exit code {result.returncode}'})")
        scale = 72.0 / self.dpi
        return _tsv_lines(result.stdout.decode("utf-8", "replace"), scale)


def _tsv_lines(tsv: str, scale: float) -> tuple[list[_Line], float | None]:
    """Lines from Tesseract's TSV, with scan noise (specks, signatures, misread bullets) cleaned up."""
    lines: dict[tuple[int, int, int], dict] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        try:
            level = int(row["level"])
            key = (int(row["block_num"]), int(row["par_num"]), int(row["line_num"]))
            box = [int(row[k]) for k in ("left", "top", "width", "height")]
            conf = float(row.get("conf") or -1)
        except (KeyError, TypeError, ValueError):
            continue
        if level == 4:
            lines[key] = {"box": box, "words": []}
        elif level == 5:
            text = (row.get("text") or "").strip()
            if text and conf >= 0:
                lines.setdefault(key, {"box": box, "words": []})["words"].append((text, conf, box[3]))
    heights = sorted(h for entry in lines.values() for t, _, h in entry["words"] if any(c.isalnum() for c in t))
    median = heights[len(heights) // 2] if heights else 0
    confidences: list[float] = []
    out: list[_Line] = []
    for (block, par, _), entry in sorted(lines.items()):
        words: list[str] = []
        sizes: list[int] = []
        for i, (text, conf, height) in enumerate(entry["words"]):
            alnum = any(c.isalnum() for c in text)
            if i == 0 and len(text) == 1 and conf < 30:
                words.append("-")  # a bullet Tesseract could not read ("e", "«", "©")
                continue
            if not alnum and conf < _OCR_NOISE_CONF:
                continue  # specks read as "." "|" "_"
            if conf < 40 and median and not 0.5 * median <= height <= 2.5 * median:
                continue  # a speck or a signature, not a word of the text
            words.append(text)
            if alnum:
                confidences.append(conf)
                sizes.append(height)
        if not any(any(c.isalnum() for c in w) for w in words):
            continue
        left, top, width, height = entry["box"]
        size = sorted(sizes)[len(sizes) // 2] if sizes else height
        x0, y0 = left * scale, top * scale
        out.append(_Line(text=" ".join(words), x0=x0, y0=y0, x1=x0 + width * scale, y1=y0 + height * scale,
                         size=size * scale, bold=False, block=block * 1000 + par, text_x0=x0, ocr=True))
    confidence = round(sum(confidences) / len(confidences), 1) if confidences else None
    return out, confidence


# --------------------------------------------------------------------------- page furniture

def _norm_furniture(text: str) -> str:
    """Digits and stray one-letter tokens (OCR noise) do not tell two running lines apart."""
    words = [w for w in re.findall(r"[^\W\d_]+", text.lower()) if len(w) > 1]
    return " ".join(words) if words else re.sub(r"\d+", "#", re.sub(r"\s+", "", text))


def _is_page_number(text: str) -> bool:
    t = text.strip()
    return len(t) <= 40 and any(p.match(t) for p in _PAGE_NUMBER_RES)


def _drop_running_lines(pages: list[_Page]) -> None:
    """Drop running headers/footers (repeated in the margins across pages) and page numbers.

    Lines set clearly larger than the body text are headings, even when two pages start with the same one.
    """
    votes: Counter = Counter()
    for page in pages:
        for item in page.items:
            if isinstance(item, _Line) and not item.ocr:
                votes[item.size] += len(item.text)
    body = votes.most_common(1)[0][0] if votes else 0.0
    seen: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for page in pages:
        for item in page.items:
            zone = _zone(page, item)
            if zone and (item.ocr or not body or item.size <= 1.15 * body):
                seen.setdefault((zone, _norm_furniture(item.text)), []).append((page.number, item.y0 / page.height))
    repeated: set[tuple[str, str, int]] = set()
    for (zone, key), hits in seen.items():
        for number, pos in hits:
            # the same text at about the same height on at least one other page
            if any(n != number and abs(p - pos) <= 0.025 for n, p in hits):
                repeated.add((zone, key, number))
    for page in pages:
        kept = []
        for item in page.items:
            zone = _zone(page, item)
            if zone and ((zone, _norm_furniture(item.text), page.number) in repeated or _is_page_number(item.text)):
                continue
            kept.append(item)
        page.items = kept


def _zone(page: _Page, item) -> str:
    if not isinstance(item, _Line) or not page.height:
        return ""
    if item.y1 <= page.height * _MARGIN:
        return "top"
    if item.y0 >= page.height * (1 - _MARGIN):
        return "bottom"
    return ""


# --------------------------------------------------------------------------- lines -> structure

class _Vocabulary:
    """Words of the document, to decide whether a hyphen at a line end is part of the word."""

    def __init__(self, pages: list[_Page]):
        words: set[str] = set()
        for page in pages:
            for item in page.items:
                if isinstance(item, _Line):
                    words.update(w.lower() for w in _WORD_RE.findall(item.text))
        self.words = words

    def keeps_hyphen(self, left: str, right: str) -> bool:
        hyphenated = f"{left}-{right}".lower()
        return hyphenated in self.words and f"{left}{right}".lower() not in self.words


def _join_lines(texts: list[str], vocabulary: _Vocabulary | None) -> str:
    out = ""
    for text in texts:
        out = _join_two(out, text.strip(), vocabulary) if out else text.strip()
    return out


def _join_two(a: str, b: str, vocabulary: _Vocabulary | None) -> str:
    if not b:
        return a
    if a.endswith("\u00ad"):
        return a[:-1] + b
    m = re.search(r"([^\W\d_]+)[-‐]$", a)
    if m and not a.endswith("--") and b[:1].isalnum():
        if b[:1].islower():
            right = re.match(r"[^\W_]+", b)
            if vocabulary and right and vocabulary.keeps_hyphen(m.group(1), right.group(0)):
                return a + b  # "e-" + "mail" where the document writes "e-mail"
            return a[:-1] + b  # "excep-" + "tion"
        return a + b  # "Baden-" + "Württemberg": a real hyphen
    return f"{a} {b}"


def _mark_paragraph_starts(pages: list[_Page]) -> None:
    for page in pages:
        prev: _Line | None = None
        for item in page.items:
            if not isinstance(item, _Line):
                prev = None
                continue
            if prev is None:
                item.para_start = True
            else:
                gap = item.y0 - prev.y1
                size = max(min(item.size, prev.size), 1.0)
                ended = prev.text.rstrip().endswith(tuple(_TERMINAL))
                hyphen = prev.text.endswith(("-", "\u00ad"))
                if item.ocr:  # rotated scans inflate line boxes: trust Tesseract's paragraphs and word sizes
                    item.para_start = item.block != prev.block or not 1 / 1.4 <= item.size / max(prev.size, 0.1) <= 1.4
                    prev = item
                    continue
                new_block = item.block != prev.block and not hyphen and (gap > 0.5 * size or ended)
                size_jump = abs(item.size - prev.size) > max(1.0, 0.25 * size)
                indent = ended and item.x0 > prev.x0 + 0.8 * size and item.block == prev.block
                item.para_start = new_block or gap > 0.9 * size or size_jump or indent
            prev = item


def _numbering_depth(text: str) -> int:
    m = _HEADING_NUMBER_RE.match(text)
    return m.group(1).count(".") + 1 if m else 1


class _HeadingStyles:
    """Which text lines are headings, and the level key of each heading style."""

    def __init__(self, pages: list[_Page]):
        votes: Counter = Counter()
        for page in pages:
            for item in page.items:
                if isinstance(item, _Line) and not item.ocr:
                    votes[item.size] += len(item.text)
        self.body = votes.most_common(1)[0][0] if votes else 10.0
        self.title = ""
        # Classify candidate lines and collect the styles in use per page.
        style_pages: dict[tuple[float, bool], set[int]] = {}
        for page in pages:
            if page.ocr:
                _classify_ocr(page)
                continue
            lines = [it for it in page.items if isinstance(it, _Line)]
            for i, line in enumerate(lines):
                nxt = lines[i + 1] if i + 1 < len(lines) else None
                line.kind = _classify_text_line(line, nxt, self.body)
                if line.kind == "heading":
                    style_pages.setdefault(self._style(line), set()).add(page.number)
        first = pages[0].number if pages else 1
        later = {s for s, ps in style_pages.items() if ps - {first}}
        title_styles = {s for s, ps in style_pages.items() if ps == {first}} if later else set()
        title_lines: list[_Line] = []
        for page in pages:
            for item in page.items:
                if isinstance(item, _Line) and item.kind == "heading" and self._style(item) in title_styles:
                    item.kind = "body"  # title page: the document's own title, not a section
                    title_lines.append(item)
        ranked = sorted(set(style_pages) - title_styles, key=lambda s: (-s[0], not s[1]))
        self.rank = {s: i + 1 for i, s in enumerate(ranked)}
        self.lowest = len(ranked) + 1
        if title_lines:
            biggest = max(ln.size for ln in title_lines)
            self.title = " ".join(ln.text for ln in title_lines if ln.size == biggest)
        else:
            self.title = next((it.text for p in pages for it in p.items
                               if isinstance(it, _Line) and it.kind == "heading"), "")

    def _style(self, line: _Line) -> tuple[float, bool]:
        return (line.size, line.bold)

    def key(self, line: _Line) -> tuple[int, int]:
        if line.ocr:
            big = line.marker == "big"
            return (1 if big else self.lowest + 1, 1 if big else _numbering_depth(line.text))
        return (self.rank.get(self._style(line), self.lowest), _numbering_depth(line.text))


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith((".", ",", ";", ":"))


def _classify_text_line(line: _Line, nxt: _Line | None, body: float) -> str:
    words = len(line.text.split())
    if _list_marker(line):
        return "item"
    if words > 25 or len(line.text) > 200:
        return "body"
    if line.size >= body * 1.12 and re.search(r"[^\W\d_]", line.text):
        return "heading"
    # a short bold line on its own, unless it opens a paragraph set all in bold
    bold_paragraph = nxt is not None and nxt.bold and not nxt.para_start and nxt.block == line.block
    if (line.bold and line.size >= body * 0.9 and words <= 14 and not _ends_sentence(line.text)
            and line.para_start and not bold_paragraph and re.search(r"[^\W\d_]", line.text)):
        return "heading"
    if (_MULTILEVEL_HEADING_RE.match(line.text) and words <= 10 and line.para_start
            and (nxt is None or nxt.para_start) and not _ends_sentence(line.text)
            and not re.search(r"\d\s*$", line.text)):
        return "heading"
    return "body"


def _list_marker(line: _Line) -> str:
    m = _BULLET_RE.match(line.text)
    if m:
        return "-"
    m = _DASH_BULLET_RE.match(line.text)
    if m and line.para_start:
        return "-"
    m = _NUMBERED_ITEM_RE.match(line.text)
    if m and line.para_start:
        return m.group(1)
    return ""


def _classify_ocr(page: _Page) -> None:
    lines = [it for it in page.items if isinstance(it, _Line)]
    if not lines:
        return
    sizes = sorted(ln.size for ln in lines)
    median = sizes[len(sizes) // 2]
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        words = len(line.text.split())
        alone = line.para_start and (nxt is None or nxt.para_start)
        # Tesseract often puts a heading into the paragraph below it: a short first line before a long one.
        leads = (line.para_start and nxt is not None and not nxt.para_start
                 and len(line.text) < 0.6 * len(nxt.text) and nxt.text[:1].isupper())
        if _list_marker(line):
            line.kind = "item"
        elif ((alone or leads) and words <= 10 and _HEADING_NUMBER_RE.match(line.text)
              and not _ends_sentence(line.text) and re.search(r"\s[^\W\d_]{3}", line.text)
              and not re.search(r"\d\s*$", line.text)):
            line.kind, line.marker = "heading", "numbered"
        elif (alone and words <= 12 and line.size >= 1.4 * median and not _ends_sentence(line.text)
              and (line.text[:1].isupper() or line.text[:1].isdigit()) and re.search(r"[^\W\d_]{2}", line.text)):
            line.kind, line.marker = "heading", "big"
        else:
            line.kind = "body"
        if line.kind == "heading":
            line.text = re.sub(r"(\s+[^\w\s]+)+$", "", line.text)  # "4 Devices |": a speck after the heading
            if nxt is not None:
                nxt.para_start = True


def _item_text(line: _Line) -> tuple[str, str]:
    for pattern in (_BULLET_RE, _DASH_BULLET_RE):
        m = pattern.match(line.text)
        if m:
            return "-", m.group(2)
    m = _NUMBERED_ITEM_RE.match(line.text)
    return (m.group(1), m.group(2)) if m else ("-", line.text)


def _structure(page: _Page, headings: _HeadingStyles) -> list:
    """A page's elements in order: _Heading, _Para, _List, _Table."""
    out: list = []
    for item in page.items:
        if isinstance(item, _Table):
            out.append(item)
            continue
        line = item
        last = out[-1] if out else None
        if line.kind == "heading":
            key = headings.key(line)
            style = (line.size, line.bold)
            if (isinstance(last, _Heading) and last.key == key and last.style == style and last.lines < 3
                    and line.y0 - last.y1 < 0.9 * max(line.size, 1.0)):
                last.text = f"{last.text} {line.text}"  # a heading set on two or three lines
                last.lines += 1
                last.y1 = line.y1
                continue
            out.append(_Heading(line.text, key, style, line.y1))
        elif line.kind == "item":
            marker, text = _item_text(line)
            line.text_x0 = max(line.text_x0, line.x0)
            if isinstance(last, _List):
                last.items.append((marker, [_Line(**{**line.__dict__, "text": text})]))
            else:
                out.append(_List([(marker, [_Line(**{**line.__dict__, "text": text})])]))
        else:
            if isinstance(last, _List) and (_DASH_BULLET_RE.match(line.text) or _NUMBERED_ITEM_RE.match(line.text)) \
                    and abs(line.x0 - last.items[-1][1][0].x0) < 2:
                marker, text = _item_text(line)
                last.items.append((marker, [_Line(**{**line.__dict__, "text": text})]))
            elif isinstance(last, _List) and not _ends_list(last, line):
                last.items[-1][1].append(line)  # an item's wrapped line
            elif isinstance(last, _Para) and not line.para_start:
                last.lines.append(line)
            else:
                out.append(_Para([line]))
    return out


def _ends_list(lst: _List, line: _Line) -> bool:
    first = lst.items[-1][1][0]
    indent = line.x0 - first.x0
    if line.para_start and line.y0 - lst.items[-1][1][-1].y1 > 0.9 * max(line.size, 1.0):
        return True
    if first.text_x0 > first.x0 + 1:  # the item's text starts right of its bullet
        return indent < (first.text_x0 - first.x0) * 0.5
    return indent < 1.0 and line.para_start


# --------------------------------------------------------------------------- structure -> blocks

def _emit(pages: list[_Page], structured: list[list], vocabulary: _Vocabulary) -> list[Block]:
    blocks: list[Block] = []
    stack: list[_Heading] = []
    table_no = 0
    open_para: dict | None = None  # the last paragraph of the previous page, when it may continue

    for page, elements in zip(pages, structured):
        meta_ocr = {"ocr": True, "ocr_confidence": page.ocr_confidence} if page.ocr else {}
        page_blocks: list[Block] = []
        page_text: list[str] = []
        passage: list[str] = []
        right_edge = max((ln.x1 for el in elements if isinstance(el, _Para) for ln in el.lines), default=0.0)

        def path() -> list[str]:
            return [h.text for h in stack]

        def flush() -> None:
            if passage:
                page_blocks.append(Block(kinds.PASSAGE, "\n\n".join(passage), path(), page.number, dict(meta_ocr)))
                passage.clear()

        for index, el in enumerate(elements):
            if isinstance(el, _Heading):
                flush()
                while stack and stack[-1].key >= el.key:
                    stack.pop()
                stack.append(el)
                page_text.append(el.text)
            elif isinstance(el, _Para):
                text = _join_lines([ln.text for ln in el.lines], vocabulary)
                page_text.append(text)
                if index == 0 and open_para and _continues(open_para, el):
                    block = open_para["block"]
                    paras = block.text.split("\n\n")
                    paras[-1] = _join_two(paras[-1], text, vocabulary)
                    block.text = "\n\n".join(paras)
                    open_para = None
                    continue
                passage.append(text)
            elif isinstance(el, _List):
                flush()
                lines = [f"{marker} {_join_lines([ln.text for ln in item_lines], vocabulary)}"
                         for marker, item_lines in el.items]
                text = "\n".join(lines)
                page_blocks.append(Block(kinds.LIST, text, path(), page.number, dict(meta_ocr)))
                page_text.append(text)
            elif isinstance(el, _Table):
                flush()
                table_no += 1
                table_text, row_texts = verbalize(el.rows, table_no)
                page_blocks.append(Block(kinds.TABLE, table_text, path(), page.number,
                                         {"table_no": table_no, "rows": len(row_texts), **meta_ocr}))
                for row_no, row_text in enumerate(row_texts, start=1):
                    page_blocks.append(Block(kinds.TABLE_ROW, row_text, path(), page.number,
                                             {"table_no": table_no, "row_no": row_no, **meta_ocr}))
                page_text.append("\n".join(" | ".join(c for c in row) for row in el.raw))
            if index == 0:
                open_para = None
        last = elements[-1] if elements else None
        flush()
        open_para = None
        if isinstance(last, _Para) and page_blocks and page_blocks[-1].kind == kinds.PASSAGE:
            open_para = {"block": page_blocks[-1], "line": last.lines[-1], "right": right_edge,
                         "text": page_blocks[-1].text}
        if page_text:
            page_meta = {"ocr": page.ocr}
            if page.ocr:
                page_meta["ocr_confidence"] = page.ocr_confidence
            blocks.append(Block(kinds.PDF_PAGE, "\n\n".join(page_text), [], page.number, page_meta))
        blocks.extend(page_blocks)
    return blocks


def _continues(open_para: dict, el: _Para) -> bool:
    """Does this first paragraph of a page finish the previous page's last paragraph?"""
    prev_text = open_para["text"].rstrip()
    nxt = el.lines[0].text.lstrip()
    if not prev_text or not nxt or prev_text.endswith(tuple(_TERMINAL)):
        return False
    if prev_text.endswith(("-", "\u00ad", ",", "–", "(")) or nxt[0].islower():
        return True
    last_line: _Line = open_para["line"]
    return open_para["right"] > 0 and last_line.x1 >= open_para["right"] - 3 * max(last_line.size, 1.0)
