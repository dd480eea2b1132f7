"""Tables as evidence: a cell grid with spans becomes a verbalized table and one verbalized row each.

Row verbalization follows RAGONITE: ``Row 2 in Table 1: Machine is X, and BIOS is Y``.
Header rows (several, with colspan/rowspan) name the columns; a header column
names the row. ``table_blocks`` gives the ``table`` block and its ``table_row`` blocks that every
source emits for a table; ``markdown_table`` renders the grid for display; ``limit_table`` keeps a table's work
linear in its markup.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ingest import evidence as kinds
from ingest.blocks import Block
from text.acronyms import cell_definition, keyword


@dataclass
class Cell:
    text: str
    header: bool = False
    rowspan: int = 1
    colspan: int = 1


MAX_SPAN = 1000  # HTML's own limit on colspan; a larger value is a mistake or an attack, not a layout
MAX_ROWSPAN = 65534  # HTML's own limit on rowspan
# How much text a table may expand to, as a multiple of its markup's characters: a real table's rows verbalize to
# at most ~1.3 times its markup, a compact one with long column names to ~5 times; beyond that, spans and repeated
# column names only repeat text, work that would grow with the square of the table's bytes.
TABLE_EXPANSION = 8
# Characters a row's verbalization adds to its cells' text: "Row 12 in Table 3: " once, " is " and ", and " per cell.
_ROW_PREFIX_CHARS, _PAIR_CHARS = 24, 10


def limit_table(rows: list[list[Cell]], max_cells: int, source_chars: int) -> tuple[list[list[Cell]], str]:
    """The rows with spans capped, cut so that the table's work stays linear in its markup (``source_chars``
    characters); with a note saying what was cut ("" when nothing worth a word was).

    A rowspan is capped by the rows below it; a colspan by the table's width (the widest row, each span in it
    counted at most as many columns as the widest row has cells). Spans over HTML's own limits are noted. Then
    three bounds, each cut noted: the text of the cell grid, every slot a span covers counting as a copy of its
    cell's text, is at most ``TABLE_EXPANSION`` times ``source_chars`` (cells whose copies pass it keep their text
    once, their spans clipped to one slot); the grid has at most ``max_cells`` slots (later rows left out); the
    rows' verbalization, which repeats the column names in every row, is at most ``TABLE_EXPANSION`` times
    ``source_chars`` (later rows left out, the first body row always kept).
    """
    most_cells = max((len(row) for row in rows), default=0)
    width = max((sum(min(c.colspan, most_cells) for c in row) for row in rows), default=0)
    widest = min(width, MAX_SPAN)
    capped = [[c if 1 <= c.rowspan <= len(rows) - r and 1 <= c.colspan <= widest else
               replace(c, rowspan=max(1, min(c.rowspan, len(rows) - r)), colspan=max(1, min(c.colspan, widest)))
               for c in row] for r, row in enumerate(rows)]
    notes = []
    spans = [(c.rowspan, c.colspan) for row in rows for c in row if c.rowspan > MAX_ROWSPAN or c.colspan > MAX_SPAN]
    if spans:
        notes.append(f"{len(spans):,} cell(s) span more than HTML allows (up to rowspan {max(r for r, _ in spans):,}, "
                     f"colspan {max(c for _, c in spans):,}); their spans were clipped to the table's "
                     f"{len(rows):,} rows and {widest:,} columns")
    max_chars = TABLE_EXPANSION * source_chars
    capped, clipped = _clip_span_copies(capped, max_chars)
    if clipped:
        notes.append(f"{clipped:,} cell(s) spanning so many slots that the grid's text would pass {max_chars:,} "
                     f"characters ({TABLE_EXPANSION} times the table's {source_chars:,} characters of markup) "
                     f"kept their text once, their spans clipped to one slot")
    used = area = 0
    kept = len(capped)
    for r, row in enumerate(capped):
        used = max(used, sum(c.colspan for c in row))
        area += sum(c.colspan * c.rowspan for c in row)
        if r and (area > max_cells or (r + 1) * used > max_cells):
            kept = r
            break
    if kept < len(capped):
        capped = _rows_before(capped, kept)
        notes.append(f"{len(rows):,} rows of up to {widest:,} columns are over the limit of {max_cells:,} cells "
                     f"(EVIDENT_INGEST_MAX_TABLE_CELLS); the first {kept:,} rows were indexed, "
                     f"{len(rows) - kept:,} left out")
    kept = _rows_verbalized_within(capped, max_chars)
    if kept < len(capped):
        notes.append(f"its rows verbalize to over {max_chars:,} characters ({TABLE_EXPANSION} times the table's "
                     f"{source_chars:,} characters of markup: column names repeat in every row); the first "
                     f"{kept:,} rows were indexed, {len(capped) - kept:,} left out")
        capped = _rows_before(capped, kept)
    return capped, "; ".join(notes)


def _clip_span_copies(rows: list[list[Cell]], max_chars: int) -> tuple[list[list[Cell]], int]:
    """The rows with the spans of the cells, in reading order, whose copies would take the grid's text (every slot
    counting its cell's text and one character) past ``max_chars`` clipped to one slot; and how many were."""
    grid = clipped = 0
    out = []
    for row in rows:
        kept = []
        for c in row:
            slots = c.colspan * c.rowspan
            grid += slots * (len(c.text) + 1)
            if slots > 1 and grid > max_chars:
                grid -= (slots - 1) * (len(c.text) + 1)
                c, clipped = replace(c, rowspan=1, colspan=1), clipped + 1
            kept.append(c)
        out.append(kept)
    return out, clipped


