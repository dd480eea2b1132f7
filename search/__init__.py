"""Search: a question in, ranked pages out; the one path both the API and ``evident eval`` call.

Lives here: ``searcher`` (``Searcher``: the request as a short list of named stages), query
understanding (language, lemmas, translation readings through ``lexicon``), the conversation
(follow-up handling, ``rewrite`` by an LLM), the retrievers (BM25 and k-NN query bodies), fusion
(min-max and RRF joiners), grouping by page, ``rerank`` (optional cross-encoder), snippets and facets.
May import: ``core``, ``text``, ``ingest.evidence`` (evidence kinds); never ``workers``, ``api`` or
``evident``.
"""
