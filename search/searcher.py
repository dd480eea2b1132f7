"""Retrieval, the one place both the API and the evaluation command search through.

A request goes: follow-up resolution from the conversation -> language and
lemmas of the query -> BM25 over text, context, lemmas and titles plus k-NN
over each vector view (one ``_msearch``; or one ``hybrid`` query with a search
pipeline when neural-search runs) -> fusion (RRF or min-max) -> grouping by
page -> snippets, facets, pagination. The caller's ACL filter is inside every
retriever, so a restricted page never reaches the fusion step.
"""
from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field

from opensearchpy import OpenSearch

from core.embedding import Embedder
from core.index import VECTOR_FIELDS
from search.lexicon import Lexicon, load_lexicon
from core.llm import LLMError
from search.rerank import Reranker, load_reranker
from search.rewrite import QueryRewriter, load_rewriter
from core.settings import SearchConfig, Settings
from ingest import evidence as kinds
from text.dates import date_tokens
from text.language import Lemmatizer, Token, detect_language, stopwords

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
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$")
_TOKEN = re.compile(r"[\w][\w.\-/]*\w|\w", re.UNICODE)
_SOURCE_FIELDS = ["id", "doc_id", "kind", "url", "title", "text", "heading_path", "breadcrumb", "section_id",
                  "lang", "space", "labels", "source_type", "updated", "page", "acl", "summary", "keywords",
                  "meta.term"]


@dataclass
class Turn:
    """An earlier turn of the conversation: what was asked and what was shown."""

    query: str
    results: list[dict] = field(default_factory=list)  # at least {"url": ..., "title": ...}


@dataclass
class SearchRequest:
    query: str
    k: int = 10
    page: int = 1
    groups: list[str] = field(default_factory=list)  # the caller's groups; public evidence is always visible
    history: list[Turn] = field(default_factory=list)
    filters: dict = field(default_factory=dict)  # space, kind, lang, labels (lists), date_from, date_to
    mode: str | None = None  # overrides of SearchConfig for this request (bm25, dense, hybrid, baseline)
    fusion: str | None = None
    views: tuple[str, ...] | None = None
    group: str | None = None
    use_history: bool | None = None


@dataclass
class Hit:
    url: str
    title: str
    heading_path: list[str]
    kind: str
    snippet: str
    score: float
    doc_id: str
    evidence_id: str
    space: str = ""
    lang: str = ""
    breadcrumb: list[str] = field(default_factory=list)
    more: list[dict] = field(default_factory=list)  # the page's other matching evidence


@dataclass
class SearchResponse:
    query: str
    hits: list[Hit]
    took_ms: int
    total: int
    lang: str
    resolved_query: str
    facets: dict = field(default_factory=dict)
    translations: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # language -> word -> translations
    warnings: list[str] = field(default_factory=list)  # an optional stage that failed, and what was done instead


def acl_filter(groups: list[str]) -> dict:
    """Public evidence (no acl) or evidence shared with one of the caller's groups."""
    should: list[dict] = [{"bool": {"must_not": {"exists": {"field": "acl"}}}}]
    if groups:
        should.append({"terms": {"acl": list(groups)}})
    return {"bool": {"should": should, "minimum_should_match": 1}}


def request_filters(request: SearchRequest) -> list[dict]:
    clauses = [acl_filter(request.groups)]
    for name in ("space", "kind", "lang", "labels", "source_type"):
        values = request.filters.get(name)
        if values:
            clauses.append({"terms": {name: [values] if isinstance(values, str) else list(values)}})
    date_range = {op: request.filters[key] for key, op in (("date_from", "gte"), ("date_to", "lte"))
                  if request.filters.get(key)}
    if date_range:
        clauses.append({"range": {"updated": date_range}})
    return clauses


def content_tokens(text: str, lang: str, lemmatizer: Lemmatizer) -> list[Token]:
    """The query's words that are not stop words.

    spaCy's German stop list holds nouns too ("Jahr", "Tag", "Zeit"); German capitalizes nouns, so a
    capitalized word that does not open the sentence is kept ("An welchem Tag wird das Gehalt ...").
    """
    stop = stopwords(lang)
    kept = []
    opening = True
    for token in lemmatizer.analyze(text, lang):
        if token.kind == "punct":
            opening = opening or token.text in ".?!:\n"
            continue
        noun = lang == "de" and not opening and token.text[:1].isupper()
        opening = False
        if (noun or (token.lemma not in stop and token.text.lower() not in stop)) and (
                len(token.lemma) > 1 or token.lemma.isdigit()):
            kept.append(token)
    return kept


