"""The local stack behind ``evident services``: fetch, verify and configure OpenSearch and its plugins,
and run OpenSearch, Redis, the worker and the API.

May import: ``core`` (settings); it is called only by the CLI.
"""
