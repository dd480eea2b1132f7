"""What issue 47 caps, counted: at most 40 tuned numbers and 15 heuristics in ``search/`` and the search settings,
each with its ablation row.

It counts the numeric settings the Searcher ranks by, the tuning constants of ``search/*.py`` (the limits, caches
and display widths named in ``NOT_TUNED`` apart), the switchable heuristics of ``scripts/ablation.py``'s
``HEURISTICS`` and the card's of ``scripts/verdict_ablation.py``'s ``CARD_HEURISTICS`` (a rule whose weight is
another number's); a number has a row when one of the two ablations (``scripts/ablation.py``: P@1;
``scripts/verdict_ablation.py``: the verdicts and the cards) sets it to its untuned value.

    .venv/bin/python scripts/inventory.py
"""
from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

from core.settings import PROJECT_ROOT as ROOT
from core.settings import RerankConfig, SearchConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the ablations beside it, however loaded
import ablation  # noqa: E402 - scripts/ablation.py: the heuristics and the ranking numbers' rows
import verdict_ablation  # noqa: E402 - scripts/verdict_ablation.py: the verdict's and the card's rows

# Settings the Searcher ranks by that are no heuristic to switch off: how it runs, or a choice among methods.
NOT_HEURISTICS = {"search.server_side": "the same fusion inside OpenSearch", "search.mode": "a choice of method",
                  "search.fusion": "a choice of method", "search.views": "the views; each view's weight is a row",
                  "search.group": "pages are what is judged", "search.corpus_language": "no off value",
                  "rerank.model": "the optional reranker: no model by default, so nothing to switch off",
                  "rerank.device": "where the reranker runs",
                  "search.multilingual": "the multilingual stage, off by default: its gain and cost in docs/ranking.md"}
# Numeric settings that are another work's published default, never tuned here: not counted, as OpenSearch's own
# defaults (the term suggester's) are not.
PUBLISHED_DEFAULTS = {"search.rrf_k": "reciprocal rank fusion's k, 60 (Cormack, Clarke and Buettcher 2009)"}
# Numeric constants of search/ that tune no ranking, verdict or card: caches, server limits, cost bounds, display.
NOT_TUNED = {
    "BM25_WEIGHT": "the unit of the fusion's weights", "KNOWN_SECONDS": "cache", "KNOWN_TOKENS": "cache",
    "KNOWN_WORDS": "cache", "QUESTIONS_KEPT": "cache", "TEXTS_KEPT": "cache",
    "MAX_DEPTH": "server limit", "KNN_MAX_K": "server limit", "LEAVES_COMPARED": "exact k-NN",
    "SENTENCES_COMPARED": "exact k-NN", "KNN_OVERSAMPLE": "cost (a short list is asked again)",
    "EVIDENCE_PER_HIT": "fetch depth", "CARD_PAGES_AHEAD": "cost", "UNIT_SENTENCES": "cost bound",
    "MAX_QUERY_TERMS": "clause limit", "MAX_TRANSLATED_WORDS": "clause limit", "MAX_CHECKED_WORDS": "cost bound",
    "MAX_JOINED_WORDS": "cost bound", "MAX_JOINED_CHARS": "cost bound", "SUGGESTIONS": "cost bound",
    "MERGE_SHARE": "MC-indexing's own", "WEIGHT_DECIMALS": "precision", "SCORE_DECIMALS": "precision",
    "CONFIDENCE_DECIMALS": "precision", "SNIPPET_WIDTH": "display", "MORE_SNIPPET_WIDTH": "display",
    "SNIPPET_LEAD": "display", "MIN_MARKED_CHARS": "display", "MAX_MORE": "display", "FACET_SIZE": "display",
    "MIN_WORD_CHARS": "the term suggester's default min_word_length", "ONE_EDIT_MAX_CHARS": "Lucene's AUTO fuzziness",
    "CARD_MAX_CHARS": "display", "CARD_CONTEXT_CHARS": "display", "PHRASES_NAMED": "display",
    "MAX_LENGTH": "model input", "SHORT_INFLECTED_CHARS": "cost bound", "WORDS_KEPT": "cache",
    "BATCH_SIZE": "cost", "TIMEOUT": "LLM call", "MAX_TOKENS": "LLM call", "TEMPERATURE": "LLM call",
}
# Modules whose tuned numbers judge the first page (verdict) or choose the answer card: they never reorder pages.
NO_REORDER_MODULES = ("verdict", "answer")



