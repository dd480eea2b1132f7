"""The retrievers: the BM25, k-NN and baseline query bodies, the caller's filters inside each, and running them.

Every body carries the ACL filter, so a restricted page never reaches the fusion. ``run_each`` sends the
retrievers as one ``_msearch``, a ranked list each; ``run_hybrid`` sends them as one ``hybrid`` query whose
search pipeline fuses them inside OpenSearch.
"""
from __future__ import annotations

from dataclasses import dataclass

from opensearchpy import OpenSearch

from core.index import ACL_LEVEL_FIELDS, MULTILINGUAL_FIELD, NESTED_ACL_PATH, NO_READER, VECTOR_FIELDS, item_failure
from core.settings import SearchConfig
from ingest import evidence as kinds
from search.fusion import READING_PREFIX, query_name
from search.query import Query, content_tokens
from text.lemmas import Lemmatizer
from text.stopwords import without_analyzer_stop_words, without_pronoun_i

# What the later stages read of each evidence: fusion (section_id), priors (title, term), grouping and hits,
# the near-duplicate fold (page_simhash, created, updated, labels). The long views (summary, keywords) are
# not fetched: every evidence of each ranked list would carry them for nothing. The mapping stores these
# fields apart from ``_source`` (``store``), and they are fetched as stored fields: asking ``_source``, even
# for a few fields, had OpenSearch load and parse each hit's whole source with its vectors (30 hits of a BM25
# search at 50k evidence: 13.4 ms against 11.4 with stored fields, 11.1 with no fields at all). The acronyms an
# evidence defines (priors) come from the keyword's doc values, which every index since that field has.
SOURCE_FIELDS = ["id", "doc_id", "kind", "url", "title", "text", "heading_path", "breadcrumb", "section_id",
                 "lang", "space", "space_name", "labels", "updated", "author", "term", "created", "page_simhash"]
LIST_FIELDS = ("heading_path", "breadcrumb", "labels", "defines")  # of many values: a stored field gives a list
# An index made before the fields were stored gives them from ``_source`` (the anchor term under ``meta``)
# until ``evident reindex`` rebuilds it from the current template.
DOC_VALUE_FIELDS = ["defines", "page"]  # page: a PDF page's number, for its label in a result
OLD_SOURCE_FIELDS = [*SOURCE_FIELDS, "meta.term", *DOC_VALUE_FIELDS]
FILTER_FIELDS = ("space", "kind", "lang", "labels", "source_type", "author")
ANALYZED_LANGUAGES = ("en", "de", "es")  # the languages the index template gives analyzed copies for
# Field boosts against the context view (1), which repeats its page's and neighbours' words; set when BM25 was first
# written and kept since (the bench tunes the fusion weights instead):
TITLE_BOOST = 2  # a title names what the whole page is about
# The evidence's own fields: its words, its heading path (what its section is about), its keyword view (its most
# telling terms) and its lemma view (inflected forms and dates: "5. Februar 2025" = "2025-02-05").
FIELD_BOOST = 1.5


# The caller's filters are applied to the k-NN candidates after the graph search when they are the ACL
# alone: inside it they cost 9 of 13 ms per k-NN search at 50k evidence, whatever the filter. The search
# then asks this many times the candidates, so a caller barred from some still gets a full list (one that
# comes back short is asked again with the filters inside: ``Retriever.fallback``).
KNN_OVERSAMPLE = 2
KNN_MAX_K = 10_000  # the largest k the k-NN plugin takes
CROSS_LINGUAL_LIST = "dense_multilingual"  # the cross-lingual k-NN list's name in an explained search


@dataclass
class Retriever:
    """One ranked list to fetch: its query body and its weight in the fusion; ``fallback``, the body to ask
    instead when this one's answer is shorter than asked (a k-NN search filtered after the search)."""

    body: dict
    weight: float
    lexical: bool  # BM25
    fallback: dict | None = None
    name: str = ""  # the list's name in an explained search; empty: named by its place (``list_names``)


