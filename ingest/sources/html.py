"""Generic HTML pages (a site export): one ``.html``/``.htm`` file is one document.

Metadata:
  * title: ``SourceFile.title`` (a manifest), else ``<title>``, else the first ``<h1>``, else the file name;
  * breadcrumb: the page's breadcrumb navigation (``nav[aria-label*=breadcrumb]``, ``.breadcrumb``,
    ``.breadcrumbs``, schema.org ``BreadcrumbList``; the current page itself is left out), else the
    folders of ``SourceFile.name`` (``guides/it/vpn.html`` -> ``["guides", "it"]``);
  * labels: ``<meta name="keywords" content="a, b">``;
  * lang: ``<html lang>`` (primary subtag, ``de-DE`` -> ``de``), else ``SourceFile.lang``;
  * acl: ``<meta name="acl" content="group1,group2">`` (groups allowed to read, each a group whatever its
    name: ``ingest.principals``; absent = public) together with ``SourceFile.acl``;
  * updated / author: ``<meta name="last-modified|dcterms.modified|article:modified_time|date">`` /
    ``<meta name="author">``;
  * url: ``SourceFile.url`` (the folder's manifest or base URL, see ``workers.folder``), else none.

Bytes: decoded by ``ingest.charset.decode_markup`` (their byte-order mark or UTF-16 form, strict UTF-8, the
charset the page declares, then a guess that is recorded as a warning); lxml then parses the text.

Content: the first of ``<main>``, ``[role=main]``, a single ``<article>``, ``#content``/``.content``,
else ``<body>`` (also when the element chosen holds no text, with a warning). Site chrome is dropped wherever it is: ``nav``, ``header`` (kept inside the chosen
main content), ``footer``, ``aside`` (unless it is a note), ``script``/``style``/``noscript``, forms and
controls, ``.sidebar``, breadcrumbs, tables of contents, cookie/consent banners, hidden elements.
Blocks are those of ``ingest.markup.Walker`` plus panels for ``<aside class="note">``,
``.admonition`` (Sphinx/MkDocs), ``.alert`` (Bootstrap), ``.callout`` and ``.note``/``.warning``/
``.tip``/``.info`` boxes.
"""
from __future__ import annotations

from pathlib import PurePosixPath

import lxml.html
from lxml import etree

from ingest.blocks import ParsedDocument, ParseError
from ingest.charset import decode_markup
from ingest.config import IngestConfig
from ingest.evidence import Document
from ingest.limits import MARKUP_SLACK, binary_reason, flatten_markup, flatten_tree
from ingest.markup import Walker, classes, clean, one_line, tag_of
from ingest.principals import principals
from ingest.sources import SourceFile
from text.langcode import normalize_lang

CHROME_TAGS = {"nav", "footer", "form", "button", "select", "input", "textarea", "iframe", "svg", "canvas",
               "object", "embed", "dialog", "menu"}
CHROME_ROLES = {"navigation", "banner", "contentinfo", "search", "complementary", "menu", "menubar", "dialog",
                "alertdialog"}
CHROME_CLASSES = {"sidebar", "side-bar", "breadcrumb", "breadcrumbs", "toc", "table-of-contents", "skip-link",
                  "sr-only", "visually-hidden", "headerlink", "navbar", "site-header", "site-footer", "pagination",
                  "share", "social"}
CHROME_WORDS = ("cookie", "consent", "gdpr")
PANEL_KINDS = ("note", "info", "tip", "warning", "caution", "danger", "important", "hint", "attention", "error",
               "success", "seealso")
PANEL_MARKERS = {"admonition", "alert", "callout", "note", "warning", "tip", "info", "caution", "danger",
                 "important", "hint", "notice"}
TITLE_CLASSES = {"admonition-title", "alert-heading", "callout-title", "alert-title", "note-title"}
SEPARATORS = {"/", ">", "»", "›", "|", "→", "\\", "·", "-", "–", "—", ">>"}


def panel_kind(el) -> str:
    """The panel kind of an admonition-like element, or "" when it is not one."""
    cls = classes(el)
    if tag_of(el) not in ("div", "aside", "section", "p", "blockquote") or not cls & PANEL_MARKERS:
        return ""
    flat = {c.split("-", 1)[1] if c.startswith(("alert-", "callout-", "admonition-")) else c for c in cls}
    for kind in PANEL_KINDS:
        if kind in flat:
            return {"danger": "warning", "caution": "warning", "attention": "warning", "error": "warning",
                    "hint": "tip", "important": "note", "seealso": "info", "success": "tip"}.get(kind, kind)
    return "note"


