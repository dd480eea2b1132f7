"""The Confluence connector (Cloud and Data Center, REST API v1): HTTP only, never Redis or OpenSearch.

``models`` holds the source's settings (``ConfluenceConfig``) and the records a listing returns (``PageRef``,
``ListingPage``, ``AttachmentRef``); ``connector`` holds ``ConfluenceClient`` (CQL listings, content by id
in the JSON shape ``ingest.sources.confluence`` parses, read restrictions, attachments and their download,
user names) and its errors. ``access`` turns restrictions along the page tree into ACLs. The sync that
drives them lives in ``workers``.

May import: ``ingest``, ``text``, ``core``.
"""
