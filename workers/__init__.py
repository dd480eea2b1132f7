"""The Celery side: the app, the task base class and the ingest task, the folder source, term grounding
at the edge, queueing/following jobs, and the index upkeep beat runs (``maintenance``); ``connectors/``
(the HTTP of live sources) and ``sync/`` (their checkpointed syncs, tasks and registry).

May import: ``ingest``, ``text``, ``core``; never ``search``, ``api`` or ``evident``.
"""