def is_chrome(el) -> bool:
    tag = tag_of(el)
    if tag in CHROME_TAGS:
        return True
    if tag == "aside" and not panel_kind(el):
        return True
    if (el.get("role") or "").lower() in CHROME_ROLES:
        return True
    if el.get("hidden") is not None or (el.get("aria-hidden") or "").lower() == "true":
        return True
    if "display:none" in (el.get("style") or "").replace(" ", "").lower():
        return True
    cls = classes(el)
    if cls & CHROME_CLASSES:
        return True
    ident = (el.get("id") or "").lower()
    if ident in ("toc", "sidebar", "breadcrumb", "breadcrumbs"):
        return True
    marks = " ".join(cls) + " " + ident
    return any(word in marks for word in CHROME_WORDS)


class HtmlWalker(Walker):
    """The shared walker plus site-chrome removal and admonition panels."""

    def __init__(self, main, title: str = "", config: IngestConfig | None = None) -> None:
        super().__init__(config)
        self.main = main
        self.title = title

    def heading(self, level: int, text: str) -> None:
        """The page's own ``<h1>`` repeats the title: it opens the page instead of becoming a heading."""
        if level == 1 and self.title and text.casefold() == self.title.casefold():
            self.flush()
            self.headings = []
            return
        super().heading(level, text)

    def skip(self, el, tag: str) -> bool:
        if super().skip(el, tag) or is_chrome(el):
            return True
        # a page header is chrome; a header inside the main content (an article's title block) is not
        return tag == "header" and self.main is not None and tag_of(self.main) == "body"

    def special_block(self, el, tag: str) -> bool:
        kind = panel_kind(el)
        if not kind:
            return False
        title_el = None
        for c in el:
            if classes(c) & TITLE_CLASSES:
                title_el = c
                break
        title = one_line(self.inline_content(title_el)) if title_el is not None else ""
        self.panel(kind, title, el, exclude=title_el)
        return True

    def is_block(self, el, tag: str) -> bool:
        return bool(panel_kind(el)) or super().is_block(el, tag)


