"""Pure ingestion: source documents in, contextualized multi-view evidence out.

Lives here: the evidence model (``evidence``, ``blocks``), the parsers (``sources/``: Confluence storage
format, HTML, PDF), ``markup`` (HTML-like structure to blocks), ``tables`` (verbalized rows),
``chunking``, ``assemble`` (blocks to contextualized evidence), ``views`` (lemma, keyword and summary
views), ``grounding`` (index-term anchors) and ``pipeline`` (a source file to evidence).
Nothing here touches the network, OpenSearch, Redis or Celery. May import: ``text``; nothing else
of this project.
"""
