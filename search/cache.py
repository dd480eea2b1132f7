"""``ExpiringCache``: answers of OpenSearch kept for a while, so most searches ask nothing again; ``KeptVectors``:
a question's vectors embedded once.

The search stages that look words up in the index (``analysis.FieldTokens``, ``vocabulary.CorpusWords``,
``acronyms.AcronymExpander``, ``spelling.SpellingCorrector``'s term suggestions) keep what they learned per
index, and per caller's read groups where the answer depends on what the caller may read (the key says so).
Hand-written rather than taken from a library: none of the project's dependencies has one (cachetools is not
among them), and what the stages need is small: many keys read at once and many stored at once, each under one
lock, with the OpenSearch request between them unlocked.
"""
from __future__ import annotations

import math
import threading
import time
from concurrent.futures import Future
from typing import Callable, Generic, Hashable, Iterable, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class ExpiringCache(Generic[Key, Value]):
    """Values believed for ``seconds`` after they are stored; past ``size`` entries the oldest stored half is
    forgotten at the next store, so memory stays bounded without a sweep. Safe to share between threads."""

    def __init__(self, seconds: float, size: int, clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.size = size
        self._clock = clock
        self._entries: dict[Key, tuple[Value, float]] = {}
        self._lock = threading.Lock()

    def fresh(self, keys: Iterable[Key]) -> dict[Key, Value]:
        """The value of each of ``keys`` stored at most ``seconds`` ago; a key never stored, or older, is absent."""
        now = self._clock()
        with self._lock:
            entries = [(key, self._entries.get(key)) for key in keys]
        return {key: entry[0] for key, entry in entries if entry is not None and now - entry[1] <= self.seconds}

    def store(self, values: dict[Key, Value]) -> None:
        """Keep these values from now on, in place of what their keys held."""
        now = self._clock()
        with self._lock:
            if len(self._entries) > self.size:
                for key in list(self._entries)[: self.size // 2]:
                    del self._entries[key]
            for key, value in values.items():
                self._entries.pop(key, None)  # stored again: the newest, the last to be forgotten
                self._entries[key] = (value, now)


class KeptVectors:
    """Each text's vector from ``embed`` (texts -> their vectors, in order), embedded once and kept for the
    process's life: a model's vector for a text never changes, and a question asked again (by anyone, or by the
    same user paging on) then costs no embedding. A text another thread is embedding right now is waited for, not
    embedded again (two callers asking the same question at once). Past ``size`` texts the oldest stored half is
    forgotten."""

    def __init__(self, embed: Callable[[list[str]], list[list[float]]], size: int):
        self._embed = embed
        self._known: ExpiringCache[str, list[float]] = ExpiringCache(math.inf, size)
        self._underway: dict[str, Future] = {}  # text -> its vector, for the texts being embedded now
        self._lock = threading.Lock()

    def kept(self, text: str) -> list[float] | None:
        """``text``'s vector when it is kept already, else None; embeds nothing."""
        return self._known.fresh([text]).get(text)

    def of(self, texts: list[str]) -> list[list[float]]:
        """The vector of each of ``texts``, in order; only the texts neither kept nor under way are embedded, in
        one call."""
        known = self._known.fresh(texts)
        mine: dict[str, Future] = {}
        waited: dict[str, Future] = {}
        with self._lock:
            for text in dict.fromkeys(texts):
                if text in known:
                    continue
                if text in self._underway:
                    waited[text] = self._underway[text]
                else:
                    mine[text] = self._underway[text] = Future()
        if mine:
            try:
                made = dict(zip(mine, self._embed(list(mine))))
                self._known.store(made)
                for text, future in mine.items():
                    future.set_result(made[text])
            except BaseException as exc:
                for future in mine.values():
                    future.set_exception(exc)
                raise
            finally:
                with self._lock:
                    for text in mine:
                        del self._underway[text]
            known |= made
        known |= {text: future.result() for text, future in waited.items()}
        return [known[text] for text in texts]