def named_codes(text: str, lang: str, lemmatizer: Lemmatizer) -> set[str]:
    """The versions, numbers and codes a text names ("4.0", "rc1", "hvx-1988"): what tells apart pages
    written from one template, whose titles differ in them only."""
    return {t.text.lower() for t in lemmatizer.analyze(text, lang) if t.kind in ("num", "code")}


def title_words(title: str) -> set[str]:
    return set(_TOKEN.findall(title.lower()))


def identifiers(text: str, lang: str, lemmatizer: Lemmatizer | None) -> dict[str, set[str]]:
    """Versions ("4.1.2"), dates ("2025-02-05" and "--02-05") and other codes ("rc1", "hvx-2588") in a text,
    by kind; bare numbers are not identifiers. Without a lemmatizer (a title) words are split by ``_TOKEN``."""
    dates = set(date_tokens(text))
    found: dict[str, set[str]] = {"date": dates} if dates else {}
    for word in named_codes(text, lang, lemmatizer) if lemmatizer else title_words(text):
        if any(c.isdigit() for c in word) and not word.isdigit() and word not in dates:
            found.setdefault("version" if _VERSION.match(word) else "code", set()).add(word)
    return found


def names_a_twin(query_ids: dict[str, set[str]], title_ids: dict[str, set[str]]) -> bool:
    """A title that names a version (or date, or code) where the query names another one of that kind."""
    return any(kind in title_ids and not ids & title_ids[kind] for kind, ids in query_ids.items())


def content_terms(text: str, lang: str, lemmatizer: Lemmatizer) -> list[str]:
    """The lemmas of the query's content words, plus ISO tokens for the dates it names."""
    terms = [t.lemma for t in content_tokens(text, lang, lemmatizer)]
    return terms + [t for t in date_tokens(text) if t not in terms]


@dataclass
class ResolvedQuery:
    text: str  # the user's own words: BM25 at full weight
    carried: list[str]  # key terms carried over from earlier turns: BM25 at a lower weight
    dense_text: str  # what the embedder sees: the earlier question and this one, for a follow-up
    prior_urls: list[str]  # pages shown for the turn this one follows up on
    follow_up: bool


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
        return ResolvedQuery(query, [], query, [], False)
    tokens = [t.lower() for t in _TOKEN.findall(query)]
    own_terms = content_terms(query, lang, lemmatizer)
    opening = " ".join(tokens[:3])
    leans = any(t in _POINTING_BACK.get(lang, set()) for t in tokens) or any(
        opening == o or opening.startswith(o + " ") for o in _OPENING.get(lang, set()))
    follow_up = leans or len(own_terms) <= 1
    carried: list[str] = []
    own = set(own_terms)
    for turn in reversed(history[-3:]):
        turn_lang = detect_language(turn.query)
        for term in content_terms(turn.query, turn_lang, lemmatizer):
            if term not in own and term not in carried:
                carried.append(term)
    if not follow_up:
        # Still the same conversation: the earlier subject is kept as a weak hint only.
        return ResolvedQuery(query, carried, query, [], False)
    # A follow-up that names a version or code its prior page's title lacks ("und bei HVX 4.0?" after the
    # 4.1 report) has moved on from that page.
    codes = named_codes(query, lang, lemmatizer)
    prior = [r["url"] for r in history[-1].results[:1] if r.get("url") and not codes - title_words(r.get("title", ""))]
    return ResolvedQuery(query, carried, f"{history[-1].query} {query}", prior, True)


