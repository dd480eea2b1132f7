"""The element walk shared by the HTML-like sources: markup in, typed blocks in reading order out.

``Walker`` knows plain (X)HTML: headings build the heading path; runs of
paragraphs between two non-paragraph blocks become one ``passage``; ``ul``/
``ol``/``dl`` become one ``list`` each; tables become a verbalized ``table``
plus one ``table_row`` per body row (``ingest.tables``); ``pre`` becomes
``code``; ``details`` is walked like Confluence's expand macro. Subclasses add
their own elements through a few hooks (``skip``, ``is_block``,
``special_block``, ``special_inline``): the Confluence source adds the
``ac:``/``ri:`` storage-format elements, the HTML source adds site chrome
removal and CSS-class admonitions.

Works on lxml trees, from ``lxml.html`` (plain tags) or ``lxml.etree``
(namespaced tags, shown as ``prefix:local`` by ``tag_of`` for the prefixes in
``NAMESPACES``).
"""
from __future__ import annotations

import re
from html.entities import html5

from lxml import etree

from ingest import evidence as kinds
from ingest.blocks import Block
from ingest.config import IngestConfig
from ingest.tables import Cell, limit_table, markdown_table, table_blocks

NAMESPACES = {
    "ac": "http://atlassian.com/content",
    "ri": "http://atlassian.com/resource/identifier",
}
_PREFIX_OF = {uri: prefix for prefix, uri in NAMESPACES.items()}

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
LISTS = {"ul", "ol", "dl"}
# Elements whose content is walked as blocks (they hold paragraphs, lists, tables ...).
CONTAINERS = {
    "html", "body", "main", "article", "section", "div", "p", "blockquote", "figure", "figcaption",
    "address", "center", "header", "hgroup", "search", "fieldset", "legend", "dd", "dt", "li", "td", "th",
}
BLOCK_TAGS = CONTAINERS | set(HEADINGS) | LISTS | {
    "table", "pre", "hr", "details", "summary", "nav", "aside", "footer", "form", "caption",
    "thead", "tbody", "tfoot", "tr", "colgroup", "col", "noscript", "script", "style", "template",
}
# Never content, wherever they are.
ALWAYS_SKIP = {"script", "style", "noscript", "template", "head", "title", "meta", "link", "colgroup", "col"}

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u00ad\ufeff"), None)
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_CDATA = re.compile(r"(<!\[CDATA\[.*?\]\]>)", re.S)
_SOURCE_BREAKS = re.compile(r"[\r\n\t\f\v]+")


# ---------------------------------------------------------------- text helpers

def clean(text: str) -> str:
    """Collapse whitespace inside each line (NBSP included), drop empty lines and invisible characters."""
    lines = (" ".join(line.split()) for line in text.translate(_INVISIBLE).split("\n"))
    return "\n".join(line for line in lines if line)


def one_line(text: str) -> str:
    """All whitespace, newlines included, collapsed to single spaces."""
    return " ".join(text.translate(_INVISIBLE).split())


