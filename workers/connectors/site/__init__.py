"""The intranet web site connector: a polite crawler of one site that tells the sync what changed.

``models`` holds the source's settings (``SiteConfig``), what is remembered of each URL between syncs
(``PageState``) and the events a crawl yields (``Fetched``, ``Unchanged``, ``Gone``, ``Failed``,
``Skipped``); ``connector`` holds ``SiteCrawler``: breadth-first from the start page and the sitemaps,
same scheme and host only, robots.txt respected, conditional GETs for the pages it already knows.
It is I/O over HTTP only: nothing here writes to OpenSearch or Redis (``workers.sync`` does, with
the events), and nothing here parses a page into evidence (``ingest`` does, with ``Fetched.data``).

May import: ``ingest``, ``text``, ``core``.
"""
