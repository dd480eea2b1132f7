"""Pure ingestion: source documents in, contextualized multi-view evidence out.

Nothing in this package touches the network, OpenSearch or Celery.
"""