def _rows_before(rows: list[list[Cell]], kept: int) -> list[list[Cell]]:
    """The first ``kept`` rows, rowspans ending at the cut."""
    return [[c if c.rowspan <= kept - r else replace(c, rowspan=kept - r) for c in row]
            for r, row in enumerate(rows[:kept])]


def _rows_verbalized_within(rows: list[list[Cell]], max_chars: int) -> int:
    """How many of the rows (header rows and at least one body row among them) verbalize to at most ``max_chars``
    characters, counted from the cells' text and column names before any row is verbalized."""
    matrix = expand_spans(rows)
    header_rows = header_row_count(matrix)
    names = column_names(matrix, header_rows)
    used = 0
    for r in range(header_rows, len(matrix)):
        seen: set[int] = set()
        used += _ROW_PREFIX_CHARS
        for col, cell in enumerate(matrix[r]):
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                used += len(names[col]) + len(cell.text) + _PAIR_CHARS
        if used > max_chars and r > header_rows:
            return r
    return len(matrix)


def expand_spans(rows: list[list[Cell]]) -> list[list[Cell | None]]:
    """Lay cells out on a full matrix, repeating a spanning cell in every slot it covers."""
    matrix: list[list[Cell | None]] = []
    pending: dict[tuple[int, int], Cell] = {}
    for r, row in enumerate(rows):
        out: list[Cell | None] = []
        col = 0
        cells = iter(row)
        while True:
            if (r, col) in pending:
                out.append(pending.pop((r, col)))
                col += 1
                continue
            cell = next(cells, None)
            if cell is None:
                break
            for dc in range(max(cell.colspan, 1)):
                out.append(cell)
                for dr in range(1, max(cell.rowspan, 1)):
                    pending[(r + dr, col + dc)] = cell
            col += max(cell.colspan, 1)
        # slots still pending at the row's end (rowspans beyond its own cells)
        while (r, col) in pending:
            out.append(pending.pop((r, col)))
            col += 1
        matrix.append(out)
    width = max((len(row) for row in matrix), default=0)
    return [row + [None] * (width - len(row)) for row in matrix]


def header_row_count(matrix: list[list[Cell | None]]) -> int:
    """Leading rows made of header cells; a blank non-header corner cell (first column) is allowed."""
    count = 0
    for row in matrix:
        cells = [c for c in row if c is not None]
        if cells and any(c.header for c in cells) and all(
                c.header or (col == 0 and not c.text.strip()) for col, c in enumerate(row) if c is not None):
            count += 1
        else:
            break
    if count == len(matrix):  # a table of headers only: treat the first row as the header
        return min(1, count)
    return count


def _has_header_column(matrix: list[list[Cell | None]], header_rows: int) -> bool:
    body = matrix[header_rows:]
    return bool(body) and all(row and row[0] is not None and row[0].header for row in body)


