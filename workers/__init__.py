"""The Celery side: the app, the task base class and the ingest task, the folder source, term grounding
at the edge, and queueing/following jobs; ``connectors/`` (the HTTP of live sources) and ``sync/`` (their
checkpointed syncs, tasks and registry).

May import: ``ingest``, ``text``, ``core``; never ``search``, ``api`` or ``evident``.
"""
