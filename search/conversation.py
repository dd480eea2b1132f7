"""The conversation: what earlier turns have established, and a follow-up read together with it.

``resolve`` gives the question as searched. Without history it is the question as asked. With the configured LLM
(``search.rewrite``) it is the LLM's rewrite. Otherwise every turn after the first is read together with what
the conversation has established (``conversation_reading``): the content terms of every earlier question, each
weighted by how many turns back it was asked (``TERM_DECAY`` per turn) and always below the question's own words
(``carried_bm25``; translated like the question's words, ``carried_across``), the previous question in what the
embedder reads when the question is short (``STANDALONE_TERMS``), and the pages shown first for earlier turns as
a prior, decayed the same way. The two readings of the issue compete in the prior: the question's own words are
searched alone too (``own_word_searches``), and a shown page keeps its prior only as far as they find it against
the best page they find (``shown_weights``), so "Wann verfällt der Resturlaub?" after an error-code question
leaves the runbook, while "How many machines?" keeps the report it matches ("Deadline?" loses the postmortem its
word is not on). No list of words or phrasings decides whether a question is a follow-up, so "How many machines?"
and "Deadline?" are read like "and what about it?"; a question whose own words single out another page still finds
it, because its own words weigh more than anything carried.

The conversation's reading is the only one. Left out because each lost turns on the bench or gained on one half
what it lost on the other (docs/ranking.md, "Tried and left out"; the figures in CHANGELOG.md): reading each
follow-up also on its own and letting the two readings compete by how confidently each retrieves; the title of the
page in view carried as terms, or in what the embedder reads; carried terms weighed down by the length of the
question or by how well its own words find the page in view; a shown page's share scaled by the square root,
square or cube of its own-word ratio (``shown_weights`` stays linear: they ranked within a question of it), or by
the page's standing in the k-NN lists.
"""
from __future__ import annotations

from collections.abc import Callable

from core.llm import LLMError
from search.fusion import CARRIED_PREFIX, query_name
from search.query import PART_JOINS, ResolvedQuery, content_terms, named_codes, title_words
from search.rewrite import QueryRewriter
from search.schema import Turn
from text.detect import detect_language, known_word
from text.lemmas import Lemmatizer

# Each turn further back, an earlier question's terms and shown page keep this share of their weight: the
# turn before counts fully, three turns back an eighth (conversations drift, and come back by naming it).
TERM_DECAY = 0.5
MIN_SHARE = 0.1  # a carried term or shown page weighing less than this has faded out of the conversation
_PRIOR_RESULTS = 1  # results of an earlier turn that get the follow-up prior: the one shown first
# A follow-up with this many content terms of its own says what it is about, so the embedder reads it alone: the
# previous question in its text drew the vector back to the earlier topic after a switch. A shorter one ("Deadline?",
# "Version nos.?") is embedded with the previous question. 1, 2 and 3 terms ranked the bench alike and best
# (docs/ranking.md, "Conversations"; CHANGELOG.md, 2026-11-27); 3 is the largest of the tied values, so a two-word
# question still leans on the conversation.
STANDALONE_TERMS = 3


def resolve(query: str, history: list[Turn], lang: str, lemmatizer: Lemmatizer,
            rewriter: QueryRewriter | None) -> tuple[ResolvedQuery, list[str]]:
    """The question as searched after ``history``, with the warnings to show: the configured LLM's rewrite
    when it works, else the question read together with the conversation."""
    if not history:
        return ResolvedQuery.standalone(query), []
    warnings: list[str] = []
    if rewriter is not None:
        try:
            rewritten = rewriter.run(query, [(t.query, [r.get("title", "") for r in t.results]) for t in history])
            return ResolvedQuery(rewritten, {}, rewritten, {}, rewritten != query), []
        except LLMError as exc:
            warnings.append(f"follow-up rewriting failed ({exc}); resolved without the LLM")
    return conversation_reading(query, history, lang, lemmatizer), warnings


def off_the_map(own: list[str], corpus_holds: Callable[[list[str]], set[str]],
                is_word: Callable[[str], bool] = known_word) -> bool:
    """Whether a follow-up's own terms match nothing: none is a word of a language the search reads (``is_word``:
    the languages' word lists, ``text.detect.known_word``, and the translation list where there is one; a number is
    a word of every language, a code of letters and digits, "TS-E9999", of none, a word of words joined by a hyphen
    is one, "EDI-Bug") and the corpus writes none of them (``corpus_holds``: which of some words any evidence the
    caller may read writes; asked only then).

    Such a question ("xyzzyplugh", another organisation's product name) is read on its own: carried, the
    conversation's terms would find the earlier pages alone, and the answer would seem to be about it. A follow-up
    in words of a language the corpus lacks ("Und in Tschechien?", "And in Czechia?", "and flying?") keeps its
    conversation: it asks about the topic in other words."""
    def a_word(term: str) -> bool:
        if any(c.isdigit() for c in term):
            return not any(c.isalpha() for c in term)
        return is_word(term) or any(is_word(part) for part in PART_JOINS.split(term) if part)
    return bool(own) and not any(a_word(term) for term in own) and not corpus_holds(own)