def column_names(matrix: list[list[Cell | None]], header_rows: int) -> list[str]:
    names = []
    for col in range(len(matrix[0]) if matrix else 0):
        parts: list[str] = []
        for r in range(header_rows):
            cell = matrix[r][col]
            text = cell.text.strip() if cell else ""
            if text and (not parts or parts[-1] != text):
                parts.append(text)
        names.append(" ".join(parts))
    return names


def verbalize(rows: list[list[Cell]], table_no: int) -> tuple[str, list[tuple[int, str]]]:
    """The whole table verbalized, and its verbalized body rows with their numbers (an empty row has
    a number but no text)."""
    matrix = expand_spans(rows)
    if not matrix:
        return "", []
    header_rows = header_row_count(matrix)
    names = column_names(matrix, header_rows)
    header_col = _has_header_column(matrix, header_rows)
    row_texts: list[tuple[int, str]] = []
    for i, row in enumerate(matrix[header_rows:], start=1):
        pairs: list[str] = []
        label = ""  # a header column's value when its column has no name
        seen: set[int] = set()
        for col, cell in enumerate(row):
            if cell is None or id(cell) in seen:
                continue
            seen.add(id(cell))
            value = cell.text.strip()
            if not value:
                continue
            name = names[col] if col < len(names) else ""
            if header_col and col == 0:
                if name:
                    pairs.insert(0, f"{name} is {value}")
                else:
                    label = value
            elif name and name != value:
                pairs.append(f"{name} is {value}")
            else:
                pairs.append(value)
        if label and not pairs:
            pairs = [label]
        elif label and not header_rows:  # "Date is 2025-02-07"
            pairs = [f"{label} is " + ", ".join(pairs)]
        elif label:  # blank corner cell: "Main phone: Karlsruhe is X, and Dresden is Y"
            pairs = [f"{label}: " + ", and ".join(pairs)]
        if pairs:
            row_texts.append((i, f"Row {i} in Table {table_no}: " + ", and ".join(pairs)))
    header_line = ""
    if header_rows:
        header_line = f"Table {table_no} columns: " + ", ".join(n for n in names if n) + ". "
    return (header_line + " ".join(_sentence(t) for _, t in row_texts)).strip(), row_texts


def glossary_definitions(rows: list[list[Cell]]) -> dict[int, list[str]]:
    """Each body row's acronym definitions as the index stores them (``acronyms.keyword``), by row number as
    ``verbalize`` numbers them: a cell holding an acronym whose next cell starts with its long form."""
    matrix = expand_spans(rows)
    found: dict[int, list[str]] = {}
    for i, row in enumerate(matrix[header_row_count(matrix):] if matrix else [], start=1):
        cells = [c.text for c in row if c is not None]
        pairs = [keyword(name.strip(), long) for name, meaning in zip(cells, cells[1:])
                 if (long := cell_definition(name, meaning))]
        if pairs:
            found[i] = list(dict.fromkeys(pairs))
    return found


def markdown_table(rows: list[list[Cell]]) -> str:
    """A pipe-table rendering of a cell grid for display; header rows merge into one header line."""
    matrix = expand_spans(rows)
    if not matrix or not matrix[0]:
        return ""
    header_rows = header_row_count(matrix)
    if header_rows:
        head, body = column_names(matrix, header_rows), matrix[header_rows:]
    else:
        head, body = [c.text if c else "" for c in matrix[0]], matrix[1:]

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    for row in body:
        out, prev = [], None
        for c in row:
            out.append("" if c is None or c is prev else cell(c.text))
            prev = c
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines)


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def table_blocks(rows: list[list[Cell]], table_no: int, heading_path: list[str], page: int | None = None,
                 meta: dict | None = None) -> list[Block]:
    """The ``table`` block and one ``table_row`` block per verbalized body row; none for an empty
    table. ``meta`` is added to every block's own (table and row numbers)."""
    text, numbered = verbalize(rows, table_no)
    if not text.strip():
        return []
    extra = dict(meta or {})
    defined = glossary_definitions(rows)
    blocks = [Block(kinds.TABLE, text, list(heading_path), page, {"table_no": table_no, "rows": len(numbered),
                                                                  **extra})]
    for row_no, row_text in numbered:
        blocks.append(Block(kinds.TABLE_ROW, row_text, list(heading_path), page,
                            {"table_no": table_no, "row_no": row_no, **extra,
                             **({"defines": defined[row_no]} if row_no in defined else {})}))
    return blocks
