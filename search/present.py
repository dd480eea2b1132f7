"""Presentation: hits with marked snippets and a page's other evidence, facets, and the page of hits asked for.

A table row reads as its header and values ("Machine: Orbis EdgeBox E3 · BIOS: E3.24"), in a hit's snippet as
in the answer card, and a table inside any other evidence (the table, its section, its page) row by row, not as
the sentences ingest wrote for the index ("Table 1 columns: Machine, BIOS. Row 3 in Table 1: Machine is …").

A hit's link is only ever one ingest would index today (``core.urls.safe_link``): a page an older index or a
faulty source holds under a ``javascript:`` URL, a relative path or a URL with credentials is listed without
its link, so no client has to be trusted to refuse it.
"""
from __future__ import annotations

import html
import re
from datetime import datetime, timezone

from core.urls import safe_link
from ingest import evidence as kinds
from search.grouping import Group
from search.query import Query, words
from search.schema import Hit
from text.stopwords import stopwords

SNIPPET_WIDTH = 240  # characters of a hit's snippet: about three lines of the result list
MORE_SNIPPET_WIDTH = 160  # a page's other evidence beneath its hit: about two lines each
SNIPPET_LEAD = 3  # the window opens a third of its width before the first match, so the match reads in context
MIN_MARKED_CHARS = 3  # shorter terms ("of", "es") match inside too many words to be worth marking
MAX_MORE = 3  # a page's other evidence listed beneath its hit; the page itself has the rest
# Whole-page and section units repeat their parts, and a page's facts repeat what its hit shows (title, space,
# breadcrumb), so none of them is listed beneath their page again.
_REPEATING_KINDS = (kinds.PAGE, kinds.SECTION, kinds.PAGE_FACTS)
SCORE_DECIMALS = 6  # scores are shown at this precision
FACET_FIELDS = ("space", "kind", "lang", "author")
FACET_SIZE = 20  # values counted per facet: more than a filter list shows at once
# How ``ingest.tables`` opens a row's text, alone or within a longer text (a table, a section, a page).
_ROW_OPENING = re.compile(r"Row \d+ in Table \d+:\s*")
_ROW_PAIR = re.compile(r"^(.+?) is (.+)$", re.DOTALL)  # "Machine is Orbis EdgeBox E3"
_SENTENCE_END = re.compile(r"\.(?:\s+|$)")  # a full stop that may end a row: its cells' text has some too ("Dr.")
_MORE_PAIRS = re.compile(r", and .+? is ", re.DOTALL)  # the row's cells go on: ", and Response time is"
_COLUMNS_LINE = re.compile(r"Table \d+ columns: [^.]*\.\s*")  # "Table 1 columns: Machine, BIOS. "


def facet_counts(ranked: list[Group]) -> dict:
    """Value -> number of results per facet, counted over the ranked results (a page counts once per value
    its evidence there holds), so the counts add up to what the result list holds.

    Not an aggregation over every matching evidence: a question's words match most of a corpus somewhere,
    so such counts say little, and collecting every match keeps OpenSearch from skipping the evidence that
    cannot reach the top (a third of the BM25 time at 50k evidence).
    """
    counts: dict[str, dict[str, int]] = {}
    for found in ranked:
        for name in FACET_FIELDS:
            for value in {item["_source"].get(name) for item in found.items} - {None, ""}:
                by_value = counts.setdefault(name, {})
                by_value[value] = by_value.get(value, 0) + 1
    return {name: dict(sorted(by_value.items(), key=lambda kv: (-kv[1], kv[0]))[:FACET_SIZE])
            for name, by_value in counts.items()}


def space_names(ranked: list[Group]) -> dict[str, str]:
    """Each space key of the ranked results -> its name, where their evidence gives one: the space filter's words."""
    return {src["space"]: src["space_name"] for found in ranked for src in (item["_source"] for item in found.items)
            if src.get("space") and src.get("space_name")}


