"""Sentence-aware chunking with bounds (seed 000, Algorithm 1) for texts too long for the embedder.

``chunk_sentences`` is Algorithm 1, see its docstring; ``chunk_text`` splits a text into sentences
(``text.sentences``) and chunks them; ``word_count`` is how the seed counts words, and
``clip_words`` cuts a text to a number of them.
"""
from __future__ import annotations

from collections.abc import Sequence

from text.sentences import split_sentences

__all__ = ["chunk_sentences", "chunk_groups", "chunk_text", "word_count", "clip_words"]


def word_count(text: str) -> int:
    """Words as in the seed's implementation: whitespace-delimited tokens."""
    return len(text.split())


def clip_words(text: str, limit: int | None, from_end: bool = False) -> str:
    """The first ``limit`` words of a longer text and " …" (the last ones after "… " with ``from_end``);
    the text itself when it is short enough or ``limit`` is 0 or None."""
    words = text.split()
    if not limit or len(words) <= limit:
        return text
    return "… " + " ".join(words[-limit:]) if from_end else " ".join(words[:limit]) + " …"


def chunk_groups(sentences: Sequence[str], max_words: int, min_words: int, overlap_words: int,
                 strict_max: bool = False) -> list[list[int]]:
    """Algorithm 1 of seed 000 on sentence indices; ``chunk_sentences`` joins the groups.

    Each group is a run of consecutive sentence indices. See ``chunk_sentences``.
    """
    if max_words <= 0:
        raise ValueError("max_words must be positive")
    M, m, O = max_words, max(0, min_words), max(0, overlap_words)
    counts = [word_count(s) for s in sentences]
    chunks: list[list[int]] = []
    buf: list[int] = []
    size = 0

    for j, w in enumerate(counts):
        if w == 0:  # lines 7-9: empty sentences are skipped
            continue
        if w > M:  # lines 24-29: an over-long sentence, alone, after flushing B without a seed
            if buf:
                chunks.append(buf)
            chunks.append([j])
            buf, size = [], 0
            continue
        if buf and size + w > M:  # lines 10-22
            chunks.append(buf)
            if size >= m and O > 0:  # normal emission: seed with the shortest suffix reaching O
                seed: list[int] = []
                total = 0
                for i in reversed(buf):
                    seed.insert(0, i)
                    total += counts[i]
                    if total >= O:
                        break
                buf, size = seed, total
                if strict_max and size + w > M:
                    buf, size = [], 0
            else:  # O = 0, or forced emission (W(B) < m): start empty
                buf, size = [], 0
        buf.append(j)  # line 30
        size += w
    if buf:  # lines 33-35
        chunks.append(buf)
    return chunks


def chunk_sentences(sentences: Sequence[str], max_words: int, min_words: int, overlap_words: int,
                    strict_max: bool = False) -> list[str]:
    """Sentence-aware chunking with bounds: Algorithm 1 of seed 000.

    M = ``max_words``, m = ``min_words``, O = ``overlap_words``; W(.) counts
    whitespace-delimited words. Sentences are appended to a buffer B while
    W(B) + w <= M. When the next sentence would overflow: if W(B) >= m, B is
    emitted and the next buffer is seeded with the shortest suffix of B's
    sentences whose words sum to at least O (all of B when O exceeds W(B);
    nothing when O = 0); if W(B) < m, B is emitted anyway and the next buffer
    starts empty (no overlap after a forced emission). Empty sentences are
    skipped; the last buffer is emitted. Chunks are the sentences joined by
    one space.

    Interpretation choices, from the seed's pseudocode and its remark a):

    * The overlap seed plus the sentence that overflowed may exceed M: the
      pseudocode appends s_j after seeding without checking again (line 30).
      A chunk can therefore be longer than M by at most its seed (which is
      at most W(previous chunk)); it always consists of the seed plus ONE
      sentence in that case. ``strict_max=True`` (not in the seed) drops the
      seed when seed + sentence would exceed M, so that every chunk is <= M
      words except a single over-long sentence.
    * A sentence longer than M is checked first: B is flushed WITHOUT an
      overlap seed, the sentence is emitted alone, and the next buffer starts
      empty. Read literally, the pseudocode would first run lines 10-22
      (emit B and seed it) and then flush that seed as a chunk of its own,
      i.e. emit a chunk that only repeats the end of the previous one; remark
      a) says an oversize sentence leaves no seed, so no such chunk is made.
    * The over-long sentence is emitted whole (not cut further); callers that
      need a hard limit must cut it themselves.
    """
    groups = chunk_groups(sentences, max_words, min_words, overlap_words, strict_max)
    return [" ".join(sentences[i].strip() for i in group) for group in groups]


def chunk_text(text: str, lang: str = "en", max_words: int = 160, min_words: int = 60,
               overlap_words: int = 25, strict_max: bool = False) -> list[str]:
    """``split_sentences`` then ``chunk_sentences`` (chunks are sentences joined by single spaces)."""
    return chunk_sentences(split_sentences(text, lang), max_words, min_words, overlap_words, strict_max)
