"""Pure ingestion: source documents in, contextualized multi-view evidence out.

Lives here: the evidence model (``evidence``, ``blocks``), the parsers (``sources/``: Confluence storage
format, HTML, PDF with its ``pdf_layout``, ``pdf_structure``, ``pdf_tables`` and ``pdf_ocr``), ``markup``
(HTML-like structure to blocks), ``tables`` (verbalized tables and rows), ``chunking``, ``assemble``
(blocks to contextualized evidence), ``views`` (keyword and summary views), ``index_records`` and
``grounding`` (index-term anchors), ``principals`` (the groups and users a read restriction names),
``charset`` and ``strict_json`` (bytes to text and JSON, every guess said, every refusal a sentence) and
``pipeline`` (a source file to evidence). Language, lemmas, stop words, sentences and dates come from ``text``.
Nothing here touches the network, OpenSearch, Redis or Celery. May import: ``text``; nothing else
of this project.
"""