def highlight_terms(query: Query) -> set[str]:
    """What the snippets mark: the content terms, the carried terms, the translations, and the resolved
    question's words that are not stop words."""
    stop = stopwords(query.lang)
    translated = {w for by_term in query.translated.values() for found in by_term.values() for w in found}
    return set(query.lemmas) | set(query.resolved.carried) | translated | {
        t for t in words(query.resolved.text) if t not in stop}


def snippet(text: str, terms: set[str], width: int = SNIPPET_WIDTH) -> str:
    """A window of the evidence around its first matched term, matched terms in <mark>, HTML-escaped."""
    if not text:
        return ""
    lowered = text.lower()
    wanted = sorted((t for t in terms if len(t) >= MIN_MARKED_CHARS), key=len, reverse=True)
    positions = [lowered.find(t) for t in wanted if t in lowered]
    start = max(0, min(positions) - width // SNIPPET_LEAD) if positions else 0
    window = text[start:start + width]
    prefix, suffix = ("…" if start else ""), ("…" if start + width < len(text) else "")
    if not wanted:
        return html.escape(prefix + window + suffix)
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(t) for t in wanted) + r")(?!\w)", re.IGNORECASE)
    parts, last = [], 0
    for match in pattern.finditer(window):
        parts += [html.escape(window[last:match.start()]), "<mark>", html.escape(match.group(0)), "</mark>"]
        last = match.end()
    parts.append(html.escape(window[last:]))
    return html.escape(prefix) + "".join(parts) + html.escape(suffix)


def row_text(text: str) -> str:
    """A table row as its header and values: "Row 3 in Table 1: Machine is X, and BIOS is Y" ->
    "Machine: X · BIOS: Y"."""
    pairs = []
    opening = _ROW_OPENING.match(text)
    for pair in text[opening.end() if opening else 0:].rstrip(".").split(", and "):
        named = _ROW_PAIR.match(pair)
        pairs.append(f"{named.group(1)}: {named.group(2)}" if named else pair)
    return " · ".join(pairs)


def tables_read(text: str) -> str:
    """A text's verbalized tables (a whole table, or a section or page holding one) row by row as headers and
    values ("Machine: X · BIOS: Y. Machine: Z · BIOS: W."), without the line naming the columns: it says nothing
    the rows do not. A row ends at the next row, or at the first full stop after which its cells do not go on
    (``row_end``): "CTO (Dr. Henrike Vogelsang) after 1 hour, and Customer communication is ..." is one row."""
    text = _COLUMNS_LINE.sub("", text)
    out: list[str] = []
    at = 0
    starts = [found.start() for found in _ROW_OPENING.finditer(text)] + [len(text)]
    for start, following in zip(starts, starts[1:]):
        end = row_end(text, start, following)
        out += [text[at:start], row_text(text[start:end].rstrip()) + "."]
        at = end + 1 if end < following else end  # past the row's full stop, when one ends it
    return "".join(out) + text[at:]


def row_end(text: str, start: int, limit: int) -> int:
    """Where the row opening at ``start`` ends (its closing full stop's position), before ``limit``: the first
    full stop whose next sentence does not carry on the row's cells (``_MORE_PAIRS``), else ``limit``."""
    stops = [found.start() for found in _SENTENCE_END.finditer(text, start, limit)]
    for stop, after in zip(stops, [*stops[1:], limit]):
        if not _MORE_PAIRS.search(text, stop + 1, after):
            return stop
    return limit


def display_text(src: dict) -> str:
    """An evidence's text as a reader is shown it: a table row as its header and values (``row_text``), a table
    written in any other evidence row by row (``tables_read``)."""
    text = src.get("text", "")
    return row_text(text) if src.get("kind") == kinds.TABLE_ROW else tables_read(text)


