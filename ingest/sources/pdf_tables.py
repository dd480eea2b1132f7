"""Ruled tables of a PDF page: found by PyMuPDF's ``find_tables()``, turned into ``ingest.tables`` cells
(spans from the cell boxes, a header row when PyMuPDF found one, or when the first row is bold or
holds words over numeric columns), and put in the page's reading order in place of their lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pymupdf

from ingest.sources.pdf_layout import Line
from ingest.tables import Cell
from text.hyphenation import join_lines

__all__ = ["Table", "find_tables", "place_tables"]

_MIN_ROWS = 2  # a framed paragraph has one row or one column, a table has more
_MIN_COLUMNS = 2  # (rows and columns both)
_EDGE_TOLERANCE = 2.0  # points between two cell edges that are one column or row boundary
_BOX_TOLERANCE = 1.0  # points a line or a cell may stick out of its table's or span's box


@dataclass
class Table:
    bbox: tuple[float, float, float, float]
    rows: list[list[Cell]]
    raw: list[list[str]]


def find_tables(page: pymupdf.Page, lines: list[Line]) -> list[Table]:
    """The page's ruled tables with at least two rows and two columns and some text."""
    tables: list[Table] = []
    for table in page.find_tables().tables:
        if table.row_count < _MIN_ROWS or table.col_count < _MIN_COLUMNS:
            continue  # a framed paragraph, not a table
        found = _table(table, lines)
        if any(any(t for t in r) for r in found.raw):
            tables.append(found)
    return tables


def _table(table, lines: list[Line]) -> Table:
    raw = table.extract()
    cells = [c for c in table.cells if c]
    col_starts = _cluster([c[0] for c in cells])
    row_starts = _cluster([c[1] for c in cells])
    rows: list[list[Cell]] = []
    raw_rows: list[list[str]] = []
    bbox = tuple(table.bbox)
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
            colspan = sum(1 for x in col_starts if box[0] - _BOX_TOLERANCE <= x < box[2] - _BOX_TOLERANCE) or 1
            rowspan = sum(1 for y in row_starts if box[1] - _BOX_TOLERANCE <= y < box[3] - _BOX_TOLERANCE) or 1
            out_row.append(Cell(text, header=first_row_header and r == 0, rowspan=rowspan, colspan=colspan))
            texts.append(text)
        if out_row:
            rows.append(out_row)
            raw_rows.append(texts)
    return Table(bbox, rows, raw_rows)


def _cluster(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > _EDGE_TOLERANCE:
            out.append(v)
    return out


def _clean_cell(text: str) -> str:
    return join_lines(ln for ln in text.split("\n") if ln.strip())


def _looks_like_header(table, raw: list[list[str | None]], lines: list[Line]) -> bool:
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


def place_tables(lines: list[Line], tables: list[Table]) -> list:
    """Lines and tables in reading order; a table takes the place of the first line inside it."""
    items: list = []
    placed: set[int] = set()
    tol = _BOX_TOLERANCE
    for line in lines:
        cx, cy = (line.x0 + line.x1) / 2, (line.y0 + line.y1) / 2
        owner = next((i for i, t in enumerate(tables)
                      if t.bbox[0] - tol <= cx <= t.bbox[2] + tol and t.bbox[1] - tol <= cy <= t.bbox[3] + tol), None)
        if owner is None:
            items.append(line)
        elif owner not in placed:
            placed.add(owner)
            items.append(tables[owner])
    for i, table in enumerate(tables):
        if i not in placed:
            at = next((k for k, it in enumerate(items) if isinstance(it, Line) and it.y0 > table.bbox[1]),
                      len(items))
            items.insert(at, table)
    return items
