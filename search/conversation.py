"""The conversation: a follow-up question resolved from the turns before it.

``resolve`` asks the configured LLM (``search.rewrite``) to rewrite the question; without one, or when it
fails, ``resolve_follow_up`` does it by rule. Both give a ``ResolvedQuery`` (``search.query``).
"""
from __future__ import annotations

from core.llm import LLMError
from search.query import ResolvedQuery, content_terms, named_codes, title_words, words
from search.rewrite import QueryRewriter
from search.schema import Turn
from text.detect import detect_language
from text.lemmas import Lemmatizer

# Words that make a question lean on the one before it ("and what about TPM?", "wer ist dafür zuständig?"):
# pronouns that point back count anywhere, connectives only when the question opens with them.
_POINTING_BACK = {
    "en": {"it", "its", "it's", "they", "them", "their", "he", "she", "his", "her", "him", "those", "these"},
    "de": {"dafür", "dazu", "davon", "dort", "dessen", "deren", "damit", "darauf", "daran", "dabei", "darüber",
           "ihn", "ihm"},
    "es": {"eso", "esto", "ello", "allí", "ahí"},
}
_OPENING = {
    "en": {"and", "also", "so", "then", "what about", "how about"},
    "de": {"und", "auch", "also", "dann", "und was", "was ist mit"},
    "es": {"y", "también", "entonces", "y qué"},
}
_OPENING_WORDS = 3  # the longest connective in ``_OPENING`` ("was ist mit") has three words
# A question with at most this many content words of its own ("TPM?", "und bei HVX 4.0?") is elliptical.
_ELLIPTICAL_TERMS = 1
_HISTORY_TURNS = 3  # earlier questions whose terms are carried over; older ones have usually moved on
_PRIOR_RESULTS = 1  # results of the last turn that get the follow-up prior: the one shown first


def resolve(query: str, history: list[Turn], lang: str, lemmatizer: Lemmatizer,
            rewriter: QueryRewriter | None) -> tuple[ResolvedQuery, list[str]]:
    """The configured LLM rewrites a question asked after others; without one, or when it fails, the
    rule-based ``resolve_follow_up`` does. Gives the resolution and the warnings to show."""
    if rewriter is not None and history:
        try:
            rewritten = rewriter.run(query, [(t.query, [r.get("title", "") for r in t.results]) for t in history])
            return ResolvedQuery(rewritten, [], rewritten, [], rewritten != query), []
        except LLMError as exc:
            warning = f"follow-up rewriting failed ({exc}); resolved without the LLM"
            return resolve_follow_up(query, history, lang, lemmatizer), [warning]
    return resolve_follow_up(query, history, lang, lemmatizer), []


def leans_back(query: str, lang: str) -> bool:
    """A pronoun that points back anywhere in the question, or a connective that opens it."""
    tokens = words(query)
    opening = " ".join(tokens[:_OPENING_WORDS])
    return any(t in _POINTING_BACK.get(lang, set()) for t in tokens) or any(
        opening == o or opening.startswith(o + " ") for o in _OPENING.get(lang, set()))


def carried_terms(history: list[Turn], own: set[str], lemmatizer: Lemmatizer) -> list[str]:
    """The content terms of the last ``_HISTORY_TURNS`` questions, newest first, that this one lacks."""
    carried: list[str] = []
    for turn in reversed(history[-_HISTORY_TURNS:]):
        for term in content_terms(turn.query, detect_language(turn.query), lemmatizer):
            if term not in own and term not in carried:
                carried.append(term)
    return carried


def resolve_follow_up(query: str, history: list[Turn], lang: str, lemmatizer: Lemmatizer) -> ResolvedQuery:
    """Complete an elliptical follow-up from the conversation without an LLM.

    A question leans on the one before it when it contains a pronoun that
    points back ("it", "dafür") or opens with a connective ("and ...", "what
    about ..."), or has at most one content word of its own ("TPM?"). Then the
    key terms of the earlier questions (newest first) are carried over at a
    lower BM25 weight, the embedder sees the last question and this one
    together, and the page shown first for the last turn gets a small prior.
    A question that stands on its own keeps the earlier terms only as a weak
    hint (``hint_share``), so it is not dragged back.
    """
    if not history:
        return ResolvedQuery.standalone(query)
    own_terms = content_terms(query, lang, lemmatizer)
    follow_up = leans_back(query, lang) or len(own_terms) <= _ELLIPTICAL_TERMS
    carried = carried_terms(history, set(own_terms), lemmatizer)
    if not follow_up:
        # Still the same conversation: the earlier subject is kept as a weak hint only.
        return ResolvedQuery(query, carried, query, [], False)
    # A follow-up that names a version or code its prior page's title lacks ("und bei HVX 4.0?" after the
    # 4.1 report) has moved on from that page.
    codes = named_codes(query, lang, lemmatizer)
    prior = [r["url"] for r in history[-1].results[:_PRIOR_RESULTS]
             if r.get("url") and not codes - title_words(r.get("title", ""))]
    return ResolvedQuery(query, carried, f"{history[-1].query} {query}", prior, True)
