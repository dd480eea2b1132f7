"""Core: the one settings object and the adapters every upper floor shares.

Lives here: ``settings`` (defaults, ``evident.toml``, ``EVIDENT_*`` environment), ``index`` (the
OpenSearch edge: templates, alias, pipelines, bulk writes, reindex), ``jobs`` (the Redis edge:
job records, errors, fingerprints, keyword statistics), ``sources`` (the Redis edge of live sources:
registrations, checkpoints, locks), ``searchlog`` (the search log and its clicks,
written in the background), and the models: ``embedding``
(sentence-transformers), ``multilingual`` (multilingual-e5-small, packaged with its engine) and ``llm`` (one
OpenAI-compatible chat call); ``urls`` (pure: which URLs may be result links, and credentials redacted from
every text shown, logged or recorded).
Only this package talks to OpenSearch and Redis. May import: ``ingest`` (the evidence model and its
config), ``text``, ``mappings``; never ``search``, ``workers``, ``api`` or ``evident``.
"""
