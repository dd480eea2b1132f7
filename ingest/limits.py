"""Limits that keep hostile or careless input from stalling ingest or vanishing without a word.

``binary_reason`` tells binary bytes named ``.html``/``.json`` from text; ``flatten_markup`` (on the markup,
for nesting deeper than libxml2 parses at all) and ``flatten_tree`` (on a parsed tree, for nesting deeper
than the recursive ``markup.Walker`` may walk) keep deep markup's text as one flat element; ``limit_text``
cuts a document's blocks to ``max_document_chars``; ``clip_labels`` shortens immense labels. Each returns
what it did, so the source records it as a sentence in ``ParsedDocument.errors``. The limits themselves are
``IngestConfig`` fields.
"""
from __future__ import annotations

import re
from collections import Counter

from lxml import etree

from ingest import evidence as kinds
from ingest.blocks import Block
from ingest.charset import text_encoding
from ingest.config import IngestConfig
from ingest.markup import tag_of

# Control bytes no text file holds (tab, line feed, form feed, carriage return and escape are text).
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27)) + b"\x7f"
# The markup tokens ``flatten_markup`` tracks; comments and CDATA pass through untouched.
_TOKEN = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<(/?)([A-Za-z][^\s/>]*)([^>]*)>", re.S)
# Elements that never have content, so they never open a nesting level.
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
         "wbr"}
# Elements a new one of their kind closes (``<p>a<p>b``), as HTML parsers do.
_SELF_CLOSING_SIBLINGS = {"p", "li", "dt", "dd", "tr", "td", "th", "option"}
# Elements whose text is never content (scripts, styles), left out of folded text.
_NO_TEXT = ("script", "style", "noscript", "template", etree.Comment, etree.ProcessingInstruction)
# Elements the walker reads only the children of (items, rows, cells, a macro's body), never their own text.
_READ_BY_CHILDREN = {"ul", "ol", "dl", "table", "thead", "tbody", "tfoot", "tr", "ac:structured-macro", "ac:macro",
                     "ac:task-list", "ac:task", "ac:adf-extension", "ac:adf-node", "ac:link", "ac:image"}
# Levels a parser adds over the markup's own (html, body, a root); after ``flatten_markup`` the tree is folded
# this much shallower, so no text it left straight inside a table or a list (read by children only) is lost.
MARKUP_SLACK = 3
# Kinds whose text repeats other blocks' (a table's rows, a PDF page's whole text): not counted twice.
_REPEATING_KINDS = {kinds.TABLE_ROW, kinds.PDF_PAGE}


def binary_reason(data: bytes, config: IngestConfig) -> str:
    """Why ``data`` is binary rather than text ("" when it looks like text): a NUL byte or too many control
    bytes in its first ``binary_sniff_bytes``. UTF-16/32 text (``charset.text_encoding``: a byte-order mark, or
    UTF-16's pattern of NUL bytes) is text: its NUL bytes are halves of characters."""
    if text_encoding(data) not in ("", "utf-8-sig"):
        return ""
    head = data[:config.binary_sniff_bytes]
    if b"\x00" in head:
        return "binary data (NUL bytes), not text"
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if head and controls / len(head) > config.max_control_share:
        return (f"binary data ({controls / len(head):.0%} control bytes in its first {len(head):,} bytes; "
                f"text has under {config.max_control_share:.0%}), not text")
    return ""


def flatten_markup(markup: str, max_depth: int) -> tuple[str, int]:
    """The markup with every tag nested deeper than ``max_depth`` dropped (its text stays, a space in its
    place), and how many tags were dropped.

    Written by hand because libxml2, the parser under lxml, stops at 2,048 levels and keeps nothing after
    that point; this tokenizer sees tags only (comments and CDATA pass through), closes ``p``/``li``/``td``
    ... by a sibling as HTML parsers do, and counts open tags by name so a stray end tag costs no search.
    """
    out: list[str] = []
    stack: list[tuple[str, bool]] = []  # (name, kept)
    open_names: Counter[str] = Counter()
    dropped = 0
    last = 0
    for match in _TOKEN.finditer(markup):
        slash, name = match.group(1), (match.group(2) or "").lower()
        if not name or (not slash and (name in _VOID or match.group(3).rstrip().endswith("/"))):
            continue
        replacement = None
        if not slash:
            if name in _SELF_CLOSING_SIBLINGS and stack and stack[-1][0] == name:
                open_names[stack.pop()[0]] -= 1
            kept = len(stack) < max_depth
            stack.append((name, kept))
            open_names[name] += 1
            replacement = None if kept else " "
        elif open_names[name] > 0:
            while True:
                top, kept = stack.pop()
                open_names[top] -= 1
                if top == name:
                    break
            replacement = None if kept else " "
        if replacement is not None:
            dropped += 1
            out.append(markup[last:match.start()])
            out.append(replacement)
            last = match.end()
    out.append(markup[last:])
    return "".join(out), dropped


def flatten_tree(root, max_depth: int) -> int:
    """Elements below ``max_depth`` levels under ``root`` folded into one ancestor whose text becomes all the
    text inside it; returns how many elements were folded (0: nothing that deep).

    The ancestor is the nearest one whose own text the walker reads (a ``div``, ``td``, ``li``, a macro's
    body ...), not one it reads only the children of (a list, a table row, a macro), or the text would be
    lost after all. Iterative (lxml's own iteration is, too), so no depth of markup reaches Python's
    recursion limit.
    """
    deep: list = []
    stack = [(root, 0)]
    while stack:
        el, depth = stack.pop()
        if depth < max_depth:
            stack.extend((child, depth + 1) for child in el if isinstance(child.tag, str))
        elif len(el):
            deep.append(el)
    targets = {}
    for el in deep:
        while el is not root and tag_of(el) in _READ_BY_CHILDREN:
            el = el.getparent()
        targets[el] = None
    folded = 0
    for target in targets:
        top = target
        while top.getparent() is not None:
            top = top.getparent()
        if top is not root:  # inside a target folded already
            continue
        folded += sum(1 for _ in target.iterdescendants())
        etree.strip_elements(target, *_NO_TEXT, with_tail=False)
        text = " ".join(piece for piece in target.itertext() if piece.strip())
        for child in list(target):
            target.remove(child)
        target.text = text
    return folded


def limit_text(blocks: list[Block], max_chars: int) -> tuple[list[Block], int]:
    """The blocks up to ``max_chars`` characters of text (the block that crosses the limit cut there), and
    the total characters the document had; table rows and PDF page texts repeat other blocks and count 0."""
    kept: list[Block] = []
    total = used = 0
    for block in blocks:
        size = 0 if block.kind in _REPEATING_KINDS else len(block.text)
        total += size
        if used >= max_chars:
            continue
        if used + size > max_chars:
            block = Block(block.kind, block.text[:max_chars - used], block.heading_path, block.page,
                          {**block.meta, "truncated": True})
        kept.append(block)
        used += len(block.text) if size else 0
    return kept, total


def clip_labels(labels: list[str], max_chars: int) -> tuple[list[str], int]:
    """Labels cut to ``max_chars`` characters each, and how many had to be cut."""
    clipped = [label[:max_chars] for label in labels]
    return list(dict.fromkeys(clipped)), sum(len(label) > max_chars for label in labels)
