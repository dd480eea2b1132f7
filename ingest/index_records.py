"""A back-of-book index or glossary read as records: term -> file -> page (``IndexRecord``).

Sources: a PDF whose pages hold a Term/File/Page table without ruling lines (columns from the
header words' positions), CSV text, or table rows (for example a wiki glossary table) with
Term/File/Page headers (English, German or Spanish names). ``parse_index_records`` picks the
reader by the input; ``ingest.grounding`` anchors the records in the corpus.
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["IndexRecord", "parse_index_records", "records_from_pdf", "records_from_csv", "records_from_rows"]

_TERM_NAMES = {"term", "terms", "begriff", "begriffe", "stichwort", "schlagwort", "término", "termino", "términos",
               "concept", "concepto", "entry", "keyword", "name"}
_FILE_NAMES = {"file", "files", "document", "doc", "source", "part", "datei", "dokument", "quelle", "archivo",
               "documento", "fichero", "fuente"}
_PAGE_NAMES = {"page", "pages", "p", "pp", "pg", "seite", "seiten", "s", "página", "pagina", "páginas", "paginas",
               "pág", "pag"}
_SNIFF_CHARS = 4096  # the CSV dialect is told from the first lines
_MAX_HEADER_WORDS = 8  # a header row is a few column names (at least half its words); prose is longer
_WRAP_GAP = 2.5  # a term line within 2.5 line heights of the entry above continues that entry's term
_ROW_OVERLAP = 0.5  # two words are on one row when their centres are within half the taller one's height
_COLUMN_SLACK = 3.0  # points a word may start left of its column's header word
_FILE_TOKEN = re.compile(r"^\S+\.(?:pdf|docx?|odt|html?|txt|md|rtf|pptx?|xlsx?)$", re.IGNORECASE)


@dataclass(frozen=True)
class IndexRecord:
    term: str
    file: str
    page: int  # 1-based page within the file
    index_source: str = ""  # where the entry came from (the index file's name, a wiki page id)


def _column_role(text: str) -> str:
    key = re.sub(r"[^\w]", "", text.strip().lower())
    if key in _TERM_NAMES:
        return "term"
    if key in _FILE_NAMES:
        return "file"
    if key in _PAGE_NAMES:
        return "page"
    return ""


def _pages(value: str) -> list[int]:
    """'2' -> [2]; '2, 5' -> [2, 5]; '4–6' -> [4] (the page where the entry starts); 'p. 3' -> [3]."""
    out: list[int] = []
    for part in re.split(r"[,;/]", value):
        m = re.search(r"\d+", part)
        if m and int(m.group()) > 0 and int(m.group()) not in out:
            out.append(int(m.group()))
    return out


def _record(term: str, file: str, page: str, source: str) -> list[IndexRecord]:
    term = re.sub(r"\s+", " ", term).strip(" \t.,;:")
    file = file.strip()
    if not term or not file:
        return []
    return [IndexRecord(term, file, p, source) for p in _pages(page)]


def records_from_rows(rows: Sequence, index_source: str = "") -> list[IndexRecord]:
    """Records from table rows: lists of cell texts with a header row, or dicts keyed by the header names."""
    rows = list(rows)
    if not rows:
        return []
    if isinstance(rows[0], Mapping):
        header = list(rows[0].keys())
        body = [[str(r.get(h, "") or "") for h in header] for r in rows]
    else:
        header = [str(c or "") for c in rows[0]]
        body = [[str(c or "") for c in r] for r in rows[1:]]
    roles = {_column_role(h): i for i, h in reversed(list(enumerate(header))) if _column_role(h)}
    if not {"term", "file", "page"} <= roles.keys():
        if isinstance(rows[0], Mapping) or len(header) < 3:
            return []
        roles = {"term": 0, "file": 1, "page": 2}  # no header: the columns in the usual order
        body = [header] + body
    out: list[IndexRecord] = []
    for row in body:
        cell = lambda role: row[roles[role]] if roles[role] < len(row) else ""  # noqa: E731
        out.extend(_record(cell("term"), cell("file"), cell("page"), index_source))
    return out


def records_from_csv(text: str, index_source: str = "") -> list[IndexRecord]:
    """Records from CSV (comma, semicolon or tab separated) with term, file and page columns."""
    text = text.lstrip("\ufeff")
    sample = text[:_SNIFF_CHARS]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    return records_from_rows(rows, index_source)


def records_from_pdf(data: bytes, index_source: str = "") -> list[IndexRecord]:
    """Records from a PDF whose pages hold a borderless Term/File/Page table.

    Words (``page.get_text("words")``) are grouped into visual rows; the header
    row's words give the columns' left edges and every word below falls into
    the column whose edge lies left of it. A page without a header row uses the
    previous page's columns; a document without any uses the row's shape
    (words, a file name, page numbers). A term wrapped onto a second line joins
    the entry above it.
    """
    import pymupdf  # imported here: the other index sources do not need it

    out: list[IndexRecord] = []
    columns: list[tuple[float, str]] | None = None
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF's errors share no base class with Python's
        raise ValueError(f"unreadable PDF ({type(exc).__name__}: {exc})") from None
    with doc:
        for words in _page_words(doc):
            rows = _visual_rows(words)
            header_at = None
            for i, row in enumerate(rows):
                roles = [(w[0], _column_role(w[4])) for w in row]
                found = [r for _, r in roles if r]
                # a header row is (almost) nothing but column names; prose that mentions them is not
                if ({"term", "file", "page"} <= set(found) and len(found) * 2 >= len(row)
                        and len(row) <= _MAX_HEADER_WORDS):
                    columns = sorted((x, r) for x, r in roles if r)
                    header_at = i
                    break
            body = rows[header_at + 1:] if header_at is not None else rows
            entry_start: int | None = None  # where the records of the entry above begin in ``out``
            last_y = 0.0
            for row in body:
                cells = _split_row(row, columns) if columns else _shape_row(row)
                if cells is None:
                    entry_start = None
                    continue
                term, file, pages = cells
                y, height = row[0][1], row[0][3] - row[0][1]
                if term and not file and not pages:
                    if entry_start is not None and y - last_y < _WRAP_GAP * height:
                        # a wrapped term: continue the entry above
                        out[entry_start:] = [IndexRecord(f"{r.term} {term}", r.file, r.page, r.index_source)
                                             for r in out[entry_start:]]
                        last_y = y
                    continue
                records = _record(term, file, pages, index_source)
                if records:
                    entry_start, last_y = len(out), y
                    out.extend(records)
                else:
                    entry_start = None
    return out


def _page_words(doc):
    """The words of each page that can be read; a broken one (a cycle in the page tree, a bad object) holds no
    index entries to read, and the document parser records it as a page it could not read."""
    for pno in range(doc.page_count):
        try:
            words = doc[pno].get_text("words")
        except Exception:  # PyMuPDF's errors share no base class with Python's
            continue
        yield words


def _visual_rows(words: list) -> list[list]:
    rows: list[list] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        cy, h = (w[1] + w[3]) / 2, w[3] - w[1]
        if rows:
            ref = rows[-1][0]
            if abs((ref[1] + ref[3]) / 2 - cy) <= _ROW_OVERLAP * max(h, ref[3] - ref[1]):
                rows[-1].append(w)
                continue
        rows.append([w])
    return [sorted(r, key=lambda w: w[0]) for r in rows]


def _split_row(row: list, columns: list[tuple[float, str]]) -> tuple[str, str, str] | None:
    cells: dict[str, list[str]] = {"term": [], "file": [], "page": []}
    for w in row:
        role = columns[0][1]
        for x, r in columns:
            if w[0] >= x - _COLUMN_SLACK:
                role = r
        cells[role].append(w[4])
    term, file, page = (" ".join(cells[k]) for k in ("term", "file", "page"))
    if file and not _pages(page):
        return None  # not an entry (a caption, a footer that falls into the columns)
    if not file and page and not term:
        return None  # a page number alone
    return term, file, page


def _shape_row(row: list) -> tuple[str, str, str] | None:
    texts = [w[4] for w in row]
    at = next((i for i, t in enumerate(texts) if _FILE_TOKEN.match(t)), None)
    if at is None or at == 0:
        return None
    pages = " ".join(texts[at + 1:])
    if not _pages(pages):
        return None
    return " ".join(texts[:at]), texts[at], pages


def parse_index_records(source: bytes | str | Sequence, index_source: str = "") -> list[IndexRecord]:
    """Index records from PDF bytes, CSV text (str or bytes) or table rows (header row first, or dicts)."""
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        if data.lstrip()[:5] == b"%PDF-":
            return records_from_pdf(data, index_source)
        return records_from_csv(data.decode("utf-8", "replace"), index_source)
    if isinstance(source, str):
        return records_from_csv(source, index_source)
    return records_from_rows(source, index_source)