def acl_filter(principals: list[str]) -> dict:
    """Evidence the caller may read: every read restriction on it names one of the caller's principals
    (groups and ``user:<id>``, each in its namespace: ``ingest.principals``); evidence without restrictions
    is public.

    A page inherits its restricted ancestors' restrictions, and Confluence wants a reader admitted by each of
    them, so each level is a field of its own (``core.index.ACL_LEVEL_FIELDS``) and none may fail to match.
    ``acl`` (the evidence's own level) is checked as well, so evidence written before the levels existed
    stays protected; so are the levels of an index made before they were fields, nested objects under
    ``NESTED_ACL_PATH`` until ``evident reindex`` moves them (on any other index that clause matches nothing).
    """
    readers = [principal for principal in principals if principal != NO_READER]

    def admits(field: str) -> dict:
        either: list[dict] = [{"bool": {"must_not": {"exists": {"field": field}}}}]
        if readers:
            either.append({"terms": {field: readers}})
        return {"bool": {"should": either, "minimum_should_match": 1}}

    unmatched = {"bool": {"must_not": {"terms": {f"{NESTED_ACL_PATH}.principals": readers}}}} if readers \
        else {"match_all": {}}
    return {"bool": {"filter": [admits("acl"), *(admits(field) for field in ACL_LEVEL_FIELDS)],
                     "must_not": {"nested": {"path": NESTED_ACL_PATH, "ignore_unmapped": True, "query": unmatched}}}}


def request_filters(groups: list[str], filters: dict) -> list[dict]:
    """The ACL filter and the request's facet filters (space, kind, ...), date range, phrases and exclusions."""
    clauses = [acl_filter(groups)]
    for name in FILTER_FIELDS:
        values = filters.get(name)
        if values:
            clauses.append({"terms": {name: [values] if isinstance(values, str) else list(values)}})
    date_range = {op: filters[key] for key, op in (("date_from", "gte"), ("date_to", "lte")) if filters.get(key)}
    if date_range:
        clauses.append({"range": {"updated": date_range}})
    # The question's "phrases" and -words (``search.syntax``), in the evidence's text with its title, headings and
    # neighbours: an evidence of a page on the phrase's topic holds it there, or its title does.
    clauses += [{"match_phrase": {"context": phrase}} for phrase in filters.get("phrases", [])]
    if filters.get("excluded"):
        clauses.append({"bool": {"must_not": [{"match_phrase": {"context": excluded}}
                                              for excluded in filters["excluded"]]}})
    return clauses


def _boosted(name: str, boost: float) -> str:
    return f"{name}^{boost:g}"


def text_fields(lang: str) -> list[str]:
    """The fields BM25 searches, with the analyzed copies of a language the mapping knows.

    Not the summary view: it is the evidence's best sentences, words the ``text`` field already holds, so
    searching it counted those words twice and nothing else, and without it BM25 ranks no worse and runs
    faster. Left out, because each lost turns on the bench (docs/ranking.md, "Tried and left out"; the
    figures in CHANGELOG.md, 2026-11-27): the keyword view dropped too; ``heading_path``, ``text``, ``title``
    or the analyzed ``context`` copies dropped; BM25F over the fields of each analyzer (``combined_fields``,
    faster); the question's word pairs matched against a shingle copy of ``title``."""
    fields = [_boosted("title", TITLE_BOOST), _boosted("heading_path", FIELD_BOOST), _boosted("text", FIELD_BOOST),
              "context", _boosted("keywords", FIELD_BOOST)]
    if lang in ANALYZED_LANGUAGES:
        fields += [f"context.{lang}", _boosted(f"title.{lang}", TITLE_BOOST), _boosted(f"text.{lang}", FIELD_BOOST)]
    return fields