class Searcher:
    """Configuration-only init; ``search`` runs one request."""

    def __init__(self, settings: Settings, client: OpenSearch, embedder: Embedder, lemmatizer: Lemmatizer,
                 lexicon: Lexicon | None = None, reranker: Reranker | None = None,
                 rewriter: QueryRewriter | None = None):
        self.settings = settings
        self.client = client
        self.embedder = embedder
        self.lemmatizer = lemmatizer
        self.lexicon = lexicon
        self.reranker = reranker
        self.rewriter = rewriter

    @classmethod
    def from_settings(cls, settings: Settings, client: OpenSearch) -> Searcher:
        return cls(settings, client, Embedder(settings.embedding), Lemmatizer(), load_lexicon(settings.search.lexicon),
                   load_reranker(settings.rerank), load_rewriter(settings))

    def resolve(self, query: str, history: list[Turn], lang: str, warnings: list[str]) -> ResolvedQuery:
        """The configured LLM rewrites a question asked after others; without one, or when it fails, the
        rule-based ``resolve_follow_up`` does."""
        if self.rewriter is not None and history:
            try:
                rewritten = self.rewriter.run(query, [(t.query, [r.get("title", "") for r in t.results])
                                                      for t in history])
                return ResolvedQuery(rewritten, [], rewritten, [], rewritten != query)
            except LLMError as exc:
                warnings.append(f"follow-up rewriting failed ({exc}); resolved without the LLM")
        return resolve_follow_up(query, history, lang, self.lemmatizer)

    def rerank(self, query: str, fused: list[dict], fusion: str) -> None:
        """The cross-encoder rescores the best ``top_n`` candidates; its ranking joins the fusion with
        ``weight`` (as one more ranked list for RRF, as a min-max normalized score otherwise)."""
        cfg = self.settings.rerank
        top = fused[:cfg.top_n]
        texts = [" — ".join(filter(None, [it["_source"].get("title", ""),
                                          " > ".join(it["_source"].get("heading_path", [])),
                                          it["_source"].get("text", "")])) for it in top]
        scores = self.reranker.run(query, texts)
        low, high = min(scores, default=0.0), max(scores, default=0.0)
        order = sorted(range(len(top)), key=lambda i: -scores[i])
        for rank, i in enumerate(order, start=1):
            if fusion == "rrf":
                top[i]["_score_fused"] += cfg.weight / (self.settings.search.rrf_k + rank)
            else:
                top[i]["_score_fused"] += cfg.weight * ((scores[i] - low) / (high - low) if high > low else 1.0)

    # -- query building -------------------------------------------------------------------------
    def translations(self, terms: list[str], lang: str) -> dict[str, dict[str, list[str]]]:
        """Each content word of the query in each other language the lexicon knows, for pages written there."""
        if self.lexicon is None:
            return {}
        out: dict[str, dict[str, list[str]]] = {}
        for source, target in sorted(self.lexicon.pairs):
            if source == lang:
                stop = stopwords(target)
                for term in terms:
                    words = [w for w in self.lexicon.translate([term], source, target) if w not in stop]
                    if words:
                        out.setdefault(target, {})[term] = words
        return out

    @staticmethod
    def text_fields(lang: str) -> list[str]:
        """The fields BM25 searches, with the analyzed copies of a language the mapping knows."""
        fields = ["title^2", "heading_path^1.5", "text^1.5", "context", "keywords^1.5", "summary"]
        if lang in ("en", "de", "es"):
            fields += [f"context.{lang}", f"title.{lang}^2", f"text.{lang}^1.5"]
        return fields

    def bm25_query(self, text: str, lemmas: list[str], lang: str, filters: list[dict],
                   carried: list[str] = (), carried_boost: float = 0.0,
                   translated: dict[str, dict[str, list[str]]] | None = None) -> dict:
        """BM25 over the question as written; with translations, each page scored in its own language.

        The question as written and its word-by-word translation into each other language are
        alternatives (``dis_max``): a page takes the better of the two, the translation at
        ``translation_boost``. So an English page answering a German question competes with German
        pages on the same concepts, and a German page on the same topic keeps a small edge.
        """
        if lang != self.settings.search.corpus_language:
            # Another language's function words are rare in the corpus, so their IDF would lift every page
            # written in that language ("wie", "es", "bei"); the question's content words are kept.
            text = " ".join(t.text for t in content_tokens(text, lang, self.lemmatizer)) or text
        should: list[dict] = [
            {"multi_match": {"query": text, "fields": self.text_fields(lang), "type": "most_fields"}},
        ]
        if lemmas:
            should.append({"match": {"lemmas": {"query": " ".join(lemmas), "boost": 1.5}}})
        if carried:
            should.append({"match": {"lemmas": {"query": " ".join(carried), "boost": carried_boost}}})
        readings = [{"bool": {"should": should}}]
        for target, by_term in (translated or {}).items():
            # A word the list does not know (a name, a number, a product) is searched as written.
            readings.append({"bool": {"boost": self.settings.search.translation_boost, "should": [
                {"multi_match": {"query": " ".join(by_term.get(term) or [term]), "type": "most_fields",
                                 "fields": self.text_fields(target)}} for term in lemmas]}})
        return {"bool": {"must": {"dis_max": {"queries": readings}}, "filter": filters}}

    @staticmethod
    def baseline_query(text: str, filters: list[dict]) -> dict:
        """What an intranet search box does today: BM25 over whole page text, nothing else (for comparison)."""
        return {"bool": {"must": {"match": {"text": text}},
                         "filter": [*filters, {"terms": {"kind": [kinds.PAGE, kinds.PDF_PAGE]}}]}}

    def knn_query(self, view: str, vector: list[float], k: int, filters: list[dict]) -> dict:
        return {"knn": {VECTOR_FIELDS[view]: {"vector": vector, "k": k,
                                              "filter": {"bool": {"filter": filters}}}}}

    # -- running --------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load the embedder and the lemmatizer now, so the first user does not wait for them."""
        self.embedder.embed(["warm up"])
        content_terms("warm up", "en", self.lemmatizer)
        detect_language("warm up")

    def server_side(self, request: SearchRequest) -> bool:
        """Fuse inside OpenSearch (hybrid query + search pipeline) when configured and both sides are asked."""
        return self.settings.search.server_side and (request.mode or self.settings.search.mode) == "hybrid"

    def _msearch(self, searches: list[dict]) -> list[dict]:
        body: list[dict] = []
        for s in searches:
            body += [{"index": self.settings.opensearch.index_alias}, s]
        responses = self.client.msearch(body=body)["responses"] if body else []
        for response in responses:
            if "error" in response:
                raise RuntimeError(f"OpenSearch search failed: {response['error']}")
        return responses

    def _search_server_side(self, queries: list[dict], weights: list[float], n: int, fusion: str,
                            aggs: dict) -> tuple[list[dict], dict]:
        """One ``hybrid`` query; the fusion runs in a search pipeline sent with the request, carrying the
        same weights as the application-side fusion (scaled to sum to 1, as the processors require)."""
        total = sum(weights) or 1.0
        shares = [round(w / total, 6) for w in weights]
        shares[-1] = round(1.0 - sum(shares[:-1]), 6)
        if fusion == "rrf":
            processor = {"score-ranker-processor": {"combination": {
                "technique": "rrf", "rank_constant": self.settings.search.rrf_k, "parameters": {"weights": shares}}}}
        else:
            processor = {"normalization-processor": {"normalization": {"technique": "min_max"}, "combination": {
                "technique": "arithmetic_mean", "parameters": {"weights": shares}}}}
        response = self.client.search(index=self.settings.opensearch.index_alias, body={
            "size": n, "_source": _SOURCE_FIELDS, "aggs": aggs, "query": {"hybrid": {"queries": queries}},
            "search_pipeline": {"phase_results_processors": [processor]}})
        hits = response["hits"]["hits"]
        for hit in hits:
            hit["_score_fused"] = hit["_score"]
        return hits, _facets(response)

    def search(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        cfg: SearchConfig = self.settings.search
        mode = request.mode or cfg.mode
        fusion = request.fusion or cfg.fusion
        views = tuple(request.views or cfg.views)
        group = request.group or cfg.group
        use_history = cfg.history if request.use_history is None else request.use_history

        lang = detect_language(request.query)
        warnings: list[str] = []
        resolved = (self.resolve(request.query, request.history, lang, warnings)
                    if use_history else ResolvedQuery(request.query, [], request.query, [], False))
        lemmas = content_terms(resolved.text, lang, self.lemmatizer)
        translated = self.translations(lemmas, lang) if mode != "baseline" else {}
        filters = request_filters(request)
        n = max(cfg.candidates, request.k * request.page * 3)

        if mode == "baseline":
            bm25 = self.baseline_query(request.query, filters)
        else:
            carried_boost = cfg.carried_boost * (1.0 if resolved.follow_up else cfg.hint_share)
            bm25 = (self.bm25_query(resolved.text, lemmas, lang, filters, resolved.carried, carried_boost,
                                    translated) if mode in ("bm25", "hybrid") else None)
        lexical = [bm25] if bm25 else []
        weights = [cfg.bm25_weight] * len(lexical)
        knn: list[dict] = []
        if mode in ("dense", "hybrid"):
            # An English-only embedder also sees the question in its own language, when the lexicon gives one.
            dense_texts = [resolved.dense_text] + [
                " ".join(w for words in by_term.values() for w in words)
                for target, by_term in translated.items() if target == self.settings.embedding.language]
            # The model reads its own language only: a question in another one weighs less as written.
            foreign = lang != self.settings.embedding.language
            for i, vector in enumerate(self.embedder.embed(dense_texts)):
                share = cfg.translation_dense_share if i else (cfg.foreign_dense_share if foreign else 1.0)
                for view in views:
                    knn.append(self.knn_query(view, vector, n, filters))
                    weights.append(getattr(cfg, f"{view}_weight") * share)
        facet_aggs = {name: {"terms": {"field": name, "size": 20}} for name in ("space", "kind", "lang")}
        facets: dict = {}
        if self.server_side(request) and fusion != "merge":  # view merging runs in the application only
            fused, facets = self._search_server_side([*lexical, *knn], weights, n, fusion, facet_aggs)
        else:
            searches = [{"size": n, "_source": _SOURCE_FIELDS, "query": q} for q in (*lexical, *knn)]
            if lexical:
                searches[0]["aggs"] = facet_aggs
            ranked_lists = []
            for response in self._msearch(searches):
                ranked_lists.append(response["hits"]["hits"])
                facets.update(_facets(response))
            fused = fuse(ranked_lists, fusion, cfg.rrf_k, weights)
        # What a first rank in the BM25 list is worth (min-max scores are shares of the summed weights).
        unit = 1.0 / (cfg.rrf_k + 1) if fusion == "rrf" else 1.0 / (sum(weights) or 1.0)
        query_lower = request.query.lower()
        codes = identifiers(resolved.text, lang, self.lemmatizer)
        twins: dict[str, bool] = {}  # by title: the fused list holds many evidence of few pages
        for item in fused:
            src = item["_source"]
            if src["url"] in resolved.prior_urls:
                item["_score_fused"] += cfg.prior_weight * unit
            # Pages written from one template differ in the version or date of their titles: one that names
            # others than the query does is a twin of the page asked for.
            title = src.get("title", "")
            if codes and title not in twins:
                twins[title] = names_a_twin(codes, identifiers(title, "", None))
            if codes and twins[title]:
                item["_score_fused"] -= cfg.twin_penalty * unit
            # Index-aware grounding: a query that names an indexed term gets the term's anchor first.
            term = (src.get("meta") or {}).get("term", "")
            if term and re.search(rf"(?<!\w){re.escape(term.lower())}(?!\w)", query_lower):
                item["_score_fused"] += cfg.term_weight * unit
        fused.sort(key=lambda h: -h["_score_fused"])
        if self.reranker is not None and mode != "baseline":
            self.rerank(resolved.text, fused, fusion)
            fused.sort(key=lambda h: -h["_score_fused"])

        stop = stopwords(lang)
        terms = set(lemmas) | set(resolved.carried) | {w for by_term in translated.values() for words in by_term.values() for w in words} | {
            t for t in (w.lower() for w in _TOKEN.findall(resolved.text)) if t not in stop}
        hits = group_by_page(fused, terms, cfg.page_support) if group == "page" else [
            to_hit(item, item["_score_fused"], terms) for item in fused]
        start = (request.page - 1) * request.k
        took = int((time.perf_counter() - started) * 1000)
        return SearchResponse(query=request.query, hits=hits[start:start + request.k], took_ms=took,
                              total=len(hits), lang=lang, resolved_query=" ".join([resolved.text, *resolved.carried]),
                              facets=facets, translations=translated, warnings=warnings)


def _facets(response: dict) -> dict:
    return {name: {b["key"]: b["doc_count"] for b in agg["buckets"]}
            for name, agg in response.get("aggregations", {}).items()}


def fuse(ranked_lists: list[list[dict]], fusion: str, rrf_k: int, weights: list[float] | None = None) -> list[dict]:
    """Combine the retrievers' ranked lists into one, by evidence id.

    ``rrf``: weighted reciprocal rank fusion, sum of w / (k + rank). ``minmax``: weighted mean of min-max
    normalized scores (as the server-side normalization processor computes it). ``merge``: MC-indexing's
    view merging, the top 2/3 of each list taken in turn, de-duplicated by section.
    """
    weights = weights or [1.0] * len(ranked_lists)
    if fusion == "merge":
        return merge_views(ranked_lists)
    if fusion != "rrf":
        weights = [w / (sum(weights) or 1.0) for w in weights]
    scores: dict[str, float] = {}
    items: dict[str, dict] = {}
    for hits, weight in zip(ranked_lists, weights):
        if not hits:
            continue
        top = max(h["_score"] for h in hits)
        low = min(h["_score"] for h in hits)
        for rank, hit in enumerate(hits, start=1):
            key = hit["_id"]
            items.setdefault(key, hit)
            if fusion == "rrf":
                scores[key] = scores.get(key, 0.0) + weight / (rrf_k + rank)
            else:
                scores[key] = scores.get(key, 0.0) + weight * ((hit["_score"] - low) / (top - low) if top > low else 1.0)
    fused = []
    for key, score in sorted(scores.items(), key=lambda kv: -kv[1]):
        item = items[key]
        item["_score_fused"] = score
        fused.append(item)
    return fused


def merge_views(ranked_lists: list[list[dict]]) -> list[dict]:
    merged: list[dict] = []
    seen: set[str] = set()
    depth = max((len(hits) for hits in ranked_lists), default=0) * 2 // 3
    for rank in range(depth):
        for hits in ranked_lists:
            if rank < len(hits):
                hit = hits[rank]
                key = hit["_source"].get("section_id") or hit["_id"]
                if key not in seen:
                    seen.add(key)
                    merged.append(hit)
    for position, hit in enumerate(merged, start=1):
        hit["_score_fused"] = 1.0 / position
    return merged


def snippet(text: str, terms: set[str], width: int = 240) -> str:
    """A window of the evidence around its first matched term, matched terms in <mark>, HTML-escaped."""
    if not text:
        return ""
    lowered = text.lower()
    wanted = sorted((t for t in terms if len(t) > 2), key=len, reverse=True)
    positions = [lowered.find(t) for t in wanted if t in lowered]
    start = max(0, min(positions) - width // 3) if positions else 0
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


def to_hit(item: dict, score: float, terms: set[str]) -> Hit:
    src = item["_source"]
    return Hit(url=src["url"], title=src.get("title", ""), heading_path=src.get("heading_path", []),
               kind=src.get("kind", ""), snippet=snippet(src.get("text", ""), terms), score=round(score, 6),
               doc_id=src.get("doc_id", ""), evidence_id=src.get("id", item["_id"]), space=src.get("space", ""),
               lang=src.get("lang", ""), breadcrumb=src.get("breadcrumb", []))


def group_by_page(fused: list[dict], terms: set[str], support: tuple[float, ...]) -> list[Hit]:
    """One hit per page: its best evidence scored with a share of its next best ones, the others beneath.

    Beneath the best evidence go up to three others with their own text: whole-page and
    section units repeat their parts, so they are not listed again.
    """
    pages: dict[str, list[dict]] = {}
    for item in fused:
        pages.setdefault(item["_source"]["url"], []).append(item)
    hits = []
    for items in pages.values():
        score = sum(w * it["_score_fused"] for w, it in zip((1.0, *support), items))
        hit = to_hit(items[0], score, terms)
        shown = {hit.snippet}
        for it in items[1:]:
            src = it["_source"]
            if src.get("kind") in (kinds.PAGE, kinds.SECTION) or len(hit.more) == 3:
                continue
            text = snippet(src.get("text", ""), terms, 160)
            if text not in shown:
                shown.add(text)
                hit.more.append({"kind": src.get("kind"), "heading_path": src.get("heading_path", []),
                                 "snippet": text, "score": round(it["_score_fused"], 6)})
        hits.append(hit)
    hits.sort(key=lambda h: -h.score)
    return hits
