"""``Searcher``, the one place both the API and the evaluation command search through.

A request runs as named stages, each a component of this package: ``read_syntax`` (a phrase in quotes required, a
-word excluded: ``syntax``) -> ``Plan.of`` (the request's switches against ``SearchConfig``: ``plan``) ->
``correct_spelling`` (a mistyped word searched beside the close word the corpus holds, a word
run together beside the two it writes, a German compound it lacks beside its parts: ``spelling``) ->
``expand_acronyms`` (an acronym beside the long form the corpus defines and writes out: ``acronyms``) -> ``understand``
(language, follow-up resolution from the conversation, lemmas, translations: ``query``, ``conversation``) ->
``write_bm25`` (the BM25 bodies with the caller's filters, written flat in the tokens of the index's analyzers:
``retrievers``, ``flatten``, ``analysis``) -> ``weigh_shown_pages`` (the earlier pages' prior, by how well the
question's own words find them: ``conversation``) -> ``embed_question`` -> ``build_retrievers`` (BM25 and k-NN
query bodies: ``retrievers``) -> ``retrieve`` (one ``_msearch``, a second for a k-NN list filtered too thin, or
one ``hybrid`` query with a search pipeline when OpenSearch fuses) -> ``fuse`` (min-max, RRF or view merging: ``fusion``) ->
``prioritize`` (pages shown earlier, template twins, index terms, definitions: ``priors``) -> ``rerank``
(optional cross-encoder: ``rerank``) -> ``group`` (by page: ``grouping``) -> ``embed_multilingual`` (the
question's multilingual vector, when the stage after it can change the first page) -> ``match_closest`` (the
best pages' closest sentences to a question read on its own: ``sentences``; then their closest leaf evidence in a
multilingual model, any language: ``multilingual``; both in one ``_msearch``: ``closest``) ->
``collapse_duplicates`` (near-duplicate pages as one result: ``duplicates``) -> ``order`` (the page of results, by
relevance or the matching pages newest first: ``present``, judged by ``judge``: each result's and the answer's
verdict, strong, weak or none, and calibrated confidence: ``verdict``; below a first page that is no good match,
only the pages holding some of the question) -> ``answer`` (the answer
card, the one unit of a strong first page's evidence that answers: ``answer``) -> ``to_hits`` (the page of
results asked for, snippets, facets: ``present``). The caller's ACL filter is inside every retriever, so a
restricted page never reaches the fusion step. A request to ``explain`` has the fusion, the priors and the
reranker book what each adds to each evidence's score as they add it, and the response gives every ranked page's
parts (``SearchResponse.contributions``, for ``evident eval --misses``).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from opensearchpy import OpenSearch
from opensearchpy.exceptions import OpenSearchException, RequestError

from core.embedding import Embedder, for_questions
from core.index import stores_search_fields
from core.multilingual import MultilingualEmbedder
from core.profile import timed_stages
from core.settings import Settings
from search import fusion, multilingual, present
from search.acronyms import AcronymExpander, expanded
from search.analysis import FieldTokens
from search.conversation import (carried_across, carried_bm25, off_the_map, own_word_searches, resolve,
                                 shown_weights)
from search.duplicates import collapse_near_duplicates
from search.flatten import flat_body, texts_to_analyze
from search.grouping import Group, group
from search.lexicon import Lexicon, load_lexicon
from search.plan import Plan
from search.priors import apply_priors
from search.query import Query, ResolvedQuery, content_terms, translations, understand
from search.rerank import Reranker, load_reranker, rerank_candidates
from search.retrievers import (Retriever, baseline_query, bm25_query, cross_lingual_retriever, dense_texts,
                               knn_retrievers, list_names, msearch, request_filters, run_each, run_hybrid,
                               text_fields)
from search.rewrite import QueryRewriter, load_rewriter
from search.answer import CARD_CARRIED_SHARE, answer_card, asked_values, card_evidence_ids
from search.cache import KeptVectors
from search.closest import match_closest, rivals
from search.schema import Answer, Hit, SearchRequest, SearchResponse, Turn
from search.sentences import AskedUnits, applies as sentences_apply
from search.spelling import SpellingCorrector, spelled
from search.syntax import read_syntax
from search.verdict import (NO_RESULT, NONE, Judgement, follows_conversation, judge_all, matching, question_terms,
                            short_lemmas)
from search.vocabulary import CorpusWords
from text.detect import detect_language, known_word
from text.lemmas import Lemmatizer

__all__ = ["Hit", "SearchRequest", "SearchResponse", "Searcher", "Turn"]
log = logging.getLogger(__name__)

# Question texts whose vectors are kept per model (``cache.KeptVectors``): a busy day's distinct questions, at
# about 12 KB a vector of 384 floats, a few MB.
QUESTIONS_KEPT = 1_000
# Pages whose evidence the answer card's sentence query covers, asked before the closest-match gains: the page
# first after them is nearly always one of the two first before them, and each page adds five evidence's sentences.
CARD_PAGES_AHEAD = 2


@dataclass
class Bm25Bodies:
    """The question's BM25 bodies, flat (``flatten``): with the carried terms, to retrieve; its own
    words alone, to weigh the pages shown for earlier turns (None when there are none)."""

    full: dict
    own_words: dict | None


@dataclass
class Retrieved:
    """What OpenSearch answered: a ranked list per retriever, or one list it fused itself."""

    ranked_lists: list[list[dict]]
    fused: bool  # fused inside OpenSearch


# The stages timed into a request's profile (``core.profile``: ``Server-Timing``, ``evident bench --profile``),
# by method, each under the short name of what it does; the rest of a search (grouping, sorting) is the total's.
STAGES = {"correct_spelling": "spelling", "expand_acronyms": "acronyms", "understand": "understand",
          "write_bm25": "bm25", "weigh_shown_pages": "shown_pages", "embed_question": "embed",
          "build_retrievers": "retrievers", "retrieve": "retrieve", "fuse": "fuse", "prioritize": "priors",
          "rerank": "rerank", "match_closest": "closest", "embed_multilingual": "embed_multilingual",
          "collapse_duplicates": "duplicates", "judge": "verdict", "answer": "answer", "to_hits": "present"}


@timed_stages(STAGES)
class Searcher:
    """Configuration-only init; ``warm_up`` loads the models; ``search`` runs one request."""

    def __init__(self, settings: Settings, client: OpenSearch, embedder: Embedder, lemmatizer: Lemmatizer,
                 lexicon: Lexicon | None = None, reranker: Reranker | None = None,
                 rewriter: QueryRewriter | None = None, multilingual_embedder: MultilingualEmbedder | None = None):
        self.settings = settings
        self.client = client
        self.embedder = embedder
        self.question_vectors = KeptVectors(embedder.embed, QUESTIONS_KEPT)
        self.multilingual_embedder = multilingual_embedder
        self.multilingual_vectors = (KeptVectors(lambda texts: [multilingual_embedder.question(t) for t in texts],
                                                 QUESTIONS_KEPT) if multilingual_embedder is not None else None)
        self.lemmatizer = lemmatizer
        self.lexicon = lexicon
        self.reranker = reranker
        self.rewriter = rewriter
        self.corpus_words = (CorpusWords(client, settings.opensearch.index_alias)
                             if lexicon is not None and settings.search.corpus_senses else None)
        self.spelling = (SpellingCorrector(client, settings.opensearch.index_alias,
                                           self.corpus_words or CorpusWords(client, settings.opensearch.index_alias),
                                           lexicon)
                         if settings.search.spelling else None)
        self.acronyms = (AcronymExpander(client, settings.opensearch.index_alias)
                         if settings.search.acronyms else None)
        self.field_tokens = FieldTokens(client, settings.opensearch.index_alias)
        # Whether the alias's indices store the fields a search fetches: asked at the first search.
        self.fields_stored: bool | None = None
        # False once OpenSearch would not analyze for the alias (it had several indices), until the process restarts.
        self.flat_bm25 = True

    @classmethod
    def from_settings(cls, settings: Settings, client: OpenSearch) -> Searcher:
        multilingual_embedder = (MultilingualEmbedder(settings.embedding.threads)
                                 if settings.search.multilingual else None)
        return cls(settings, client, Embedder(for_questions(settings.embedding)), Lemmatizer(),
                   load_lexicon(settings.search.lexicon), load_reranker(settings.rerank), load_rewriter(settings),
                   multilingual_embedder)

    def warm_up(self) -> None:
        """Load the embedder and the lemmatizer now, so the first user does not wait for them."""
        self.embedder.embed(["warm up"])
        if self.multilingual_embedder is not None:
            self.multilingual_embedder.question("warm up")
        content_terms("warm up", "en", self.lemmatizer)
        short_lemmas(["warmed"])  # the verdict reads a page's short words in every language's lemma table
        detect_language("warm up")

    def search(self, request: SearchRequest) -> SearchResponse:
        """The request's question read for its syntax (``read_syntax``: "phrases" required, -words excluded, the
        earlier turns' too), then ``run``. When no evidence holds a required phrase, the question is searched again
        without requiring it, and a warning says so. The answer names the question as typed."""
        started, syntax = time.perf_counter(), read_syntax(request.query)
        history = [replace(turn, query=read_syntax(turn.query).text or turn.query) for turn in request.history]
        if not syntax.asks_more or not syntax.text:  # an earlier turn's -word is not carried as a word it asked
            return self.run(replace(request, history=history))
        searched = replace(request, query=syntax.text, history=history, filters={**request.filters, **syntax.filters()})
        response = self.run(searched)
        if response.total == 0 and syntax.phrases:
            response = self.run(replace(searched, filters={**request.filters, **syntax.filters(phrases=False)}))
            response.warnings.append(syntax.unheld())
        response.query, response.took_ms = request.query, int((time.perf_counter() - started) * 1000)
        return response

    def run(self, request: SearchRequest) -> SearchResponse:
        """The named stages, on a question read for its syntax (``search``)."""
        started = time.perf_counter()
        plan = Plan.of(request, self.settings)
        corrections, spelling_warnings = self.correct_spelling(request, plan)
        expansions, acronym_warnings = self.expand_acronyms(request, plan)
        asked = expanded(spelled(request.query, corrections), expansions)
        query, warnings = self.understand(request, plan, asked, corrections)
        warnings = spelling_warnings + acronym_warnings + warnings
        bm25 = self.write_bm25(request, plan, query)
        query = self.weigh_shown_pages(query, bm25)
        vectors = self.embed_question(plan, query)
        retrievers = self.build_retrievers(request, plan, query, bm25, vectors)
        retrieved = self.retrieve(plan, retrievers, request.explain)
        fused = self.fuse(plan, retrievers, retrieved, request.explain)
        fused = self.prioritize(plan, query, retrievers, fused)
        fused = self.rerank(plan, query, fused)
        groups = group(fused, plan.group, self.settings.search.page_support)
        groups, card_units = self.match_closest(request, plan, query, retrievers, vectors,
                                                self.embed_multilingual(request, plan, query, retrievers, groups),
                                                groups)
        groups = self.collapse_duplicates(request, plan, groups)
        ranked, first, shown, judgements = self.order(request, query, retrieved,
                                                      sorted(groups, key=lambda found: -found.score))
        hits = self.to_hits(query, shown)
        for hit, judgement in zip(hits, judgements):
            hit.verdict, hit.confidence = judgement.verdict, judgement.confidence
        return SearchResponse(query=request.query, hits=hits, verdict=first.verdict, confidence=first.confidence,
                              signal=first.signal, follow_up=follows_conversation(query),
                              new_topic=query.resolved.new_topic,
                              answer=self.answer(query, ranked[:1], first, vectors, card_units),
                              took_ms=int((time.perf_counter() - started) * 1000), total=len(ranked),
                              lang=query.lang,
                              resolved_query=" ".join([query.resolved.text, *query.resolved.carried]),
                              facets=present.facet_counts(ranked), space_names=present.space_names(ranked),
                              translations=query.translated,
                              spelling=corrections, acronyms=expansions, warnings=warnings,
                              contributions=self.explain(groups) if request.explain else {})

    # -- stages ---------------------------------------------------------------------------------
    def correct_spelling(self, request: SearchRequest, plan: Plan) -> tuple[dict[str, str], list[str]]:
        """The question's typos and absent compounds, and the words searched beside each (``spelling``; none for
        the baseline), with a warning when OpenSearch would not answer the check: the question is then searched
        as typed."""
        if self.spelling is None or plan.mode == "baseline":
            return {}, []
        try:
            return self.spelling.run(request.query, detect_language(request.query), request.groups,
                                     self.lemmatizer), []
        except OpenSearchException as exc:
            log.warning("spelling check failed: %s", exc)
            return {}, [f"spelling check failed ({type(exc).__name__}); searched as typed"]

    def expand_acronyms(self, request: SearchRequest, plan: Plan) -> tuple[dict[str, str], list[str]]:
        """The question's acronyms and the long forms searched beside them (``acronyms``; none for the baseline),
        with a warning when OpenSearch would not answer the lookup: the acronyms are then searched as typed."""
        if self.acronyms is None or plan.mode == "baseline":
            return {}, []
        try:
            return self.acronyms.run(request.query, request.groups), []
        except (OpenSearchException, RuntimeError) as exc:
            log.warning("acronym lookup failed: %s", exc)
            return {}, [f"acronym lookup failed ({type(exc).__name__}); acronyms searched as typed"]

    def understand(self, request: SearchRequest, plan: Plan, asked: str,
                   corrections: dict[str, str] | None = None) -> tuple[Query, list[str]]:
        """The question's language, its reading with the conversation (``conversation``), its content terms and their
        translations (none for the baseline), the carried terms' translations too; with the warnings of an
        optional step that failed. ``asked``: the question with its spelling ``corrections`` (which it keeps)."""
        lang = detect_language(request.query)
        resolved, warnings = (resolve(asked, request.history, lang, self.lemmatizer, self.rewriter)
                              if plan.use_history else (ResolvedQuery.standalone(asked), []))
        lexicon = self.lexicon if plan.mode != "baseline" else None
        present = None
        if self.corpus_words is not None:
            corpus_words = self.corpus_words
            present = (lambda words, target: corpus_words.present(words, target, request.groups))
        if resolved.carried and present is not None and self.matches_nothing(asked, lang, present):
            resolved = replace(ResolvedQuery.standalone(asked), new_topic=True)
        if resolved.carried:
            carried = translations(lexicon, list(resolved.carried), lang, present, neighbours=False)
            resolved = replace(resolved, carried=carried_across(resolved.carried, carried,
                                                                self.settings.search.translation_boost))
        return understand(asked, lang, resolved, self.lemmatizer, lexicon, present, corrections), warnings

    def matches_nothing(self, asked: str, lang: str, present: Callable[[list[str], str], set[str]]) -> bool:
        """Whether a follow-up's own words match nothing, so it is read on its own (``conversation.off_the_map``);
        when OpenSearch does not answer, it keeps its conversation."""
        def corpus_holds(words: list[str]) -> set[str]:
            try:
                return present(words, lang)
            except OpenSearchException as exc:
                log.warning("conversation: corpus word check failed: %s", exc)
                return set(words)
        return off_the_map(content_terms(asked, lang, self.lemmatizer), corpus_holds, lambda word: known_word(word)
                           or (self.lexicon is not None and self.lexicon.knows(word)))

    def write_bm25(self, request: SearchRequest, plan: Plan, query: Query) -> Bm25Bodies | None:
        """The question's BM25 bodies (none for the baseline or a dense search): its own words and the terms
        carried from earlier turns (``conversation.carried_bm25``), and its own words alone when pages were
        shown for earlier turns; each body written flat in the tokens of the index's analyzers, or as it is
        when OpenSearch cannot analyze for the alias (an alias over several indices)."""
        if plan.mode not in ("bm25", "hybrid"):
            return None
        cfg = self.settings.search
        filters = request_filters(request.groups, request.filters)
        own = replace(query, resolved=replace(query.resolved, carried={}))
        full = bm25_query(own, filters, cfg, self.lemmatizer, request.explain)
        if query.resolved.carried:
            full = carried_bm25(full, query.resolved.carried, cfg.carried_boost,
                                [*text_fields(query.lang), "lemmas"], request.explain)
        bodies = [full] + ([bm25_query(own, filters, cfg, self.lemmatizer)] if query.resolved.prior_urls else [])
        if self.flat_bm25:
            try:
                analysis = self.field_tokens.analysis(texts_to_analyze(*bodies))
                bodies = [flat_body(body, analysis) for body in bodies]
            except RequestError as exc:  # an alias over several indices: an analysis takes one index
                self.flat_bm25 = False
                log.warning("BM25 is sent as written, not flat (slower, same ranking): %s", exc.error)
        return Bm25Bodies(bodies[0], bodies[1] if len(bodies) > 1 else None)

    def weigh_shown_pages(self, query: Query, bm25: Bm25Bodies | None) -> Query:
        """The pages shown before, each prior scaled by how well the question's own words (BM25, without the
        carried terms) match the page against the best page they match (``conversation.shown_weights``): a
        question whose own words lead elsewhere has left the page; one that matches nothing keeps none."""
        prior = query.resolved.prior_urls
        if not prior or bm25 is None or bm25.own_words is None:
            return query
        best, shown = msearch(self.client, self.settings.opensearch.index_alias,
                              own_word_searches(bm25.own_words, prior))
        weights = shown_weights(prior, best["hits"]["max_score"], shown["aggregations"]["pages"]["buckets"])
        return replace(query, resolved=replace(query.resolved, prior_urls=weights))

    def embed_question(self, plan: Plan, query: Query) -> list[list[float]]:
        """The question's vectors (none for a search without k-NN): the question as read, then its translation
        into the embedder's language when there is one (``retrievers.dense_texts``), each embedded once per text
        (``cache.KeptVectors``)."""
        if plan.mode not in ("dense", "hybrid"):
            return []
        return self.question_vectors.of(dense_texts(query, self.settings.embedding.language))

    def build_retrievers(self, request: SearchRequest, plan: Plan, query: Query, bm25: Bm25Bodies | None,
                         vectors: list[list[float]]) -> list[Retriever]:
        """The BM25 retriever (or the baseline's) first, then a k-NN retriever per embedded text and view."""
        cfg = self.settings.search
        filters = request_filters(request.groups, request.filters)
        if plan.mode == "baseline":
            return [Retriever(baseline_query(request.query, filters), fusion.BM25_WEIGHT, lexical=True)]
        out = []
        if bm25 is not None:
            out.append(Retriever(bm25.full, fusion.BM25_WEIGHT, lexical=True))
        if vectors:
            # The ACL alone admits most evidence and is cheaper after the search; a facet or date filter
            # may admit few, and the server-side fusion has no second ask: inside the search then.
            filter_after = len(filters) == 1 and not plan.server_side
            foreign = query.lang != self.settings.embedding.language
            out += knn_retrievers(vectors, foreign, plan.views, plan.depth, filters, cfg, filter_after)
            if foreign and self.multilingual_vectors is not None:
                vector, = self.multilingual_vectors.of([query.resolved.dense_text])
                out.append(cross_lingual_retriever(vector, plan.depth, filters, cfg.dense_weight,
                                                   filter_after))
        return out

    def retrieve(self, plan: Plan, retrievers: list[Retriever], explain: bool = False) -> Retrieved:
        """Run the retrievers: one ``_msearch`` (and one more for the k-NN lists that their filters, applied
        after the search, left shorter than asked), or one ``hybrid`` query whose pipeline fuses them. To
        ``explain``, BM25 is asked apart with its readings' and carried terms' scores."""
        index = self.settings.opensearch.index_alias
        if self.fields_stored is None:
            self.fields_stored = stores_search_fields(self.client, index)
        if plan.server_side:
            processor = fusion.pipeline_processor(plan.fusion, [r.weight for r in retrievers],
                                                  self.settings.search.rrf_k)
            response = run_hybrid(self.client, index, retrievers, plan.depth, processor, self.fields_stored)
            return Retrieved([response["hits"]["hits"]], fused=True)
        ranked = [r["hits"]["hits"] for r in run_each(self.client, index, retrievers, plan.depth, explain,
                                                      self.fields_stored)]
        short = [i for i, (r, hits) in enumerate(zip(retrievers, ranked)) if r.fallback and len(hits) < plan.depth]
        if short:  # filtered after the search, too few were left: asked again with the filters inside
            again = run_each(self.client, index, [replace(retrievers[i], body=retrievers[i].fallback) for i in short],
                             plan.depth, stored=self.fields_stored)
            for i, response in zip(short, again):
                ranked[i] = response["hits"]["hits"]
        return Retrieved(ranked, fused=False)

    def fuse(self, plan: Plan, retrievers: list[Retriever], retrieved: Retrieved, explain: bool) -> list[dict]:
        """One list of evidence, best first, each with its ``_score_fused`` (and, to ``explain``, its
        ``_parts`` by ranked list: ``retrievers.list_names``)."""
        if retrieved.fused:
            fused = fusion.fused_by_opensearch(retrieved.ranked_lists[0])
            return fusion.whole_parts(fused, "fused_in_opensearch") if explain else fused
        return fusion.fuse(retrieved.ranked_lists, plan.fusion, self.settings.search.rrf_k,
                           [r.weight for r in retrievers],
                           list_names(retrievers, plan.mode, plan.views) if explain else None,
                           window=self.settings.search.candidates)

    def prioritize(self, plan: Plan, query: Query, retrievers: list[Retriever], fused: list[dict]) -> list[dict]:
        """The priors added in units of what a first rank of a weight-1 retriever is worth, best first."""
        unit = fusion.rank_one_unit(plan.fusion, [r.weight for r in retrievers], self.settings.search.rrf_k)
        return apply_priors(fused, query, self.lemmatizer, unit, self.settings.search)

    def rerank(self, plan: Plan, query: Query, fused: list[dict]) -> list[dict]:
        """The configured cross-encoder's ranking joined with the fusion (not for the baseline)."""
        if self.reranker is None or plan.mode == "baseline":
            return fused
        before = {id(item): item["_score_fused"] for item in fused}
        reranked = rerank_candidates(self.reranker, query.resolved.text, fused, plan.fusion,
                                     self.settings.search.candidates, self.settings.search.rrf_k)
        for item in reranked:
            added = item["_score_fused"] - before[id(item)]
            if added and "_parts" in item:
                fusion.add_part(item, "rerank", added)
        return reranked

    def match_closest(self, request: SearchRequest, plan: Plan, query: Query, retrievers: list[Retriever],
                      vectors: list[list[float]], multilingual_vector: list[float] | None,
                      groups: list[Group]) -> tuple[list[Group], AskedUnits | None]:
        """The best pages lifted by their closest sentence, then their closest leaf evidence in the multilingual
        model (``closest``); pages only: the stages compare pages. The answer card's sentence closeness for the
        evidence of the ``CARD_PAGES_AHEAD`` best pages rides along."""
        if plan.group != "page":
            return groups, None
        unit = fusion.rank_one_unit(plan.fusion, [r.weight for r in retrievers], self.settings.search.rrf_k)
        ahead = sorted(groups, key=lambda found: -found.score)[:CARD_PAGES_AHEAD]
        return match_closest(self.client, self.settings, query, request_filters(request.groups, request.filters),
                             unit, vectors, multilingual_vector, groups, request.explain,
                             [evidence_id for found in ahead for evidence_id in card_evidence_ids(found)],
                             request.k)

    def embed_multilingual(self, request: SearchRequest, plan: Plan, query: Query, retrievers: list[Retriever],
                           groups: list[Group]) -> list[float] | None:
        """The question's vector in the multilingual model when the multilingual stage reads it (pages searched
        with vectors, a question read on its own) and can change the first page: a vector embedded already (the
        cross-lingual list's, or the same question earlier) always, a new one only when no page leads the rest by
        more than the closest stages can add (``multilingual.settled``, over its ``rivals``: not its copies). The
        embedding is the costliest CPU of a search (15-20 ms of a core, against 3 for MiniLM's), so a search whose
        first page the stage cannot move does not pay it."""
        if (self.multilingual_vectors is None or plan.group != "page" or plan.mode not in ("dense", "hybrid")
                or not multilingual.applies(query.resolved.follow_up)):
            return None
        if (kept := self.multilingual_vectors.kept(query.resolved.text)) is not None:
            return kept
        cfg = self.settings.search
        unit = fusion.rank_one_unit(plan.fusion, [r.weight for r in retrievers], cfg.rrf_k)
        stages = 1 + sentences_apply(query.resolved.follow_up, query.lang, self.settings.embedding.language)
        reach = stages * cfg.sentence_weight  # each closest-match stage lifts a page by up to sentence_weight
        ranked = sorted(groups, key=lambda found: -found.score)
        others = rivals(ranked, cfg.near_duplicate_bits if self.collapses(request) else None)
        if multilingual.settled([found.score for found in ranked[:1] + others], reach * unit):
            return None
        return self.multilingual_vectors.of([query.resolved.text])[0]

    def collapse_duplicates(self, request: SearchRequest, plan: Plan, groups: list[Group]) -> list[Group]:
        """Near-duplicate pages folded into one result, the canonical page first (``duplicates``); pages only,
        and not when the request or ``collapse_duplicates`` turns it off."""
        if not self.collapses(request) or plan.group != "page":
            return groups
        return collapse_near_duplicates(groups, self.settings.search.near_duplicate_bits)

    def collapses(self, request: SearchRequest) -> bool:
        """Whether near-duplicate pages are folded into one result: the request's switch, else the setting's."""
        wanted = request.collapse_duplicates
        return self.settings.search.collapse_duplicates if wanted is None else wanted

    def order(self, request: SearchRequest, query: Query, retrieved: Retrieved,
              ranked: list[Group]) -> tuple[list[Group], Judgement, list[Group], list[Judgement]]:
        """The pages listed, the answer's judgement (its best match's), and the page of results asked in the order
        asked with each one's judgement (``judge``): ``ranked``, or newest first among the pages whose verdict is not
        ``none``, the others after them (``present.newest_first``). Newest first judges every ranked page once, the
        order and the verdicts shown alike; by relevance, only the page of results is judged. Below a first page
        that is no good match, only the pages holding some of the question in any form are listed (``matching``),
        maybe none: the others neighbour its vector alone ("xyzzyplugh")."""
        newest = request.sort == "updated"
        judged = ranked if newest else present.page_of(ranked, request.k, request.page)
        first, judgements = self.judge(query, retrieved, ranked[:1], judged, request.groups)
        if first.verdict == NONE and len(kept := matching(ranked, question_terms(query))) < len(ranked):
            return self.order(request, query, retrieved, kept)  # once: every page kept holds some of it
        if not newest:
            return ranked, first, judged, judgements
        judgement_of = {id(found): judgement for found, judgement in zip(ranked, judgements)}
        listed = present.newest_first(ranked, [judgement.verdict != NONE for judgement in judgements])
        shown = present.page_of(listed, request.k, request.page)
        return ranked, first, shown, [judgement_of[id(found)] for found in shown]

    def judge(self, query: Query, retrieved: Retrieved, first: list[Group], shown: list[Group],
              principals: list[str]) -> tuple[Judgement, list[Judgement]]:
        """The answer's verdict and confidence (its first result's; ``none`` without one) and each shown result's,
        from how much of the question each page's evidence holds, its own words that the corpus (as ``principals``
        may read it) writes nowhere weighing more, and how the ranked lists agree (``verdict``)."""
        corpus_words = self.corpus_words

        def corpus_holds(terms: list[str]) -> set[str]:  # every word held when OpenSearch does not answer
            try:
                return corpus_words.present(terms, query.lang, principals) if corpus_words else set(terms)
            except OpenSearchException as exc:
                log.warning("verdict: corpus word check failed: %s", exc)
                return set(terms)
        judged = judge_all([*first, *shown], query, retrieved.ranked_lists, corpus_holds)
        return (judged[0] if first else NO_RESULT), judged[len(first):]

    def answer(self, query: Query, first: list[Group], judgement: Judgement, vectors: list[list[float]],
               card_units: AskedUnits | None) -> Answer | None:
        """The answer card of a strong first result, its units read with the question's vector (``answer``): from
        ``card_units`` when ``match_closest`` asked for its evidence, else in a round trip of its own."""
        return answer_card(first[0] if first else None, judgement, question_terms(query, CARD_CARRIED_SHARE),
                           self.settings.ingest.files_base_url, vectors[0] if vectors else None,
                           lambda body: self.client.search(index=self.settings.opensearch.index_alias, body=body),
                           card_units, asked_values(query.asked), query.lang)

    def to_hits(self, query: Query, groups: list[Group]) -> list[Hit]:
        """The hits of the page of results asked for, best first, from the evidence grouped by page (or not), snippets
        marked with the query's terms; only that page is made into hits: a search finds many more pages."""
        return present.hits(groups, present.highlight_terms(query), self.settings.ingest.files_base_url)

    def explain(self, groups: list[Group]) -> dict[str, dict[str, float]]:
        """Each ranked page's URL -> what each ranked list and prior added to its score (its best group's)."""
        out: dict[str, dict[str, float]] = {}
        for found in groups:
            out.setdefault(found.items[0]["_source"]["url"],
                           fusion.page_parts(found.items, self.settings.search.page_support))
        return out