def carried_terms(history: list[Turn], own: set[str], lemmatizer: Lemmatizer) -> dict[str, float]:
    """The content terms of earlier questions that this one lacks, newest first, each at the share of its
    most recent turn (``TERM_DECAY`` per turn back); faded ones (below ``MIN_SHARE``) are left out."""
    carried: dict[str, float] = {}
    for back, turn in enumerate(reversed(history)):
        share = TERM_DECAY ** back
        if share < MIN_SHARE:
            break
        for term in content_terms(turn.query, detect_language(turn.query), lemmatizer):
            if term not in own and term not in carried:
                carried[term] = share
    return carried


def pages_in_view(turn: Turn) -> list[dict]:
    """The pages a turn left the user looking at: those they opened (the last one opened first), else the
    one shown first. An opened page is what the user judged to answer, so a follow-up is about it more
    than about the page ranked first."""
    titles = {r.get("url"): r.get("title", "") for r in turn.results}
    opened = [{"url": url, "title": titles.get(url, "")} for url in dict.fromkeys(reversed(turn.opened)) if url]
    return opened or turn.results[:_PRIOR_RESULTS]


def shown_pages(history: list[Turn], codes: set[str]) -> dict[str, float]:
    """The pages in view after earlier turns (``pages_in_view``), each at the share of its most recent turn
    (``TERM_DECAY`` per turn back, as carried terms).

    A page whose title lacks a version or code the question names ("und bei HVX 4.0?" after the 4.1
    report) is one the question has moved on from, and gets none."""
    shown: dict[str, float] = {}
    for back, turn in enumerate(reversed(history)):
        share = TERM_DECAY ** back
        if share < MIN_SHARE:
            break
        for result in pages_in_view(turn):
            url = result.get("url")
            if url and url not in shown and not codes - title_words(result.get("title", "")):
                shown[url] = share
    return shown


def conversation_reading(query: str, history: list[Turn], lang: str, lemmatizer: Lemmatizer) -> ResolvedQuery:
    """The question together with the conversation: the earlier questions' terms at decayed weights, for the
    embedder the question (after the previous one when it is short: ``STANDALONE_TERMS``), and the pages shown
    for earlier turns as a prior."""
    own = content_terms(query, lang, lemmatizer)
    carried = carried_terms(history, set(own), lemmatizer)
    prior = shown_pages(history, named_codes(query, lang, lemmatizer))
    dense_text = query if len(own) >= STANDALONE_TERMS else f"{history[-1].query} {query}"
    return ResolvedQuery(query, carried, dense_text, prior, True)


def carried_bm25(body: dict, carried: dict[str, float], boost: float, fields: list[str],
                 explain: bool = False) -> dict:
    """A question's BM25 body (``retrievers.bm25_query``) with the carried terms as further optional
    clauses over the same ``fields`` as the question's words: a page scores for the question's words as
    before, plus the carried terms it holds at each term's share of ``boost``; a page holding only carried
    terms is still found. (Over the lemma field alone the carried subject is too weak to hold a page:
    CHANGELOG.md, 2026-11-25.) To ``explain``, the clauses are named sub-queries."""
    by_share: dict[float, list[str]] = {}
    for term, share in carried.items():
        by_share.setdefault(share, []).append(term)
    should = [body["bool"]["must"], *({"multi_match": {"query": " ".join(terms), "fields": fields,
                                                       "type": "most_fields", "boost": boost * share,
                                                       **query_name(f"{CARRIED_PREFIX}{n}", explain)}}
                                      for n, (share, terms) in enumerate(by_share.items()))]
    return {"bool": {"should": should, "minimum_should_match": 1, "filter": body["bool"]["filter"]}}


def carried_across(carried: dict[str, float], translated: dict[str, dict[str, list[str]]],
                   share: float) -> dict[str, float]:
    """The carried terms and their translations (``query.translations`` of them), each word of a translation
    at ``share`` of its term's weight, so a German conversation about an English page carries its subject
    to the page's words too."""
    out = dict(carried)
    for by_term in translated.values():
        for term, found in by_term.items():
            for word in (w for phrase in found for w in phrase.lower().split()):
                out.setdefault(word, carried[term] * share)
    return out


def own_word_searches(own_body: dict, shown: dict[str, float]) -> list[dict]:
    """Two searches of the question's own words (``own_body``: its BM25 without carried terms): the best
    match anywhere, and the best evidence of each shown page."""
    pages = {"terms": {"url": list(shown)}}
    return [{"size": 1, "_source": False, "query": own_body},
            {"size": 0, "query": {"bool": {"must": own_body, "filter": pages}},
             "aggs": {"pages": {"terms": {"field": "url", "size": len(shown)},
                                "aggs": {"best": {"max": {"script": "_score"}}}}}}]


def shown_weights(shown: dict[str, float], best: float | None, by_page: list[dict]) -> dict[str, float]:
    """Each shown page's prior share scaled by its best own-word score against the ``best`` anywhere
    (``by_page``: the ``pages`` buckets of ``own_word_searches``): 1 when the question's own words find the
    shown page first, 0 when they do not find it at all."""
    if not best:
        return {}
    found = {b["key"]: b["best"]["value"] for b in by_page}
    return {url: share * min(1.0, found[url] / best) for url, share in shown.items() if found.get(url)}
