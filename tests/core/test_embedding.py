"""The embedder: the packaged local model, unit vectors of the configured size, and the torch threads the
settings give it (one by default: on shared cores two threads made a query ten times slower)."""
from __future__ import annotations

import math

import pytest

from core.embedding import Embedder
from core.settings import load_settings


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(load_settings(environ={}).embedding)


def test_vectors_are_unit_length_of_the_configured_size(embedder):
    vectors = embedder.embed(["reset the buoy sensor", "vacation policy"])
    assert [len(v) for v in vectors] == [embedder.config.dimension] * 2
    assert all(math.isclose(math.fsum(x * x for x in v), 1.0, rel_tol=1e-4) for v in vectors)
    assert embedder.embed([]) == []


def test_a_text_embeds_the_same_alone_and_in_a_batch(embedder):
    alone = embedder.embed(["reset the buoy sensor"])[0]
    batched = embedder.embed(["vacation policy", "reset the buoy sensor", "a much longer text " * 20])[1]
    assert math.fsum(a * b for a, b in zip(alone, batched)) > 0.999


def test_the_configured_threads_are_what_torch_uses(embedder):
    import torch

    embedder.embed(["load"])
    assert torch.get_num_threads() == embedder.config.threads == 1