def _numeric(node: ast.AST) -> bool:
    """A literal number, a negative one, a Fraction(...) of them, or a tuple of these."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _numeric(node.operand)
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Fraction":
        return all(_numeric(arg) for arg in node.args)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    return False


def search_constants(folder: Path = ROOT / "search") -> dict[str, list[str]]:
    """The module-level numeric constants of ``folder``'s modules, as module.NAME, sorted into ``ranking`` (they
    can move a page), ``verdict_card`` (``NO_REORDER_MODULES``) and ``not_tuned`` (``NOT_TUNED``)."""
    found: dict[str, list[str]] = {"ranking": [], "verdict_card": [], "not_tuned": []}
    for path in sorted(folder.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
                node.target if isinstance(node, ast.AnnAssign) and node.value is not None else None)
            if not isinstance(target, ast.Name) or not target.id.lstrip("_").isupper() or not _numeric(node.value):
                continue
            kind = ("not_tuned" if target.id in NOT_TUNED else
                    "verdict_card" if path.stem in NO_REORDER_MODULES else "ranking")
            found[kind].append(f"{path.stem}.{target.id}")
    return found


def setting_fields() -> dict[str, list[str]]:
    """The ranking settings (``SearchConfig``, ``RerankConfig``) as section.field, sorted into ``numbers``
    (tuned numbers: int, float or a tuple of them) and ``switches`` (the rest);
    ``PUBLISHED_DEFAULTS`` left out."""
    out: dict[str, list[str]] = {"numbers": [], "switches": []}
    for section, config in (("search", SearchConfig()), ("rerank", RerankConfig())):
        for f in dataclasses.fields(config):
            value, path = getattr(config, f.name), f"{section}.{f.name}"
            number = (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
                isinstance(value, tuple) and bool(value) and all(isinstance(v, (int, float)) for v in value))
            if path not in PUBLISHED_DEFAULTS:
                out["numbers" if number else "switches"].append(path)
    return out


def rowed_paths() -> set[str]:
    """The tuned numbers and switches that have an ablation row."""
    return {h.path for h in (*ablation.HEURISTICS, *ablation.NUMBERS, *verdict_ablation.ROWS)}


def inventory() -> str:
    """The counts issue 47 caps, and what they count."""
    constants, settings = search_constants(), setting_fields()
    tuned = settings["numbers"] + constants["ranking"] + constants["verdict_card"]
    rowed = [p for p in tuned if p in rowed_paths()]
    unclassified = [p for p in settings["switches"] if p not in NOT_HEURISTICS and p not in
                    {h.path for h in ablation.HEURISTICS}]
    lines = [f"tuned numbers: {len(tuned)} (issue 47: at most 40)",
             f"  of them with an ablation row ({len(rowed)}: a heuristic's weight switched off, or a number untuned): "
             f"{', '.join(rowed)}",
             f"  without one ({len(tuned) - len(rowed)}): {', '.join(p for p in tuned if p not in rowed)}",
             f"  settings that rank ({len(settings['numbers'])}): {', '.join(settings['numbers'])}",
             f"  search/ constants that rank ({len(constants['ranking'])}): {', '.join(constants['ranking'])}",
             f"  search/ constants of the verdict and the card, never reordering ({len(constants['verdict_card'])}):"
             f" {', '.join(constants['verdict_card'])}",
             f"  not counted, limits and display ({len(constants['not_tuned'])}): {', '.join(constants['not_tuned'])}",
             f"  not counted, published defaults: {'; '.join(f'{k}: {v}' for k, v in PUBLISHED_DEFAULTS.items())}",
             f"heuristics: {len(ablation.HEURISTICS) + len(verdict_ablation.CARD_HEURISTICS)} (issue 47: at most 15)",
             f"  switched off by a setting ({len(ablation.HEURISTICS)}):",
             *(f"    {h.path} = {h.off!r}: {h.what}" for h in ablation.HEURISTICS),
             f"  the card's, switched off by their weight, another number's value "
             f"({len(verdict_ablation.CARD_HEURISTICS)}):",
             *(f"    {h.path} = {h.off!r}: {h.what}" for h in verdict_ablation.CARD_HEURISTICS)]
    if unclassified:
        lines.append(f"settings neither a heuristic nor listed in NOT_HEURISTICS: {', '.join(unclassified)}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(inventory())
