"""An optional reranking stage: a cross-encoder scores (question, text) pairs; off unless configured.

No cross-encoder ships with the project, so ``load_reranker`` gives None by default and search keeps its
fused order.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

from core.settings import RerankConfig


class Reranker(Protocol):
    def run(self, query: str, texts: list[str]) -> list[float]:
        """One score per text, higher is better."""


class CrossEncoderReranker:
    """A ``sentence_transformers.CrossEncoder`` from a local path (or a name in the local Hugging Face cache).

    Configuration-only init; the model is loaded on first ``run`` (or by ``warm_up``, to fail early).
    """

    def __init__(self, model: str, device: str = "cpu", max_length: int = 256, batch_size: int = 16):
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
