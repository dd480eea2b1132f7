"""Live-source syncs: what keeps the index following a Confluence or a web site.

``run`` (the part every sync shares: lock, counts, errors, one document through the pipeline),
``confluence`` and ``site`` (each kind's sync, checkpointed in Redis through ``core.sources``), ``tasks``
(the Celery tasks: one source's sync, and the beat task that starts the syncs that are due). The
connectors in ``workers.connectors`` do the HTTP; nothing here speaks HTTP itself.

May import: ``ingest``, ``text``, ``core``, and the ``workers`` modules it builds on (tasks, connectors).
"""
