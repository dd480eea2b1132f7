"""The Celery side: the app, the task base class and the ingest task, the folder source and the gate every read
of one of its files goes through (``path_gate``), term grounding at the edge, queueing/following jobs, the
key phrases chosen again at a job's end (``keywords``) and the index upkeep beat runs (``maintenance``); ``connectors/`` (the HTTP of live sources) and ``sync/`` (their
checkpointed syncs, tasks and registry).

May import: ``ingest``, ``text``, ``core``; never ``search``, ``api`` or ``evident``.
"""
