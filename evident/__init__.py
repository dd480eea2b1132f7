"""Evident's top floor: the ``evident`` command (``cli``), evaluation (``evaluation``) and the local
stack (``stack/``).

The only package that may import every other one: ``api``, ``workers``, ``search``, ``core``,
``ingest``, ``text``, ``mappings``.
"""
