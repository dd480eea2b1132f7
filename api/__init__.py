"""The Flask API: the app factory, the search blueprint (``/api/search``, ``/api/health``, the search
page) and the admin blueprint (``/api/ingest/*``).

May import: ``search``, ``core``, ``workers.app`` (the Celery app, for worker health);
never ``evident``.
"""
