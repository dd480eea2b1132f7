"""Evident: contextualized, multi-view evidence search for an intranet, on OpenSearch."""