def bm25_query(query: Query, filters: list[dict], cfg: SearchConfig, lemmatizer: Lemmatizer,
               explain: bool = False) -> dict:
    """BM25 over the question as written; with translations, each page scored in its own language.

    The question as written and its word-by-word translation into each other language are
    alternatives (``dis_max``): a page takes the better of the two, the translation at
    ``translation_boost`` for each word it translates. So an English page answering a German question competes
    with German pages on the same concepts, and a German page on the same topic keeps a small edge. Terms carried
    over from earlier turns are the conversation stage's to add (``conversation.carried_bm25``). To
    ``explain``, the readings are named sub-queries (``fusion.named_parts`` splits BM25's share by them).
    """
    resolved, lang = query.resolved, query.lang
    text = resolved.text
    if lang != cfg.corpus_language:
        # Another language's function words are rare in the corpus, so their IDF would lift every page
        # written in that language ("wie", "es", "bei"); the question's content words are kept.
        text = " ".join(t.text for t in content_tokens(text, lang, lemmatizer)) or text
    else:
        # The words the language's analyzer drops from the analyzed copies ("the", "of") are dropped for the
        # other fields too: nearly every evidence holds them, so each made BM25 read the whole index for a
        # score that ranks nothing (docs/performance.md, "What makes search fast").
        text = without_analyzer_stop_words(text, lang)
        if lang == "en":
            text = without_pronoun_i(text)
    should: list[dict] = [{"multi_match": {"query": text, "fields": text_fields(lang), "type": "most_fields"}}]
    if query.lemmas:
        should.append({"match": {"lemmas": {"query": " ".join(query.lemmas), "boost": FIELD_BOOST}}})
    readings = [{"bool": {"should": should, **query_name(f"{READING_PREFIX}own_words", explain)}}]
    for target, by_term in query.translated.items():
        if all(found == [term] for term, found in by_term.items()):
            continue  # "test" -> "test": the reading would search the question's own words again, as costly
        # A word the list does not know (a name, a number, a product) is searched as written. A word searched
        # as written ("Security Guidelines" in a German question) is the same word in both readings and carries
        # no doubt of translation: it weighs as in the question as written (unboosted), and only the translated
        # words pay ``translation_boost`` (docs/ranking.md, "Cross-lingual questions").
        words = []
        for term in query.lemmas:
            found = by_term.get(term) or [term]
            doubt = {} if found == [term] else {"boost": cfg.translation_boost}
            words.append({"multi_match": {"query": " ".join(found), "type": "most_fields", **doubt,
                                          "fields": text_fields(target)}})
        readings.append({"bool": {**query_name(f"{READING_PREFIX}translated_{target}", explain), "should": words}})
    return {"bool": {"must": {"dis_max": {"queries": readings}}, "filter": filters}}


def baseline_query(text: str, filters: list[dict]) -> dict:
    """What an intranet search box does today: BM25 over whole page text, nothing else (for comparison)."""
    return {"bool": {"must": {"match": {"text": text}},
                     "filter": [*filters, {"terms": {"kind": [kinds.PAGE, kinds.PDF_PAGE]}}]}}


def knn_query(field: str, vector: list[float], k: int, filters: list[dict], inside: bool = True) -> dict:
    """The ``k`` nearest evidence to ``vector`` in the vector ``field`` the filters admit: filtered inside the
    graph search, or after a search for ``KNN_OVERSAMPLE`` times as many."""
    if inside:
        return {"knn": {field: {"vector": vector, "k": k, "filter": {"bool": {"filter": filters}}}}}
    return {"bool": {"must": {"knn": {field: {"vector": vector, "k": min(KNN_MAX_K, k * KNN_OVERSAMPLE)}}},
                     "filter": filters}}


def dense_texts(query: Query, model_language: str) -> list[str]:
    """What the embedder reads: the (resolved) question, then its translation into the model's language
    when the lexicon gives one, since an English-only embedder reads its own language best."""
    return [query.resolved.dense_text] + [" ".join(w for found in by_term.values() for w in found)
                                          for target, by_term in query.translated.items() if target == model_language]


def knn_retrievers(vectors: list[list[float]], foreign: bool, views: tuple[str, ...], k: int,
                   filters: list[dict], cfg: SearchConfig, filter_after: bool = False) -> list[Retriever]:
    """A k-NN retriever per vector and view, at ``dense_weight``; a question written in another language than
    the model's (which reads its own language only) at ``foreign_dense_share`` of it per reading, as written and
    as translated (the second vector: a translation goes into the model's language, so only such a question
    has one). ``filter_after``: the filters applied after the search, with the filtered-inside search as each
    retriever's fallback."""
    out = []
    for i, vector in enumerate(vectors):
        weight = cfg.dense_weight * (cfg.foreign_dense_share if foreign or i else 1.0)
        for view in views:
            inside = knn_query(VECTOR_FIELDS[view], vector, k, filters)
            out.append(Retriever(knn_query(VECTOR_FIELDS[view], vector, k, filters, inside=False) if filter_after
                                 else inside, weight, False, fallback=inside if filter_after else None))
    return out


def cross_lingual_retriever(vector: list[float], k: int, filters: list[dict], weight: float,
                            filter_after: bool = False) -> Retriever:
    """The k-NN list of the question's multilingual vector over every leaf evidence (``MULTILINGUAL_FIELD``), at
    ``weight``: a German question meets an English page by meaning, not only through the pages its words or
    their translations find, so a page that shares no word with it can still enter the fusion.

    An index from before the multilingual view matches nothing (``ignore_unmapped``) instead of failing the search."""
    inside = _unmapped_ignored(knn_query(MULTILINGUAL_FIELD, vector, k, filters))
    after = _unmapped_ignored(knn_query(MULTILINGUAL_FIELD, vector, k, filters, inside=False))
    return Retriever(after if filter_after else inside, weight, False, fallback=inside if filter_after else None,
                     name=CROSS_LINGUAL_LIST)