def kind_label(src: dict) -> str:
    """The evidence's kind in words ("Table row", "PDF page 3"); an unknown kind as it is named."""
    kind = src.get("kind", "")
    label = kinds.KIND_LABELS.get(kind, kind.replace("_", " ").capitalize())
    return f"{label} {src['page']}" if kind == kinds.PDF_PAGE and src.get("page") else label


def to_hit(item: dict, score: float, terms: set[str], files_base_url: str = "") -> Hit:
    src = item["_source"]
    return Hit(url=safe_link(src["url"], files_base_url), title=src.get("title", ""),
               heading_path=src.get("heading_path", []),
               kind=src.get("kind", ""), label=kind_label(src), snippet=snippet(display_text(src), terms),
               score=round(score, SCORE_DECIMALS), doc_id=src.get("doc_id", ""),
               evidence_id=src.get("id", item["_id"]), space=src.get("space", ""),
               space_name=src.get("space_name", ""), lang=src.get("lang", ""),
               breadcrumb=src.get("breadcrumb", []), updated=src.get("updated", ""), author=src.get("author", ""))


def group_hit(group: Group, terms: set[str], files_base_url: str = "") -> Hit:
    """The group's best evidence as the hit; beneath it up to ``MAX_MORE`` others with their own text."""
    hit = to_hit(group.items[0], group.score, terms, files_base_url)
    hit.duplicates = [listed_copy(src, files_base_url) for src in group.items[0].get("_duplicates", [])]
    shown = {hit.snippet}
    for it in group.items[1:]:
        src = it["_source"]
        if src.get("kind") in _REPEATING_KINDS or len(hit.more) == MAX_MORE:
            continue
        text = snippet(display_text(src), terms, MORE_SNIPPET_WIDTH)
        if text not in shown:
            shown.add(text)
            hit.more.append({"kind": src.get("kind"), "label": kind_label(src),
                             "heading_path": src.get("heading_path", []), "snippet": text,
                             "score": round(it["_score_fused"], SCORE_DECIMALS)})
    return hit


def listed_copy(src: dict, files_base_url: str = "") -> dict:
    """A near-duplicate folded into a hit (``search.duplicates``), as listed under it: its link, checked like
    a hit's, its title, space and last update."""
    return {"url": safe_link(src["url"], files_base_url), "title": src.get("title", ""),
            "space": src.get("space", ""), "updated": src.get("updated", "")}


def hits(groups: list[Group], terms: set[str], files_base_url: str = "") -> list[Hit]:
    """A hit per group, in their order (best first, or the order asked: ``newest_first``); ``files_base_url`` is the
    ``file:`` share links may point under."""
    return [group_hit(g, terms, files_base_url) for g in groups]


def updated_at(group: Group) -> float | None:
    """When the group's page was last updated, as a POSIX time (a date without a zone read as UTC); None when its
    source gives no date, or one that is not ISO-8601."""
    try:
        when = datetime.fromisoformat(group.items[0]["_source"].get("updated") or "")
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def newest_first(ranked: list[Group], matching: list[bool]) -> list[Group]:
    """``ranked`` for "newest first": the pages that match the question (``matching``, one flag a page: its verdict
    is not ``none``) by their last update, newest first, those without a date after them; then the pages that match
    nothing, in their ranked order. A wiki's keyword search sorts by date only the pages that hold the question's
    words; a hybrid search ranks pages that hold none of them too, and sorting them all would put whatever page
    changed last on top, however little it has to do with the question: the verdict says which pages match."""
    dated = [(found, updated_at(found)) for found, matches in zip(ranked, matching) if matches]
    rest = [found for found, matches in zip(ranked, matching) if not matches]
    # sorted() is stable: pages of one date, and the undated ones, stay in their ranked order
    newest = sorted(dated, key=lambda pair: (pair[1] is not None, pair[1] or 0.0), reverse=True)
    return [found for found, _ in newest] + rest


def page_of(ranked: list, k: int, page: int) -> list:
    """The ``page``-th run of ``k`` hits (1-based)."""
    start = (page - 1) * k
    return ranked[start:start + k]
