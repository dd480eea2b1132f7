"""An optional reranking stage: a cross-encoder scores (question, text) pairs; off unless configured.

No cross-encoder ships with the project, so ``load_reranker`` gives None by default and search keeps its
fused order. ``rerank`` joins the cross-encoder's ranking of the best fused candidates with the fusion.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

from core.settings import RerankConfig
from search.fusion import BM25_WEIGHT, rank_shares

MAX_LENGTH = 256  # tokens of a (question, text) pair the cross-encoder reads: a question and a passage
BATCH_SIZE = 16  # pairs scored at once: the candidates (``search.candidates``, 30) in two batches on a CPU


class Reranker(Protocol):
    def run(self, query: str, texts: list[str]) -> list[float]:
        """One score per text, higher is better."""


class CrossEncoderReranker:
    """A ``sentence_transformers.CrossEncoder`` from a local path (or a name in the local Hugging Face cache).

    Configuration-only init; the model is loaded on first ``run`` (or by ``warm_up``, to fail early).
    """

    def __init__(self, model: str, device: str = "cpu", max_length: int = MAX_LENGTH,
                 batch_size: int = BATCH_SIZE):
        self.model = model
        self.device = device
        self.max_length = max_length
        self.batch_size = batch_size
        self._encoder = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Load the model; a ValueError names the model path and why it did not load."""
        with self._lock:
            if self._encoder is not None:
                return
            path = Path(self.model).expanduser()
            if (path.is_absolute() or self.model.startswith((".", "~"))) and not path.is_dir():
                raise ValueError(f"cross-encoder model {self.model!r}: no such directory")
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import CrossEncoder

            try:
                self._encoder = CrossEncoder(str(path) if path.is_dir() else self.model, device=self.device,
                                             max_length=self.max_length)
            except Exception as exc:  # a broken checkpoint fails in many ways (OSError, ValueError, KeyError...)
                raise ValueError(f"cross-encoder model {self.model!r} did not load: {exc}") from exc

    def run(self, query: str, texts: list[str]) -> list[float]:
        if not texts:
            return []
        self.warm_up()
        scores = self._encoder.predict([(query, text) for text in texts], batch_size=self.batch_size,
                                       show_progress_bar=False, convert_to_numpy=True)
        return [float(s) for s in scores]


def load_reranker(config: RerankConfig) -> Reranker | None:
    """The configured cross-encoder, or None when ``config.model`` is empty (the default)."""
    if not config.model:
        return None
    return CrossEncoderReranker(config.model, device=config.device)


def _passage(src: dict) -> str:
    """What the cross-encoder reads of an evidence: its title, heading path and text."""
    heading = " > ".join(src.get("heading_path", []))
    return " — ".join(filter(None, [src.get("title", ""), heading, src.get("text", "")]))


def rerank_candidates(reranker: Reranker, query: str, fused: list[dict], fusion: str, depth: int,
                      rrf_k: int) -> list[dict]:
    """The cross-encoder rescores the best ``depth`` candidates; its ranking joins the fusion at BM25's weight
    (as one more ranked list for RRF, as a min-max normalized score otherwise). Best first."""
    top = fused[:depth]
    scores = reranker.run(query, [_passage(it["_source"]) for it in top])
    order = sorted(range(len(top)), key=lambda i: -scores[i])
    for i, share in zip(order, rank_shares([scores[i] for i in order], fusion, BM25_WEIGHT, rrf_k)):
        top[i]["_score_fused"] += share
    return sorted(fused, key=lambda h: -h["_score_fused"])
