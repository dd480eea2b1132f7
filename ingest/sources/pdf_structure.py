"""A PDF page's lines as structure: headings with their levels, paragraphs and lists.

Headings are lines set larger than the body text (``pdf_layout.body_size``) or short lines set in
bold; their level comes from the style's rank (larger first) refined by the heading's numbering
("2" above "2.3"); styles that occur only on a multi-page document's first page are its title page,
not headings. On OCR pages (no fonts) a heading is a short numbered line, or a short line set much
larger than the page's median. Bullet and numbered items become one ``ItemList`` per list.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.sources.pdf_layout import BULLET_CHARS, DASH_BULLETS, PARAGRAPH_GAP, Line, Page, body_size
from ingest.sources.pdf_tables import Table

__all__ = ["Heading", "Para", "ItemList", "HeadingStyles", "structure"]

_BULLET_RE = re.compile(rf"^([{re.escape(BULLET_CHARS)}])\s*(\S.*)$")
_DASH_BULLET_RE = re.compile(rf"^([{re.escape(DASH_BULLETS)}])\s+(\S.*)$")
_NUMBERED_ITEM_RE = re.compile(r"^(\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)])\s+(\S.*)$")
_HEADING_NUMBER_RE = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")
_MULTILEVEL_HEADING_RE = re.compile(r"^\d{1,3}(?:\.\d{1,3})+\.?\s+[^\W\d_]")
_LETTER = re.compile(r"[^\W\d_]")

_NO_BODY_SIZE = 10.0  # a document of scans only: no text-layer line is ever judged against it
_MAX_HEADING_WORDS = 25  # a longer line is body text whatever its font
_MAX_HEADING_CHARS = 200  # ... and so is a line of more characters
_HEADING_SIZE = 1.12  # a line set 12 % larger than the body is a heading (11.2 pt over 10 pt)
_BOLD_HEADING_SIZE = 0.9  # a bold heading is set at about the body size, not in a footnote's
_MAX_BOLD_HEADING_WORDS = 14  # a longer bold line is emphasis inside the text
_MAX_NUMBERED_HEADING_WORDS = 10  # "2.3 Time account and overtime"; longer numbered lines are list items
_MAX_OCR_BIG_HEADING_WORDS = 12  # a large line with more words on a scan is a pull quote or a title block
_OCR_HEADING_SIZE = 1.4  # on a scan, a line whose words are 1.4 times the page's median height is a heading
_OCR_LEAD_SHARE = 0.6  # a first line under 0.6 of the next one's length is a heading Tesseract joined to it
_MAX_HEADING_LINES = 3  # a heading style continued on up to three lines is one heading
_ITEM_ALIGNMENT = 2.0  # points: a dash or numbered line aligned with the list's items is another item
_HANGING_INDENT = 1.0  # points the item's text must start right of its bullet to be a hanging indent
_HANGING_SHARE = 0.5  # a line indented less than half the hanging indent is outside the item
_FLUSH = 1.0  # points: a line this close to the item's left edge is flush with it


@dataclass
class Heading:
    text: str
    key: tuple[int, int]
    style: tuple[float, bool] = (0.0, False)
    y1: float = 0.0
    lines: int = 1


@dataclass
class Para:
    lines: list[Line]


@dataclass
class ItemList:
    items: list[tuple[str, list[Line]]]  # marker, lines


def _numbering_depth(text: str) -> int:
    m = _HEADING_NUMBER_RE.match(text)
    return m.group(1).count(".") + 1 if m else 1


def _style(line: Line) -> tuple[float, bool]:
    return (line.size, line.bold)


class HeadingStyles:
    """Which text lines are headings, and the level key of each heading style.

    Construction classifies every line (``Line.kind``) and finds the document's title: the largest
    title-page lines, else the first heading.
    """

    def __init__(self, pages: list[Page]):
        body = body_size(pages)
        self.body = _NO_BODY_SIZE if body is None else body
        style_pages: dict[tuple[float, bool], set[int]] = {}  # heading styles in use, and on which pages
        for page in pages:
            if page.ocr:
                _classify_ocr(page)
                continue
            lines = [it for it in page.items if isinstance(it, Line)]
            for i, line in enumerate(lines):
                nxt = lines[i + 1] if i + 1 < len(lines) else None
                line.kind = _classify_text_line(line, nxt, self.body)
                if line.kind == "heading":
                    style_pages.setdefault(_style(line), set()).add(page.number)
        first = pages[0].number if pages else 1
        later = {s for s, ps in style_pages.items() if ps - {first}}
        title_styles = {s for s, ps in style_pages.items() if ps == {first}} if later else set()
        title_lines: list[Line] = []
        for page in pages:
            for item in page.items:
                if isinstance(item, Line) and item.kind == "heading" and _style(item) in title_styles:
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
                               if isinstance(it, Line) and it.kind == "heading"), "")

    def key(self, line: Line) -> tuple[int, int]:
        if line.ocr:
            big = line.marker == "big"
            return (1 if big else self.lowest + 1, 1 if big else _numbering_depth(line.text))
        return (self.rank.get(_style(line), self.lowest), _numbering_depth(line.text))


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith((".", ",", ";", ":"))


def _classify_text_line(line: Line, nxt: Line | None, body: float) -> str:
    words = len(line.text.split())
    if _list_marker(line):
        return "item"
    if words > _MAX_HEADING_WORDS or len(line.text) > _MAX_HEADING_CHARS:
        return "body"
    if line.size >= body * _HEADING_SIZE and _LETTER.search(line.text):
        return "heading"
    # a short bold line on its own, unless it opens a paragraph set all in bold
    bold_paragraph = nxt is not None and nxt.bold and not nxt.para_start and nxt.block == line.block
    if (line.bold and line.size >= body * _BOLD_HEADING_SIZE and words <= _MAX_BOLD_HEADING_WORDS
            and not _ends_sentence(line.text) and line.para_start and not bold_paragraph
            and _LETTER.search(line.text)):
        return "heading"
    if (_MULTILEVEL_HEADING_RE.match(line.text) and words <= _MAX_NUMBERED_HEADING_WORDS and line.para_start
            and (nxt is None or nxt.para_start) and not _ends_sentence(line.text)
            and not re.search(r"\d\s*$", line.text)):
        return "heading"
    return "body"


def _list_marker(line: Line) -> str:
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


def _classify_ocr(page: Page) -> None:
    lines = [it for it in page.items if isinstance(it, Line)]
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
                 and len(line.text) < _OCR_LEAD_SHARE * len(nxt.text) and nxt.text[:1].isupper())
        if _list_marker(line):
            line.kind = "item"
        elif ((alone or leads) and words <= _MAX_NUMBERED_HEADING_WORDS and _HEADING_NUMBER_RE.match(line.text)
              and not _ends_sentence(line.text) and re.search(r"\s[^\W\d_]{3}", line.text)
              and not re.search(r"\d\s*$", line.text)):
            line.kind, line.marker = "heading", "numbered"
        elif (alone and words <= _MAX_OCR_BIG_HEADING_WORDS and line.size >= _OCR_HEADING_SIZE * median
              and not _ends_sentence(line.text) and (line.text[:1].isupper() or line.text[:1].isdigit())
              and re.search(r"[^\W\d_]{2}", line.text)):
            line.kind, line.marker = "heading", "big"
        else:
            line.kind = "body"
        if line.kind == "heading":
            line.text = re.sub(r"(\s+[^\w\s]+)+$", "", line.text)  # "4 Devices |": a speck after the heading
            if nxt is not None:
                nxt.para_start = True


def _item_text(line: Line) -> tuple[str, str]:
    for pattern in (_BULLET_RE, _DASH_BULLET_RE):
        m = pattern.match(line.text)
        if m:
            return "-", m.group(2)
    m = _NUMBERED_ITEM_RE.match(line.text)
    return (m.group(1), m.group(2)) if m else ("-", line.text)


def _item_line(line: Line) -> tuple[str, list[Line]]:
    marker, text = _item_text(line)
    return marker, [Line(**{**line.__dict__, "text": text})]


def structure(page: Page, headings: HeadingStyles) -> list:
    """A page's elements in order: Heading, Para, ItemList, Table."""
    out: list = []
    for item in page.items:
        if isinstance(item, Table):
            out.append(item)
            continue
        line = item
        last = out[-1] if out else None
        if line.kind == "heading":
            key = headings.key(line)
            style = _style(line)
            if (isinstance(last, Heading) and last.key == key and last.style == style
                    and last.lines < _MAX_HEADING_LINES and line.y0 - last.y1 < PARAGRAPH_GAP * max(line.size, 1.0)):
                last.text = f"{last.text} {line.text}"  # a heading set on two or three lines
                last.lines += 1
                last.y1 = line.y1
                continue
            out.append(Heading(line.text, key, style, line.y1))
        elif line.kind == "item":
            line.text_x0 = max(line.text_x0, line.x0)
            if isinstance(last, ItemList):
                last.items.append(_item_line(line))
            else:
                out.append(ItemList([_item_line(line)]))
        elif isinstance(last, ItemList) and (_DASH_BULLET_RE.match(line.text) or _NUMBERED_ITEM_RE.match(line.text)) \
                and abs(line.x0 - last.items[-1][1][0].x0) < _ITEM_ALIGNMENT:
            last.items.append(_item_line(line))
        elif isinstance(last, ItemList) and not _ends_list(last, line):
            last.items[-1][1].append(line)  # an item's wrapped line
        elif isinstance(last, Para) and not line.para_start:
            last.lines.append(line)
        else:
            out.append(Para([line]))
    return out


def _ends_list(lst: ItemList, line: Line) -> bool:
    first = lst.items[-1][1][0]
    indent = line.x0 - first.x0
    if line.para_start and line.y0 - lst.items[-1][1][-1].y1 > PARAGRAPH_GAP * max(line.size, 1.0):
        return True
    if first.text_x0 > first.x0 + _HANGING_INDENT:  # the item's text starts right of its bullet
        return indent < (first.text_x0 - first.x0) * _HANGING_SHARE
    return indent < _FLUSH and line.para_start