def _unmapped_ignored(body: dict) -> dict:
    """A k-NN body (either form of ``knn_query``) that matches nothing on an index without its vector field."""
    knn = body["knn"] if "knn" in body else body["bool"]["must"]["knn"]
    for clause in knn.values():
        clause["ignore_unmapped"] = True
    return body


def msearch(client: OpenSearch, index: str, searches: list[dict]) -> list[dict]:
    """One ``_msearch``; a failed search raises, so a missing ranked list never passes for an empty one."""
    body: list[dict] = []
    for s in searches:
        body += [{"index": index}, s]
    responses = client.msearch(body=body)["responses"] if body else []
    for response in responses:
        if "error" in response:
            raise item_failure(response["error"], "OpenSearch search failed")
    return responses


def run_each(client: OpenSearch, index: str, retrievers: list[Retriever], size: int,
             named_scores: bool = False, stored: bool = True) -> list[dict]:
    """Each retriever's response, in retriever order. The matches are not counted (``track_total_hits``), so
    OpenSearch may skip the evidence that cannot reach the top ``size``. ``named_scores``: the lexical
    retrievers are asked on their own with their named sub-queries' scores (``_msearch`` does not take
    ``include_named_queries_score``), to explain a search."""
    bodies = [{"size": size, **fetched_fields(stored), "track_total_hits": False, "query": r.body}
              for r in retrievers]
    alone = {i for i, r in enumerate(retrievers) if named_scores and r.lexical}
    together = iter(msearch(client, index, [b for i, b in enumerate(bodies) if i not in alone]))
    return [with_sources(client.search(index=index, body=bodies[i], params={"include_named_queries_score": "true"})
                         if i in alone else next(together)) for i in range(len(retrievers))]


def run_hybrid(client: OpenSearch, index: str, retrievers: list[Retriever], size: int, processor: dict,
               stored: bool = True) -> dict:
    """One ``hybrid`` query over all retrievers, fused by ``processor`` in a pipeline sent with it."""
    return with_sources(client.search(index=index, body={
        "size": size, **fetched_fields(stored),
        "query": {"hybrid": {"queries": [r.body for r in retrievers]}},
        "search_pipeline": {"phase_results_processors": [processor]}}))


def fetched_fields(stored: bool) -> dict:
    """What a search asks of each hit: the stored fields, or ``_source`` from an index that does not store them."""
    return ({"_source": False, "stored_fields": SOURCE_FIELDS, "docvalue_fields": DOC_VALUE_FIELDS} if stored
            else {"_source": OLD_SOURCE_FIELDS})


def with_sources(response: dict) -> dict:
    """Each hit's fields as the later stages read them, under ``_source``: a stored field's values come as a
    list, so a single-valued field is unwrapped; an index without stored fields has its anchor term moved up
    from ``meta``. A field the evidence does not have is absent, a list field empty."""
    for hit in response["hits"]["hits"]:
        if "_source" in hit:
            source = hit["_source"]
            term = (source.pop("meta", None) or {}).get("term")
            if term:
                source["term"] = term
        else:
            source = {name: values if name in LIST_FIELDS else values[0]
                      for name, values in hit.pop("fields", {}).items()}
            hit["_source"] = source
        for name in LIST_FIELDS:
            source.setdefault(name, [])
        source.setdefault("url", "")  # a URL past the keyword limit is not stored: the hit then has no link
    return response


def list_names(retrievers: list[Retriever], mode: str, views: tuple[str, ...]) -> list[str]:
    """A name per ranked list, as the searcher orders them: ``bm25`` (its query holds the translated and carried
    terms too; ``bm25_baseline`` in the ``mode`` of that name), then ``dense_<view>`` per view of ``views`` for the
    question as read and ``dense_<view>_translated`` for its translation; a list named itself
    (``dense_multilingual``) by that."""
    names, dense = [], 0
    for retriever in retrievers:
        if retriever.lexical:
            names.append("bm25_baseline" if mode == "baseline" else "bm25")
            continue
        if retriever.name:
            names.append(retriever.name)
            continue
        reading, view = divmod(dense, len(views))
        names.append(f"dense_{views[view]}" + ("_translated" if reading else ""))
        dense += 1
    return names
