"""The k-NN side for a caller barred from the nearest evidence, in the real OpenSearch with the real question
embedder: the ACL applied after the graph search leaves the list short, and the search is asked again with
the ACL inside it, so the caller still gets the nearest evidence they may read, and nothing else."""
from __future__ import annotations

import dataclasses
import math
import random

import pytest

from core.index import init_index, replace_document, to_source
from ingest.evidence import Evidence
from search.retrievers import KNN_OVERSAMPLE
from search.searcher import SearchRequest, Searcher
from tests.conftest import TEST_ALIAS

ALIAS = f"knnacl-{TEST_ALIAS}"  # not under TEST_ALIAS-*: index templates may not overlap
QUERY = "calibrating the salinity probe of a harbour buoy"
WANTED = 10  # results asked for


def near(vector: list[float], spread: float, rng: random.Random) -> list[float]:
    """A unit vector at a distance from ``vector`` that grows with ``spread``."""
    noisy = [x + spread * rng.gauss(0, 1) / math.sqrt(len(vector)) for x in vector]
    norm = math.sqrt(sum(x * x for x in noisy))
    return [x / norm for x in noisy]


@pytest.fixture(scope="module")
def barred(settings, stores, searcher):
    """More restricted evidence right by the question than the oversampled k-NN search asks for, and public
    evidence further away; a searcher on that index."""
    scoped = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=ALIAS))
    init_index(stores, scoped)
    question = searcher.embedder.embed([QUERY])[0]
    rng = random.Random(7)
    restricted = 2 * KNN_OVERSAMPLE * scoped.search.candidates
    for n in range(restricted + WANTED):
        public = n >= restricted
        doc_id = f"knnacl:{'public' if public else 'hr'}:{n}"
        evidence = Evidence(id=doc_id, doc_id=doc_id, kind="passage", url=f"https://wiki.example.com/{doc_id}",
                            title=doc_id, text="buoy maintenance", acl=[] if public else ["hr"])
        vector = near(question, 1.0 if public else 0.1, rng)
        replace_document(stores, scoped, doc_id, [to_source(evidence.to_dict(), {"vec_context": vector})])
    yield Searcher(scoped, stores, searcher.embedder, searcher.lemmatizer, searcher.lexicon)
    stores.indices.delete(index=f"{ALIAS}-*")
    stores.indices.delete_index_template(name=ALIAS)


def test_a_caller_barred_from_the_nearest_evidence_gets_the_nearest_they_may_read(barred):
    found = barred.search(SearchRequest(query=QUERY, mode="dense", group="none", k=WANTED))
    assert len(found.hits) == WANTED
    assert all(":public:" in hit.url for hit in found.hits)


def test_a_reader_of_the_restricted_evidence_gets_it_first(barred):
    found = barred.search(SearchRequest(query=QUERY, mode="dense", group="none", k=WANTED, groups=["hr"]))
    assert len(found.hits) == WANTED
    assert all(":hr:" in hit.url for hit in found.hits)
