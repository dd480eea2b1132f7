"""The optional LLM summary view, against an OpenAI-compatible endpoint served on loopback by the test
(no LLM runs on this machine), through the real pipeline: parse, embed, write to OpenSearch."""
from __future__ import annotations

import dataclasses

from workers.folder import CorpusFile
from tests.conftest import SAMPLES

RUNBOOK = SAMPLES / "wiki" / "pages" / "4456482.json"


def _context(settings, **llm):
    from workers.tasks import PipelineContext

    return PipelineContext(dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, **llm)))


def _summaries(stores, settings, doc_id):
    stores.indices.refresh(index=settings.opensearch.index_alias)
    hits = stores.search(index=settings.opensearch.index_alias, body={
        "size": 500, "query": {"term": {"doc_id": doc_id}}, "_source": ["summary"]})["hits"]["hits"]
    return [h["_source"]["summary"] for h in hits if h["_source"]["summary"]]


def test_configured_endpoint_writes_the_summary_view(stores, settings, endpoint):
    from workers.tasks import index_file

    url, requests, answer = endpoint
    answer["content"] = "Summary: LLM-WRITTEN SUMMARY"
    result = index_file(_context(settings, base_url=url, model="tiny", api_key="k"),
                        CorpusFile(RUNBOOK, "llm/4456482.json"), force=True)
    assert result["outcome"] == "done" and not result["warnings"]
    assert requests and requests[0]["path"] == "/v1/chat/completions" and requests[0]["auth"] == "Bearer k"
    assert requests[0]["body"]["model"] == "tiny"
    summaries = _summaries(stores, settings, result["doc_id"])
    assert summaries and set(summaries) == {"LLM-WRITTEN SUMMARY"}


def test_unreachable_endpoint_keeps_the_extractive_summary_and_says_so(stores, settings):
    from workers.tasks import index_file

    result = index_file(_context(settings, base_url="http://127.0.0.1:9", model="tiny", timeout=5),
                        CorpusFile(RUNBOOK, "llm/4456482.json"), force=True)
    assert result["outcome"] == "done"
    assert len(result["warnings"]) == 1 and "kept the extractive summary" in result["warnings"][0]
    summaries = _summaries(stores, settings, result["doc_id"])
    assert summaries and "LLM-WRITTEN SUMMARY" not in summaries
