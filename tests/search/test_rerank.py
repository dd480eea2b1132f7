"""The optional cross-encoder stage, with a real tiny checkpoint built here (nothing is downloadable): the
bundled all-MiniLM-L6-v2 encoder under a freshly seeded one-label classification head."""
from __future__ import annotations

import pytest

from core.embedding import PACKAGED_MODEL, resolve_model_path
from search.rerank import CrossEncoderReranker, load_reranker
from core.settings import RerankConfig

QUERY = "How do I reset my VPN password?"
TEXTS = ["Reset the VPN password in the self-service portal under Security.",
         "The canteen opens at 11:30 on weekdays.",
         "VPN-Passwort zurücksetzen: im Self-Service-Portal unter Sicherheit."]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    source = resolve_model_path(PACKAGED_MODEL)
    target = tmp_path_factory.mktemp("cross-encoder")
    torch.manual_seed(0)
    AutoModelForSequenceClassification.from_pretrained(source, num_labels=1).save_pretrained(target)
    AutoTokenizer.from_pretrained(source).save_pretrained(target)
    return str(target)


def test_scores_each_text_with_the_model(checkpoint):
    from sentence_transformers import CrossEncoder

    scores = CrossEncoderReranker(checkpoint).run(QUERY, TEXTS)
    assert len(scores) == len(TEXTS) and all(isinstance(s, float) for s in scores)
    expected = CrossEncoder(checkpoint).predict([(QUERY, t) for t in TEXTS])
    assert scores == pytest.approx([float(e) for e in expected], abs=1e-5)
    assert len(set(scores)) == len(TEXTS)  # the texts were really scored, not given one constant


def test_no_texts_no_scores(checkpoint):
    assert CrossEncoderReranker(checkpoint).run(QUERY, []) == []


def test_a_missing_model_path_is_named(tmp_path):
    missing = str(tmp_path / "no-such-model")
    with pytest.raises(ValueError, match="no-such-model.*no such directory"):
        CrossEncoderReranker(missing).run(QUERY, TEXTS)


def test_a_directory_that_is_no_model_is_named_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match=f"{tmp_path.name}.*did not load: .+"):
        CrossEncoderReranker(str(tmp_path)).run(QUERY, TEXTS)


def test_off_by_default():
    assert load_reranker(RerankConfig()) is None
    reranker = load_reranker(RerankConfig(model="/models/ce", device="cuda"))
    assert isinstance(reranker, CrossEncoderReranker)
    assert (reranker.model, reranker.device) == ("/models/ce", "cuda")
