"""Ingest embeds the views search reads, and those ``embedding.extra_views`` asks for: no more (the embedder's
time is most of an ingest's), and no searched one missing."""
from __future__ import annotations

from core.embedding import Embedder
from core.index import SENTENCE_FIELD, VECTOR_FIELDS
from core.settings import load_settings
from ingest.evidence import Evidence
from workers.tasks import SENTENCE_VIEW, embed_views, embedded_views


def _evidence(summary: str) -> Evidence:
    return Evidence(id="e", doc_id="d", kind="passage", url="https://wiki.example.org/p", title="Buoys",
                    text="Reset the buoy sensor.", context="Buoys > Reset the buoy sensor.", summary=summary,
                    keywords=["buoy", "sensor"])


def test_only_the_searched_views_are_embedded_unless_asked():
    settings = load_settings(environ={})
    assert embedded_views(settings) == ("context", SENTENCE_VIEW)  # the views searched, and the sentence stage's
    asked = load_settings(environ={"EVIDENT_SEARCH_VIEWS": "context,keywords", "EVIDENT_EMBEDDING_EXTRA_VIEWS": "summary"})
    assert embedded_views(asked) == ("context", "keywords", SENTENCE_VIEW, "summary")
    off = load_settings(environ={"EVIDENT_SEARCH_SENTENCE_WEIGHT": "0"})
    assert embedded_views(off) == ("context",)  # the sentence stage off: its view is not worth embedding


def test_each_evidence_gets_a_vector_of_each_view_it_has():
    settings = load_settings(environ={})
    items = [_evidence("How to reset a buoy sensor."), _evidence("")]
    vectors = embed_views(Embedder(settings.embedding), items, ("context", "summary"))
    assert set(vectors[0]) == {VECTOR_FIELDS["context"], VECTOR_FIELDS["summary"]}
    assert set(vectors[1]) == {VECTOR_FIELDS["context"]}  # no summary, no summary vector
    assert vectors[0][VECTOR_FIELDS["context"]] == vectors[1][VECTOR_FIELDS["context"]]  # same text, same vector
    assert vectors[0][VECTOR_FIELDS["summary"]] != vectors[0][VECTOR_FIELDS["context"]]
    assert all(len(v) == settings.embedding.dimension for item in vectors for v in item.values())


def test_each_sentence_of_an_evidence_gets_its_own_vector_beside_its_text():
    settings = load_settings(environ={})
    item = _evidence("")
    item.sentences = ["Buoys: Reset the buoy sensor first.", "Buoys: Then call the harbour office."]
    vectors, = embed_views(Embedder(settings.embedding), [item], ("context", SENTENCE_VIEW))
    nested = vectors[SENTENCE_FIELD]
    assert [s["text"] for s in nested] == item.sentences
    assert nested[0]["vec"] != nested[1]["vec"] and all(len(s["vec"]) == settings.embedding.dimension for s in nested)


def test_each_leaf_evidence_and_no_container_gets_a_multilingual_vector_up_to_the_documents_limit():
    from core.index import MULTILINGUAL_FIELD
    from core.multilingual import MultilingualEmbedder
    from workers.tasks import embed_multilingual

    leaf, section, later_leaf = _evidence(""), _evidence(""), _evidence("")
    leaf.sentences = later_leaf.sentences = ["Buoys: Reset the buoy sensor."]  # a container has no sentence view
    vectors = [{}, {}, {}]
    assert embed_multilingual(MultilingualEmbedder(), [leaf, section], vectors[:2], 2, "buoys.html") == []
    assert set(vectors[0]) == {MULTILINGUAL_FIELD} and len(vectors[0][MULTILINGUAL_FIELD]) == 384
    assert vectors[1] == {}
    vectors = [{}, {}, {}]
    (warning,) = embed_multilingual(MultilingualEmbedder(), [leaf, section, later_leaf], vectors, 1, "buoys.html")
    assert MULTILINGUAL_FIELD in vectors[0] and vectors[2] == {}  # the document's first leaves in reading order
    assert warning.startswith("buoys.html: the document has 2 leaf evidence, over the limit of 1")
    assert "EVIDENT_INGEST_MAX_MULTILINGUAL_LEAVES_PER_DOCUMENT" in warning and "the last 1 were left out" in warning
