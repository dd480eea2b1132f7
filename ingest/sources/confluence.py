"""Confluence pages as returned by the REST v1 content API.

Input: the JSON of ``GET /rest/api/content/<id>?expand=body.storage,ancestors,version,space,
metadata.labels,restrictions.read.restrictions.group`` (``body.view``/``body.export_view`` are
used when no storage body was expanded); ``history`` (creator, created date) and ``children.attachment``
(attachment names) feed the page's facts when expanded. Users named by ``ri:user`` mentions are resolved with
``SourceFile.users`` (account id -> display name); unknown ones become ``@user:<id>``.

The storage-format body is parsed as XML (named HTML entities mapped first, the fragment wrapped
in a root that declares the ``ac:``/``ri:`` namespaces, lxml recovery for markup that is not
well formed) and walked by ``ingest.markup.Walker``; ``StorageWalker`` adds the Confluence
elements: macros (code, info/note/warning/tip/panel, expand, status, jira, navigation macros
dropped, unknown macros reduced to their bodies), links, mentions, images, task lists, ``<time>``.

Access: ``acl`` holds the page's own read restrictions, groups by name and users as ``user:<id>``, a group
named like a user as ``group:<name>`` (``ingest.principals``); a reader needs to be one of them. Without any
restriction on the page, ``SourceFile.acl`` (e.g. from a manifest) is used. Restrictions inherited from
ancestors arrive in ``SourceFile.acl_inherited``.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from lxml import etree

from ingest import evidence as kinds
from ingest.blocks import ParsedDocument, ParseError
from ingest.charset import text_encoding
from ingest.config import IngestConfig
from ingest.evidence import Document
from ingest.limits import MARKUP_SLACK, binary_reason, flatten_markup, flatten_tree
from ingest.markup import (NAMESPACES, Walker, attr, children, clean, first_child, image_marker, one_line,
                           outermost, replace_named_entities, tag_of)
from ingest.principals import principals
from ingest.sources import SourceFile
from ingest.strict_json import UnreadableJson, load_json

PANEL_MACROS = {"info", "note", "warning", "tip", "panel"}
EXPAND_MACROS = {"expand", "ui-expand"}
CODE_MACROS = {"code", "noformat", "code-block"}
# Navigation and page-generating macros: nothing of the page's own content is in them.
DROP_MACROS = {
    "toc", "toc-zone-marker", "children", "anchor", "pagetree", "pagetreesearch", "recently-updated",
    "contentbylabel", "content-by-label", "content-report-table", "livesearch", "search", "index",
    "navmap", "listlabels", "popular-labels", "related-labels", "include", "excerpt-include",
    "attachments", "profile-picture", "create-from-template", "blog-posts", "space-details",
    "spaces", "network", "contributors", "contributors-summary", "tasks-report-macro", "page-index",
    "viewfile", "view-file", "gallery", "recently-updated-dashboard", "create-space-button",
}
# Macros that sit inside a line of text.
ARCHIVED_STATUS = "archived"  # the page status Confluence gives an archived page ("current" otherwise)
INLINE_MACROS = {"status", "jira", "anchor", "emoticon", "mention", "profile", "lozenge"}

ROOT_OPEN = "<root " + " ".join(f'xmlns:{p}="{uri}"' for p, uri in NAMESPACES.items()) + ">"


def macro_name(el) -> str:
    return attr(el, "ac:name").strip().lower()


def macro_param(el, name: str) -> str:
    for p in children(el, "ac:parameter"):
        if attr(p, "ac:name") == name:
            return one_line("".join(p.itertext()))
    return ""


def parse_storage(markup: str, source: str, max_depth: int = IngestConfig.max_nesting_depth):
    """The storage-format fragment as an element tree under one root, nested at most ``max_depth`` deep;
    (root, problems): recovery from markup that is not well formed, flattened deep nesting."""
    problems: list[str] = []
    parser = etree.XMLParser(resolve_entities=False, huge_tree=True)
    text = ROOT_OPEN + replace_named_entities(markup) + "</root>"
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        if "depth" in str(exc).lower():
            flat, dropped = flatten_markup(markup, max_depth)
            problems.append(f"storage format nested deeper than the parser reads; {dropped:,} tags below {max_depth} "
                            "levels (EVIDENT_INGEST_MAX_NESTING_DEPTH) were flattened, their text kept")
            return parse_storage(flat, source, max_depth - MARKUP_SLACK)[0], problems
        problems.append(f"storage format is not well-formed XML ({exc}); parsed with recovery, what could be read kept")
        root = etree.fromstring(text.encode("utf-8"),
                                etree.XMLParser(recover=True, resolve_entities=False, huge_tree=True))
    if root is None:
        raise ParseError(source, "storage format is not XML-recoverable")
    folded = flatten_tree(root, max_depth)
    if folded:
        problems.append(f"storage format nested over {max_depth} levels deep (EVIDENT_INGEST_MAX_NESTING_DEPTH); "
                        f"{folded:,} elements below were flattened, their text kept")
    return root, problems


class StorageWalker(Walker):
    """The shared walker plus Confluence storage-format elements."""

    def __init__(self, users: dict[str, str] | None = None, config: IngestConfig | None = None) -> None:
        super().__init__(config)
        self.users = users or {}

    def skip(self, el, tag: str) -> bool:
        if tag in ("ac:parameter", "ac:placeholder", "ac:emoticon", "ac:task-id", "ac:task-uuid",
                   "ac:task-status", "ri:attachment"):
            return True
        if tag in ("ac:structured-macro", "ac:macro") and macro_name(el) in DROP_MACROS:
            return True
        return super().skip(el, tag)

    def is_block(self, el, tag: str) -> bool:
        if tag in ("ac:structured-macro", "ac:macro"):
            return macro_name(el) not in INLINE_MACROS
        if tag in ("ac:task-list", "ac:layout", "ac:layout-section", "ac:layout-cell", "ac:rich-text-body",
                   "ac:adf-extension", "ac:adf-fallback", "ac:adf-content"):
            return True
        return super().is_block(el, tag)

    # -- blocks
    def special_block(self, el, tag: str) -> bool:
        if tag in ("ac:structured-macro", "ac:macro"):
            self.macro(el)
            return True
        if tag == "ac:task-list":
            self.list_block(el, {"task_list": True}, self.task_lines(el, 0))
            return True
        if tag == "ac:adf-extension":
            self.adf_extension(el)
            return True
        return False

    def macro(self, el) -> None:
        name = macro_name(el)
        body = first_child(el, "ac:rich-text-body")
        plain = first_child(el, "ac:plain-text-body")
        if name in CODE_MACROS:
            self.code("".join(plain.itertext()) if plain is not None else "",
                      macro_param(el, "language"), title=macro_param(el, "title"))
        elif name in PANEL_MACROS:
            self.panel(name, macro_param(el, "title"), body)
        elif name in EXPAND_MACROS:
            self.expand(macro_param(el, "title"), body)
        elif body is not None:
            self.walk(body)
        elif plain is not None:
            self.paragraph("".join(plain.itertext()))
        # a body-less unknown macro has nothing but parameters: dropped

    def adf_extension(self, el) -> None:
        """New-editor content stored as ADF: panels and decision lists; anything else via its fallback."""
        node = first_child(el, "ac:adf-node")
        node_type = node.get("type", "") if node is not None else ""
        if node_type == "panel":
            kind = "info"
            for a in children(node, "ac:adf-attribute"):
                if a.get("key") == "panel-type":
                    kind = one_line(a.text or "") or kind
            self.panel(kind, "", first_child(node, "ac:adf-content"))
            return
        if node_type == "decision-list":
            lines = []
            for item in outermost(node, _decision_item):  # a nested item's text is in its outer item's
                content = first_child(item, "ac:adf-content")
                text = one_line(self.inline_content(content)) if content is not None else ""
                if text:
                    lines.append(f"- {text}")
            self.emit(kinds.LIST, "\n".join(lines), {"decision_list": True})
            return
        fallback = first_child(el, "ac:adf-fallback")
        if fallback is not None:
            self.walk(fallback)

    def code_of(self, el) -> tuple[str, str] | None:
        if tag_of(el) in ("ac:structured-macro", "ac:macro") and macro_name(el) in CODE_MACROS:
            plain = first_child(el, "ac:plain-text-body")
            return ("".join(plain.itertext()) if plain is not None else "", macro_param(el, "language"))
        return super().code_of(el)

    # -- task lists
    def is_nested_list(self, el, tag: str) -> bool:
        return tag == "ac:task-list" or super().is_nested_list(el, tag)

    def nested_lines(self, el, depth: int) -> list[str]:
        if tag_of(el) == "ac:task-list":
            return self.task_lines(el, depth)
        return super().nested_lines(el, depth)

    def task_lines(self, el, depth: int) -> list[str]:
        lines: list[str] = []
        for c in el:
            tag = tag_of(c)
            if tag == "ac:task":
                lines.extend(self.task(c, depth))
            elif tag == "ac:task-list":
                lines.extend(self.task_lines(c, depth + 1))
        return lines

    def task(self, el, depth: int) -> list[str]:
        """``[x] text`` / ``[ ] text`` (owner mentions and due dates are part of the body), then nested tasks."""
        status = first_child(el, "ac:task-status")
        done = status is not None and one_line("".join(status.itertext())).lower() == "complete"
        body = first_child(el, "ac:task-body")
        text, nested = self.list_item_parts(body) if body is not None else ("", [])
        lines = ["  " * depth + ("[x] " if done else "[ ] ") + text] if text else []
        for sub in nested:
            lines.extend(self.nested_lines(sub, depth + 1))
        return lines

    # -- inline
    def user_name(self, el) -> str:
        account = attr(el, "ri:account-id") or attr(el, "ri:userkey") or attr(el, "ri:username")
        name = self.users.get(account, "")
        return name if name and isinstance(name, str) else f"@user:{account}"

    def special_inline(self, el, tag: str) -> str | None:
        if tag in ("ac:structured-macro", "ac:macro"):
            name = macro_name(el)
            if name == "status":
                return macro_param(el, "title")
            if name == "jira":
                return macro_param(el, "key")
            if name in DROP_MACROS or name in INLINE_MACROS:
                return ""
            title = macro_param(el, "title") if name in PANEL_MACROS | EXPAND_MACROS else ""
            body = first_child(el, "ac:rich-text-body")
            plain = first_child(el, "ac:plain-text-body")
            text = self.inline_content(body) if body is not None else \
                "".join(plain.itertext()) if plain is not None else ""
            return f"\n{title}\n{text}\n" if title else f"\n{text}\n"
        if tag == "ac:link":
            return self.link_text(el)
        if tag == "ri:user":
            return self.user_name(el)
        if tag == "ac:image":
            target = first_child(el, "ri:attachment")
            url = first_child(el, "ri:url")
            name = (attr(el, "ac:alt") or attr(el, "ac:title")
                    or (attr(target, "ri:filename") if target is not None else "")
                    or (attr(url, "ri:value") if url is not None else ""))
            return image_marker(name)
        if tag == "time":
            return one_line("".join(el.itertext())) or el.get("datetime", "")
        if tag == "ac:task-list":
            return "\n" + "\n".join(self.task_lines(el, 0)) + "\n"
        if tag == "ac:task":
            return "\n" + "\n".join(self.task(el, 0)) + "\n"
        return None

    def link_text(self, el) -> str:
        body = first_child(el, "ac:link-body")
        if body is None:
            body = first_child(el, "ac:plain-text-link-body")
        if body is not None:
            text = one_line(self.inline_content(body))
            if text:
                return text
        for target in el:
            tag = tag_of(target)
            if tag in ("ri:page", "ri:blog-post", "ri:content-entity"):
                title = attr(target, "ri:content-title")
                if title:
                    return title
            elif tag == "ri:user":
                return self.user_name(target)
            elif tag == "ri:attachment":
                return attr(target, "ri:filename")
            elif tag == "ri:space":
                return attr(target, "ri:space-key")
            elif tag == "ri:url":
                return attr(target, "ri:value")
        return attr(el, "ac:anchor")


def _decision_item(el):
    """The element when it is an ADF decision item, else None (``markup.outermost``)."""
    return el if tag_of(el) == "ac:adf-node" and el.get("type") == "decision-item" else None


def _names(node, key: str = "name") -> list[str]:
    return [str(item.get(key)) for item in _results(node) if item.get(key)]


def restriction_members(restrictions: dict) -> tuple[list[str], list[str]]:
    """(group names, user ids) of one read restriction, as Confluence lists them.

    A user's id is the Cloud ``accountId``, or on Data Center the ``username`` (what single sign-on
    usually asserts), else the ``userKey``.
    """
    users = [str(u.get("accountId") or u.get("username") or u.get("userKey"))
             for u in _results(restrictions.get("user"))
             if u.get("accountId") or u.get("username") or u.get("userKey")]
    return _names(restrictions.get("group")), users


def restriction_principals(restrictions: dict) -> list[str]:
    """The principals of one read restriction: its groups and its users, each in its namespace
    (``ingest.principals``), so a group named like a user never stands for that user."""
    return principals(*restriction_members(restrictions))


def _results(node) -> list[dict]:
    if isinstance(node, dict):
        node = node.get("results", [])
    return [item for item in node if isinstance(item, dict)] if isinstance(node, list) else []


def _dig(data, *keys):
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def document_of(data: dict, file: SourceFile) -> Document:
    page_id = str(data.get("id") or PurePosixPath(file.name).stem)
    links = data.get("_links") or {}
    if links.get("base") and links.get("webui"):
        url = links["base"].rstrip("/") + links["webui"]
    else:
        url = file.url  # from the folder's manifest or base URL (workers.folder); a bare webui link opens nothing
    restrictions = _dig(data, "restrictions", "read", "restrictions") or {}
    acl = restriction_principals(restrictions) if isinstance(restrictions, dict) else []
    if not acl:
        acl = list(file.acl)
    labels = _names(_dig(data, "metadata", "labels")) or _names(data.get("labels"))
    if str(data.get("status", "")).lower() == ARCHIVED_STATUS and ARCHIVED_STATUS not in labels:
        labels.append(ARCHIVED_STATUS)  # searchable as a label, and a newer copy may stand in for it at search
    space = _dig(data, "space", "key") or ""
    if not space:
        expandable = _dig(data, "_expandable", "space") or ""
        space = expandable.rstrip("/").rsplit("/", 1)[-1] if expandable else ""
    version = data.get("version") or {}
    return Document(
        doc_id=file.doc_id("confluence", page_id),
        source_type="confluence",
        url=url,
        title=clean(str(data.get("title") or file.title or page_id)),
        breadcrumb=[clean(str(a.get("title"))) for a in data.get("ancestors") or []
                    if isinstance(a, dict) and a.get("title")],
        space=str(space),
        labels=labels,
        acl=list(dict.fromkeys(acl)),
        lang="",
        updated=str(version.get("when") or ""),
        author=str(_dig(data, "history", "createdBy", "displayName") or ""),
        space_name=clean(str(_dig(data, "space", "name") or "")),
        created=str(_dig(data, "history", "createdDate") or ""),
        editor=str(_dig(version, "by", "displayName") or _dig(data, "history", "lastUpdated", "by", "displayName")
                   or ""),
        version=version.get("number") if isinstance(version.get("number"), int) else None,
        attachments=[clean(str(a["title"])) for a in _dig(data, "children", "attachment", "results") or []
                     if isinstance(a, dict) and a.get("title")],
    )


class ConfluenceSource:
    name = "confluence"

    def accepts(self, file: SourceFile) -> bool:
        """A ``.json`` file that opens an object, in UTF-8 or in UTF-16/32 (``charset.text_encoding``)."""
        if not file.name.lower().endswith(".json"):
            return False
        wide = text_encoding(file.data)
        if wide in ("", "utf-8-sig"):
            return file.data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"
        return file.data[:_OPENING_BYTES].decode(wide, "replace").lstrip("\ufeff \t\r\n")[:1] == "{"

    def parse(self, file: SourceFile, config: IngestConfig) -> ParsedDocument:
        binary = binary_reason(file.data, config)
        if binary:
            raise ParseError(file.name, f"{binary}; a file named .json must be Confluence page JSON")
        try:
            data = load_json(file.data)
        except UnreadableJson as exc:
            raise ParseError(file.name, str(exc)) from None
        if not isinstance(data, dict):
            raise ParseError(file.name, "not a Confluence content object")
        _check_page_id(data.get("id"), file.name)
        _check_restrictions(data, file.name)
        problems = _drop_mistyped(data)
        body = data.get("body")
        markup = None
        if isinstance(body, dict):
            for representation in ("storage", "export_view", "view", "styled_view"):
                value = _dig(body, representation, "value")
                if isinstance(value, str):
                    markup = value
                    break
        if markup is None:
            raise ParseError(file.name, "missing body (expand body.storage), or its value is not a text")
        document = document_of(data, file)
        root, storage_problems = parse_storage(markup, file.name, config.max_nesting_depth)
        walker = StorageWalker(file.users, config)
        walker.walk(root)
        notes = [*problems, *storage_problems, *walker.problems]
        return ParsedDocument(document, walker.finish(), [f"{file.name}: {note}" for note in notes])


_OPENING_BYTES = 64  # of a UTF-16/32 file: enough to see past a byte-order mark and blank lines to its "{"
_PAGE_ID = re.compile(r"\d{1,20}")  # Confluence page ids are numbers (a 64-bit id has at most 20 digits)
# Fields ``document_of`` reads, by path, with the JSON types they must have; another type is dropped with a
# warning, as if the field were not expanded, so one odd field never takes the page with it.
_FIELD_TYPES: dict[tuple[str, ...], type | tuple[type, ...]] = {
    ("title",): (str, int, float), ("_links",): dict, ("_links", "base"): str, ("_links", "webui"): str,
    ("metadata",): dict, ("metadata", "labels"): (dict, list), ("labels",): (dict, list),
    ("space",): dict, ("space", "key"): (str, int), ("space", "name"): str, ("_expandable",): dict,
    ("_expandable", "space"): str, ("version",): dict, ("version", "when"): str, ("version", "by"): dict,
    ("ancestors",): list, ("history",): dict, ("history", "createdBy"): dict, ("history", "createdDate"): str,
    ("history", "lastUpdated"): dict, ("children",): dict, ("children", "attachment"): dict,
    ("children", "attachment", "results"): list,
}


def _check_page_id(page_id, name: str) -> None:
    """A page id, when the JSON has one, is a number: anything else is no Confluence page (and an immense one
    would be refused by the index); ParseError naming the file."""
    if page_id is None or (isinstance(page_id, (str, int)) and not isinstance(page_id, bool)
                           and _PAGE_ID.fullmatch(str(page_id))):
        return
    shown = str(page_id)
    shown = shown if len(shown) <= 40 else f"{shown[:40]}… ({len(shown):,} characters)"
    raise ParseError(name, f"page id {shown!r} is not a Confluence page id (a number of up to 20 digits)")


_PRINCIPAL_KEYS = {"group": ("name",), "user": ("accountId", "username", "userKey")}  # what names a reader


def _check_restrictions(data: dict, name: str) -> None:
    """Read restrictions of another shape than the REST API's are a ParseError naming the field: who may read
    the page would be unknown, and dropping them would index a restricted page as public."""
    node, path = data, ""
    for key in ("restrictions", "read", "restrictions"):
        node, path = node.get(key), f"{path}.{key}".lstrip(".")
        if node is None:
            return
        if not isinstance(node, dict):
            _unknown_readers(name, path, node)
    for kind, keys in _PRINCIPAL_KEYS.items():
        entry = node.get(kind)
        items = entry.get("results", []) if isinstance(entry, dict) else entry
        if entry is not None and not (isinstance(items, list) and all(
                isinstance(item, dict) and any(item.get(k) for k in keys) for item in items)):
            _unknown_readers(name, f"{path}.{kind}", entry)


def _unknown_readers(name: str, path: str, value) -> None:
    raise ParseError(name, f"read restrictions field '{path}' is {_json_type(value)} of another shape than Confluence "
                           "gives, so who may read the page is unknown: not indexed rather than indexed as public")


def _drop_mistyped(data: dict) -> list[str]:
    """Remove the fields of ``_FIELD_TYPES`` that have another JSON type; one sentence for each."""
    problems = []
    for path, expected in _FIELD_TYPES.items():
        parent = _dig(data, *path[:-1]) if len(path) > 1 else data
        if not isinstance(parent, dict) or parent.get(path[-1]) is None:
            continue
        value = parent[path[-1]]
        if not isinstance(value, expected) or isinstance(value, bool):
            del parent[path[-1]]
            problems.append(f"field '{'.'.join(path)}' is {_json_type(value)}, not {_json_type(expected)}; "
                            "ignored, the page indexed without it")
    return problems


def _json_type(value) -> str:
    """The JSON name of a value's type, or of the first of the expected types, with its article."""
    kind = (value[0] if isinstance(value, tuple) else value) if isinstance(value, (type, tuple)) else type(value)
    return {dict: "an object", list: "a list", str: "a text", int: "a number", float: "a number",
            bool: "a boolean"}.get(kind, "null")
