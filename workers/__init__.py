"""The Celery side: the app, the ingest tasks, and the job records admins watch."""
