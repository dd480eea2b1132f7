"""The Celery side: the app, the task base class and the ingest task, the folder source, term grounding
at the edge, and queueing/following jobs.

May import: ``ingest``, ``text``, ``core``; never ``search``, ``api`` or ``evident``.
"""