def code_text(text: str) -> str:
    """Code keeps its lines and indentation; only trailing blanks and blank edge lines go."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\u00a0", " ").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def replace_named_entities(markup: str) -> str:
    """Turn HTML named entities (``&nbsp;``, ``&mdash;`` ...) into numeric references an XML parser accepts."""

    def sub(match: re.Match) -> str:
        name = match.group(1)
        if name in _XML_ENTITIES:
            return match.group(0)
        chars = html5.get(name + ";")
        if chars is None:
            return "&amp;" + name + ";"  # unknown entity: keep it as literal text
        return "".join(f"&#{ord(c)};" for c in chars)

    parts = _CDATA.split(markup)  # odd items are CDATA sections, which are literal text
    return "".join(part if i % 2 else _ENTITY.sub(sub, part) for i, part in enumerate(parts))


def source_text(text: str | None) -> str:
    """Text as written in the markup: line breaks in the source are just spaces (``<br>`` and blocks make lines)."""
    return _SOURCE_BREAKS.sub(" ", text) if text else ""


def image_marker(name: str) -> str:
    """An image in running text: ``[image: <alt or file name>]`` (with a leading space so it never glues to a word)."""
    name = one_line(name or "")
    return f" [image: {name}]" if name else " [image]"


def tag_of(el) -> str:
    """``p``, ``ac:structured-macro`` ...; "" for comments and processing instructions."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    if tag.startswith("{"):
        uri, local = tag[1:].split("}", 1)
        prefix = _PREFIX_OF.get(uri)
        return f"{prefix}:{local}" if prefix else local
    return tag.lower()


def attr(el, name: str, default: str = "") -> str:
    """An attribute by its prefixed name (``ac:name``), namespaced or not."""
    if ":" in name:
        prefix, local = name.split(":", 1)
        uri = NAMESPACES.get(prefix)
        if uri is not None:
            value = el.get(f"{{{uri}}}{local}")
            if value is not None:
                return value
    value = el.get(name)
    return default if value is None else value


def classes(el) -> set[str]:
    return set((el.get("class") or "").lower().split())


def children(el, *tags: str) -> list:
    return [c for c in el if tag_of(c) in tags] if tags else [c for c in el if tag_of(c)]


def first_child(el, tag: str):
    for c in el:
        if tag_of(c) == tag:
            return c
    return None


def outermost(el, read) -> list:
    """What ``read`` gives for ``el`` and the elements below it in document order, not looking inside one it gave
    something for (its text holds theirs): nesting, a ``pre`` in a ``pre``, reads each text once, not per level."""
    found, stack = [], [el]
    while stack:
        node = stack.pop()
        value = read(node)
        if value is None:
            stack.extend(reversed(node))
        else:
            found.append(value)
    return found


def _span(value: str) -> int:
    """A rowspan, colspan or list start as written (``ingest.tables.limit_table`` caps spans and says so)."""
    try:
        return max(int(str(value).strip() or 1), 1)
    except ValueError:  # not a number, or one of over 4,300 digits
        return 1


# ---------------------------------------------------------------- the walker

class Walker:
    """Walks an element tree and collects blocks with the heading path at each point."""

    def __init__(self, config: IngestConfig | None = None) -> None:
        self.config = config or IngestConfig()
        self.problems: list[str] = []  # limits hit, as sentences without the file name (the source adds it)
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.table_no = 0
        self._para: list[str] = []

    # -- hooks for subclasses
    def skip(self, el, tag: str) -> bool:
        """True for elements that are not content (dropped with everything inside)."""
        return tag in ALWAYS_SKIP

    def is_block(self, el, tag: str) -> bool:
        return tag in BLOCK_TAGS

    def special_block(self, el, tag: str) -> bool:
        """Handle a block element the base walker does not know; True when handled."""
        return False

    def special_inline(self, el, tag: str) -> str | None:
        """Text of an inline element the base walker does not know; None to fall back to its text."""
        return None

    def child(self) -> Walker:
        """A walker for a nested body (a panel's) sharing this one's settings and table numbering."""
        sub = self.__class__.__new__(self.__class__)
        sub.__dict__.update(self.__dict__)
        sub.blocks, sub._para, sub.headings = [], [], list(self.headings)
        return sub

    # -- output
    @property
    def heading_path(self) -> list[str]:
        return [text for _, text in self.headings]

    def flush(self) -> None:
        """End the current paragraph run as one passage."""
        if self._para:
            self.blocks.append(Block(kinds.PASSAGE, "\n".join(self._para), self.heading_path))
            self._para = []

    def paragraph(self, text: str) -> None:
        text = clean(text)
        if text:
            self._para.append(text)

    def emit(self, kind: str, text: str, meta: dict | None = None) -> None:
        self.flush()
        if text and text.strip():
            self.blocks.append(Block(kind, text, self.heading_path, meta=dict(meta or {})))

    def finish(self) -> list[Block]:
        self.flush()
        return self.blocks

    # -- block level
    def walk(self, el, exclude=None) -> None:
        """Walk an element's content: inline runs become paragraphs, block children are dispatched."""
        run = [source_text(el.text)]
        for c in el:
            tag = tag_of(c)
            if not tag or c is exclude or self.skip(c, tag):
                run.append(source_text(c.tail))
                continue
            if self.is_block(c, tag):
                self.paragraph("".join(run))
                run = []
                self.block(c, tag)
            else:
                run.append(self.inline(c))
            run.append(source_text(c.tail))
        self.paragraph("".join(run))

    def block(self, el, tag: str) -> None:
        if self.special_block(el, tag):
            return
        if tag in HEADINGS:
            self.heading(HEADINGS[tag], one_line(self.inline_content(el)))
        elif tag in ("ul", "ol"):
            self.list_block(el, {"ordered": tag == "ol"}, self.list_lines(el, 0))
        elif tag == "dl":
            self.emit(kinds.LIST, "\n".join(self.definition_lines(el)))
        elif tag == "table":
            self.table(el)
        elif tag == "pre":
            self.code(el.xpath("string()"), self.code_language(el))
        elif tag == "details":
            summary = first_child(el, "summary")
            self.expand(one_line(self.inline_content(summary)) if summary is not None else "", el,
                        exclude=summary)
        elif tag == "hr":
            pass
        else:  # containers and anything unknown at block level
            self.walk(el)

    def heading(self, level: int, text: str) -> None:
        self.flush()
        if not text:
            return
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))

    def code(self, text: str, language: str = "", **meta) -> None:
        text = code_text(text)
        if text:
            self.emit(kinds.CODE, text, {"language": language, **{k: v for k, v in meta.items() if v}})

    @staticmethod
    def code_language(el) -> str:
        for node in el.iter():
            if not tag_of(node):
                continue
            for key in ("data-lang", "data-language"):
                if node.get(key):
                    return node.get(key)
            for cls in (node.get("class") or "").split():
                for prefix in ("language-", "lang-", "highlight-", "brush:"):
                    if cls.lower().startswith(prefix) and len(cls) > len(prefix):
                        return cls[len(prefix):]
            match = re.search(r"brush:\s*([\w+#-]+)", node.get("class") or "")
            if match:
                return match.group(1)
        return ""

    def expand(self, title: str, body, exclude=None) -> None:
        """A collapsible section: its title opens a passage, its body is walked in place."""
        self.flush()
        self.paragraph(title)
        if body is not None:
            self.walk(body, exclude)
        self.flush()

    def panel(self, kind: str, title: str, body, exclude=None) -> None:
        """One panel block (title and body text); lists, tables and code inside are also blocks of their own."""
        self.flush()
        sub = self.child()
        if body is not None:
            sub.walk(body, exclude)
        inner = sub.finish()
        self.table_no = sub.table_no
        parts = [clean(title)] if clean(title) else []
        parts += [b.text for b in inner if b.kind == kinds.PANEL  # a nested panel's text holds what it passed up
                  or (b.kind in (kinds.PASSAGE, kinds.LIST, kinds.CODE) and "panel" not in b.meta)]
        if parts:
            meta = {"panel": kind, "title": clean(title)} if clean(title) else {"panel": kind}
            self.emit(kinds.PANEL, "\n".join(parts), meta)
        for b in inner:
            if b.kind in (kinds.LIST, kinds.TABLE, kinds.TABLE_ROW, kinds.CODE):
                b.meta = {**b.meta, "panel": kind}
                self.blocks.append(b)

    # -- lists
    def list_block(self, el, meta: dict, lines: list[str]) -> None:
        """One list block; code inside its items stays in the item text and is also a code block of its own."""
        indent = min((len(line) - len(line.lstrip(" ")) for line in lines), default=0)
        self.emit(kinds.LIST, "\n".join(line[indent:] for line in lines), meta)
        for text, language in self.code_within(el):
            self.code(text, language, in_list=True)

    def code_within(self, el) -> list[tuple[str, str]]:
        """The outermost code elements below ``el``, in document order, as (text, language)."""
        return outermost(el, self.code_of)

    def code_of(self, el) -> tuple[str, str] | None:
        if tag_of(el) == "pre":
            return el.xpath("string()"), self.code_language(el)
        return None

    def list_item_parts(self, li) -> tuple[str, list]:
        """An item's own text (one line) and its nested lists."""
        nested, parts = [], [source_text(li.text)]
        for c in li:
            tag = tag_of(c)
            if not tag or self.skip(c, tag):
                pass
            elif self.is_nested_list(c, tag):
                nested.append(c)
            else:
                parts.append(self.inline(c))
            parts.append(source_text(c.tail))
        return one_line("".join(parts)), nested

    def is_nested_list(self, el, tag: str) -> bool:
        return tag in ("ul", "ol")

    def nested_lines(self, el, depth: int) -> list[str]:
        return self.list_lines(el, depth)

    def list_lines(self, el, depth: int) -> list[str]:
        ordered = tag_of(el) == "ol"
        number = _span(el.get("start") or "1") if ordered else 1
        lines: list[str] = []
        for c in el:
            tag = tag_of(c)
            if not tag or self.skip(c, tag):
                continue
            if tag == "li":
                text, nested = self.list_item_parts(c)
                if text:
                    lines.append("  " * depth + (f"{number}. " if ordered else "- ") + text)
                number += 1
                for sub in nested:
                    lines.extend(self.nested_lines(sub, depth + 1))
            elif self.is_nested_list(c, tag):  # a list directly inside a list: nest it
                lines.extend(self.nested_lines(c, depth + 1))
            else:
                text = one_line(self.inline(c))
                if text:
                    lines.append("  " * depth + "- " + text)
        return lines

    def definition_lines(self, el) -> list[str]:
        lines: list[str] = []
        term = ""
        for c in el:
            tag = tag_of(c)
            if tag == "div" and len(c):  # <dl><div><dt/><dd/></div></dl>
                lines.extend(self.definition_lines(c))
            elif tag == "div" and one_line(c.text or ""):  # its items flattened to text (ingest.limits)
                lines.append(f"  {one_line(c.text)}")
            elif tag == "dt":
                if term:
                    lines.append(f"- {term}")
                term = one_line(self.inline(c))
            elif tag == "dd":
                text = one_line(self.inline(c))
                if term and text:
                    lines.append(f"- {term}: {text}")
                elif text:
                    lines.append(f"  {text}")
                term = ""
        if term:
            lines.append(f"- {term}")
        return lines

    # -- tables
    def table_rows(self, table) -> list[list[Cell]]:
        rows: list[list[Cell]] = []

        def add(tr, head: bool) -> None:
            cells = []
            for c in tr:
                tag = tag_of(c)
                if tag in ("td", "th"):
                    cells.append(Cell(one_line(self.inline_content(c)), header=tag == "th" or head,
                                      rowspan=_span(c.get("rowspan") or "1"),
                                      colspan=_span(c.get("colspan") or "1")))
            if cells:
                rows.append(cells)

        for part in table:
            tag = tag_of(part)
            if tag in ("thead", "tbody", "tfoot"):
                for tr in part:
                    if tag_of(tr) == "tr":
                        add(tr, tag == "thead")
            elif tag == "tr":
                add(part, False)
        return rows

    def table(self, el) -> None:
        self.flush()
        caption = first_child(el, "caption")
        if caption is not None:
            self.paragraph(self.inline_content(caption))
            self.flush()
        markup_chars = len(etree.tostring(el, encoding="unicode", with_tail=False))
        rows, cut = limit_table(self.table_rows(el), self.config.max_table_cells, markup_chars)
        if cut:
            where = f" under '{' > '.join(self.heading_path)}'" if self.heading_path else ""
            self.problems.append(f"table {self.table_no + 1}{where}: {cut}")
        blocks = table_blocks(rows, self.table_no + 1, self.heading_path)
        if blocks:
            self.table_no += 1
            blocks[0].meta["markdown"] = markdown_table(rows)
            self.blocks.extend(blocks)

    # -- inline level
    def inline(self, el) -> str:
        """The text of an element and its descendants (not its tail); block boundaries become newlines."""
        tag = tag_of(el)
        if not tag or self.skip(el, tag):
            return ""
        special = self.special_inline(el, tag)
        if special is not None:
            return special
        if tag == "br":
            return "\n"
        if tag == "img":
            name = el.get("alt") or el.get("title") or (el.get("src") or "").rsplit("/", 1)[-1]
            return image_marker(name)
        text = self.inline_content(el)
        if tag in ("td", "th"):
            return f" {text} "
        if self.is_block(el, tag):
            return f"\n{text}\n"
        return text

    def inline_content(self, el) -> str:
        parts = [source_text(el.text)]
        for c in el:
            parts.append(self.inline(c))
            parts.append(source_text(c.tail))
        return "".join(parts)
