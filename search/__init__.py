"""Search: a question in, ranked pages out; the one path both the API and ``evident eval`` call.

Lives here, by role: ``searcher`` (``Searcher``: the request as a short list of named stages), ``schema``
(request, turn, hit, response) and ``plan`` (a request's switches against the settings); understanding: ``syntax``
(a search box's "phrases" and -words), ``query`` (language, lemmas, content terms, named codes,
translation readings through ``lexicon``, in the senses the corpus holds: ``vocabulary``), ``spelling``
(a mistyped word searched beside the close word the corpus holds), ``acronyms`` (an acronym searched beside
the long form the corpus defines for it) and
``conversation`` (follow-up resolution, ``rewrite`` by an LLM); ``retrievers`` (BM25, k-NN and baseline
query bodies, the ACL and request filters, running them); ``flatten`` (BM25 written as one flat disjunction of
term queries) in the tokens of the index's analyzers (``analysis``); ``cache`` (what those stages learned of the
index, kept a while); ``fusion`` (min-max, RRF and view-merging
joiners); ``priors`` (follow-up page, template twins, index-term anchors, acronym definitions); ``rerank``
(optional cross-encoder); ``grouping`` (by page); ``sentences`` and ``multilingual`` (the best pages lifted by their
closest sentence, and their closest leaf evidence in a multilingual model, asked together by ``closest``);
``duplicates`` (near-duplicate
pages folded into one result);
``present`` (snippets, hits, facets, the order asked, paging); ``suggest`` (pages by title as the box is typed in,
beside the search path).
May import: ``core``, ``text``, ``ingest.evidence`` (evidence kinds); never ``workers``, ``api`` or
``evident``.
"""
