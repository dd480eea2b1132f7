"""Near-duplicate pages folded into one result: the canonical page is the hit, its copies listed under it.

Ingest stores a SimHash of each page's text on every evidence of the page (``page_simhash``, ``text.simhash``),
so whichever evidence of a page ranks carries it. Here the ranked page groups are compared in rank order:
a page whose signature is within ``near_duplicate_bits`` of a page ranked above it, and whose title names no
other version, date or code (a template filled in again is no copy: ``priors.names_a_twin``), joins that
page's result. Only pages the caller's search found can be folded or listed: every retriever filters by the
ACL, so a copy the caller may not read is never among them, and no other query is run for copies.

The canonical page of a fold: a team space's over a personal space's (key starting with ``~``); among those,
the original (created first; a title "Copy of …" last when the dates do not tell) over its copies, unless the
original is archived (labelled ``archived``) and a copy was updated after it: the newest such copy is what is
current. The fold keeps the best score among its pages; the canonical page's best evidence
carries the others' sources under ``_duplicates`` for ``present``.
"""
from __future__ import annotations

from datetime import date

from search.fusion import add_part
from search.grouping import Group
from search.priors import names_a_twin
from search.query import identifiers
from text.simhash import SIGNATURE_BITS, signature_value

PERSONAL_SPACE_PREFIX = "~"  # Confluence's personal spaces are keyed by "~" and the user's name
ARCHIVED_LABEL = "archived"
COPY_TITLE_PREFIX = "copy of "  # the title Confluence gives a page it copies


def _source(found: Group) -> dict:
    return found.items[0]["_source"]


def _day(value: str) -> date | None:
    """The date an ISO timestamp names, or None when it names none."""
    try:
        return date.fromisoformat((value or "")[:10])
    except ValueError:
        return None


def is_personal(src: dict) -> bool:
    return str(src.get("space", "")).startswith(PERSONAL_SPACE_PREFIX)


def is_archived(src: dict) -> bool:
    return ARCHIVED_LABEL in {str(label).lower() for label in src.get("labels") or []}


def canonical_of(pages: list[dict]) -> int:
    """Which of near-duplicate pages' sources (in rank order) is the one to show: see the module's rule."""
    team = [i for i, src in enumerate(pages) if not is_personal(src)] or list(range(len(pages)))
    created = {i: _day(pages[i].get("created", "")) for i in team}
    original = min(team, key=lambda i: (created[i] is None, created[i] or date.max,
                                        pages[i].get("title", "").lower().startswith(COPY_TITLE_PREFIX), i))
    if not is_archived(pages[original]):
        return original
    updated = {i: _day(pages[i].get("updated", "")) for i in team}
    newest = max((i for i in team if updated[i]), key=lambda i: updated[i], default=original)
    since = updated[original]
    if since is None or updated[newest] > since:
        return newest
    return original


def template_twins(first: dict, second: dict) -> bool:
    """Two titles that name different versions, dates or codes of one kind: pages filled in from one template."""
    return names_a_twin(identifiers(first.get("title", ""), "", None), identifiers(second.get("title", ""), "", None))


def near(value: int, leader: int, src: dict, leader_src: dict, max_bits: int) -> bool:
    """Whether a page of signature ``value`` joins the fold led by a page of signature ``leader``: within
    ``max_bits`` bits, and not a template filled in again."""
    return (value ^ leader).bit_count() <= max_bits and not template_twins(leader_src, src)


def copies(first: Group, other: Group, max_bits: int) -> bool:
    """Whether ``other`` is a near-duplicate of ``first`` that a fold would join to it (``near``); never a later
    page of the same document, nor a page without a readable signature."""
    a, b = _source(first), _source(other)
    if not a.get("page_simhash") or not b.get("page_simhash") or a.get("doc_id", "") == b.get("doc_id", ""):
        return False
    try:
        return near(signature_value(b["page_simhash"]), signature_value(a["page_simhash"]), b, a, max_bits)
    except ValueError:
        return False


def blocks(value: int, max_bits: int) -> list[tuple[int, int]]:
    """The signature cut into ``max_bits + 1`` blocks, each as (position, bits): two signatures within
    ``max_bits`` bits of each other agree on at least one whole block (Manku et al. 2007), so only pages that
    share a block need comparing."""
    size = SIGNATURE_BITS // (max_bits + 1)
    edges = [n * size for n in range(max_bits + 1)] + [SIGNATURE_BITS]
    return [(n, (value >> low) & ((1 << (high - low)) - 1)) for n, (low, high) in enumerate(zip(edges, edges[1:]))]


def collapse_near_duplicates(groups: list[Group], max_bits: int) -> list[Group]:
    """The page groups with near-duplicates folded: one group per fold, its canonical page's evidence first,
    at the best score among the fold's pages, in the order the folds were first ranked. A group without a
    signature (a short page, an index written before signatures, a damaged one) and a document's later groups (a
    PDF's other pages) stay as they are.

    The block index is written here rather than taken from ``simhash.SimhashIndex``, which builds a fingerprint
    object for every comparison: 7 s for 10,000 pages (the deepest page a request may ask for) against 0.15 s."""
    folds: list[list[Group]] = []
    leaders: dict[int, int] = {}  # fold -> its first page's signature
    by_block: dict[tuple[int, int], list[int]] = {}  # block -> the folds whose first page has it
    seen_docs: set[str] = set()
    for found in groups:
        src = _source(found)
        signature, doc_id = src.get("page_simhash", ""), src.get("doc_id", "")
        if not signature or doc_id in seen_docs:
            folds.append([found])
            continue
        seen_docs.add(doc_id)
        try:
            value = signature_value(signature)
        except ValueError:  # a value no ingest writes (a damaged index): the page is shown as it ranked
            folds.append([found])
            continue
        keys = blocks(value, max_bits)
        joined = sorted({fold for key in keys for fold in by_block.get(key, ())
                         if near(value, leaders[fold], src, _source(folds[fold][0]), max_bits)})
        if joined:
            folds[joined[0]].append(found)
            continue
        leaders[len(folds)] = value
        for key in keys:
            by_block.setdefault(key, []).append(len(folds))
        folds.append([found])
    return [_folded(fold) for fold in folds]


def _folded(fold: list[Group]) -> Group:
    """One group for a fold: the canonical page's evidence, the fold's best score, the others' sources listed.
    An explained search (its evidence carries ``_parts``) books what the best copy's score adds over the
    canonical page's own as ``near_duplicate_fold``, so the parts still add up to the score shown."""
    if len(fold) == 1:
        return fold[0]
    canonical = fold[canonical_of([_source(g) for g in fold])]
    best = max(g.score for g in fold)
    lead = canonical.items[0]
    lead["_duplicates"] = [_source(g) for g in fold if g is not canonical]
    if "_parts" in lead and best > canonical.score:
        add_part(lead, "near_duplicate_fold", best - canonical.score)
    return Group(canonical.items, best)
