"""Connectors: what reads a live source over the network and hands its documents to ``ingest`` as bytes.

One sub-package per source kind (``confluence``, ``site``), each with the same file roles: ``models`` (the
source's settings and the records its listings return), ``connector`` (the client: listings, fetches,
downloads), ``access`` where the source has permissions. ``http`` is the one HTTP session they share.
Nothing here writes to OpenSearch or Redis: ``workers.sync`` does, with what a connector returned.

May import: ``ingest``, ``text``, ``core``.
"""