def _parse_html(text: str, name: str, config: IngestConfig, notes: list[str]):
    """The page's element tree, nested at most ``max_nesting_depth`` deep: deeper markup is flattened
    (its text kept) and a note says so. ``huge_tree``, or libxml2 silently drops a text over 10 MB and
    everything nested over 256 deep."""
    depth = config.max_nesting_depth
    try:
        parser = lxml.html.HTMLParser(encoding="utf-8", huge_tree=True)
        tree = lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)
        if any("depth" in entry.message.lower() for entry in parser.error_log):
            depth -= MARKUP_SLACK
            flat, dropped = flatten_markup(text, config.max_nesting_depth)
            notes.append(f"markup nested deeper than the parser reads; {dropped:,} tags below "
                         f"{config.max_nesting_depth} levels (EVIDENT_INGEST_MAX_NESTING_DEPTH) were flattened, "
                         f"their text kept")
            tree = lxml.html.document_fromstring(flat.encode("utf-8"), parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ParseError(name, f"not parseable as HTML: {exc}") from exc
    if tree is None:
        raise ParseError(name, "not parseable as HTML")
    folded = flatten_tree(tree, depth)
    if folded and not notes:
        notes.append(f"markup nested over {config.max_nesting_depth} levels deep "
                     f"(EVIDENT_INGEST_MAX_NESTING_DEPTH); {folded:,} elements below were flattened, their text kept")
    return tree


def _drop_keep_tail(el) -> None:
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail or ""
    prev = el.getprevious()
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def _meta(tree, *names: str) -> str:
    wanted = {n.lower() for n in names}
    for m in tree.iter("meta"):
        key = (m.get("name") or m.get("property") or m.get("http-equiv") or "").lower()
        if key in wanted and (m.get("content") or "").strip():
            return m.get("content").strip()
    return ""


def _split(value: str) -> list[str]:
    return list(dict.fromkeys(v.strip() for v in value.replace(";", ",").split(",") if v.strip()))


def _find(root, predicate):
    for el in root.iter():
        if tag_of(el) and predicate(el):
            return el
    return None


def breadcrumb_of(tree, title: str) -> list[str]:
    def is_trail(el) -> bool:
        label = (el.get("aria-label") or "").lower()
        cls = " ".join(classes(el))
        return ("breadcrumb" in label or "breadcrumb" in cls or "breadcrumb" in (el.get("id") or "").lower()
                or "breadcrumblist" in (el.get("itemtype") or "").lower())

    trail = _find(tree, is_trail)
    if trail is None:
        return []
    items = [el for el in trail.iter() if tag_of(el) == "li"]
    if not items:
        items = [el for el in trail.iter() if tag_of(el) == "a"]
    names: list[str] = []
    for item in items:
        if item.get("aria-current") == "page" or any(
                a.get("aria-current") == "page" for a in item.iter() if tag_of(a)):
            continue
        text = one_line(item.text_content())
        if text and text not in SEPARATORS and text not in names:
            names.append(text)
    if names and title and names[-1].casefold() == title.casefold():
        names.pop()
    return names


def main_of(tree):
    body = tree.find(".//body")
    root = body if body is not None else tree
    candidates = [
        lambda el: tag_of(el) == "main",
        lambda el: (el.get("role") or "").lower() == "main",
    ]
    for predicate in candidates:
        found = _find(root, predicate)
        if found is not None:
            return found
    articles = [el for el in root.iter("article")]
    if len(articles) == 1:
        return articles[0]
    found = _find(root, lambda el: (el.get("id") or "").lower() == "content")
    if found is None:
        found = _find(root, lambda el: "content" in classes(el))
    return found if found is not None else root


class HtmlSource:
    name = "html"

    def accepts(self, file: SourceFile) -> bool:
        return file.name.lower().endswith((".html", ".htm"))

    def parse(self, file: SourceFile, config: IngestConfig) -> ParsedDocument:
        if not file.data.strip():
            raise ParseError(file.name, "empty file (no bytes, or only whitespace)")
        if file.data.lstrip()[:5] == b"%PDF-":
            raise ParseError(file.name, "a PDF named like an HTML page; rename it .pdf to have it read as a PDF")
        binary = binary_reason(file.data, config)
        if binary:
            raise ParseError(file.name, f"{binary}; a file named .html must be an HTML page")
        text, guessed = decode_markup(file.data)
        markup_notes: list[str] = []
        tree = _parse_html(text, file.name, config, markup_notes)
        notes = [note for note in (guessed, *markup_notes) if note]
        for el in list(tree.iter(etree.Comment, etree.ProcessingInstruction)):
            _drop_keep_tail(el)

        title_el = tree.find(".//title")
        h1 = tree.find(".//h1")
        title = clean(file.title) or (one_line(title_el.text_content()) if title_el is not None else "") \
            or (one_line(h1.text_content()) if h1 is not None else "") or PurePosixPath(file.name).stem
        breadcrumb = breadcrumb_of(tree, title) or list(PurePosixPath(file.name).parent.parts)
        breadcrumb = [b for b in breadcrumb if b not in (".", "/")]
        lang = normalize_lang(tree.get("lang") or tree.get("xml:lang")) or file.lang
        acl = list(dict.fromkeys([*principals(_split(_meta(tree, "acl"))), *file.acl]))
        document = Document(
            doc_id=file.doc_id("html", file.name), source_type="html", url=file.url, title=title, breadcrumb=breadcrumb,
            labels=_split(_meta(tree, "keywords")), acl=acl, lang=lang,
            updated=_meta(tree, "last-modified", "dcterms.modified", "article:modified_time", "date"),
            author=_meta(tree, "author"),
        )
        main = main_of(tree)
        walker = HtmlWalker(main, title, config)
        if main is not None:
            walker.walk(main)
        blocks = walker.finish()
        body = tree.find(".//body")
        if not blocks and body is not None and main is not body:  # the text lives outside what looked like content
            notes.append(f"its main content (<{tag_of(main)}>) holds no text; the whole page was read instead")
            walker = HtmlWalker(body, title, config)
            walker.walk(body)
            blocks = walker.finish()
        if not blocks:
            raise ParseError(file.name, "no readable text (only markup, scripts, styles or site chrome)")
        return ParsedDocument(document, blocks, [f"{file.name}: {note}" for note in [*notes, *walker.problems]])
