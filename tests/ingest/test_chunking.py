"""Algorithm 1 of seed 000: sentence-aware chunking with bounds."""
from __future__ import annotations

import random

import pytest

from ingest.chunking import chunk_groups, chunk_sentences, chunk_text, word_count


def sent(tag: str, n: int) -> str:
    """A sentence of ``n`` words whose words all carry ``tag``."""
    return " ".join(f"{tag}{k}" for k in range(n))


# ------------------------------------------------------------------ Algorithm 1, one test per rule

def test_sentences_fill_the_buffer_while_they_fit():
    s = [sent("a", 3), sent("b", 3), sent("c", 4)]
    assert chunk_groups(s, 10, 2, 3) == [[0, 1, 2]]  # 3 + 3 + 4 = 10 <= M


def test_overlap_seed_is_the_shortest_suffix_reaching_o():
    s = [sent("a", 3), sent("b", 2), sent("c", 3), sent("d", 5)]
    # A+B+C = 8, D overflows; suffixes: C = 3 < 4, B+C = 5 >= 4 -> seed (B, C), not (C) nor (A, B, C)
    assert chunk_groups(s, 10, 5, 4) == [[0, 1, 2], [1, 2, 3]]
    # O = 3: C alone reaches it
    assert chunk_groups(s, 10, 5, 3) == [[0, 1, 2], [2, 3]]
    chunks = chunk_sentences(s, 10, 5, 4)
    assert chunks[1] == " ".join([s[1], s[2], s[3]])


def test_overlap_larger_than_the_buffer_seeds_all_of_it():
    s = [sent("a", 3), sent("b", 3), sent("c", 6)]
    assert chunk_groups(s, 10, 3, 20) == [[0, 1], [0, 1, 2]]


def test_no_overlap_after_a_forced_emission():
    s = [sent("a", 4), sent("b", 7), sent("c", 5)]
    # W(A) = 4 < m = 8 when B overflows: emit A anyway, start empty; same for B before C
    assert chunk_groups(s, 10, 8, 3) == [[0], [1], [2]]


def test_forced_emission_then_normal_emission():
    s = [sent("a", 2), sent("b", 9), sent("c", 1), sent("d", 6)]
    # A (2 < m) forced out; B + C = 10 >= m, D overflows -> seed with C (1 < 2) + B -> all of (B, C)
    assert chunk_groups(s, 10, 5, 2) == [[0], [1, 2], [1, 2, 3]]


def test_over_long_sentence_is_alone_after_a_flush_and_the_next_buffer_starts_empty():
    s = [sent("a", 4), sent("b", 3), sent("long", 15), sent("c", 2), sent("d", 2)]
    groups = chunk_groups(s, 10, 2, 3)
    assert groups == [[0, 1], [2], [3, 4]]  # flushed (no seed chunk), alone, then empty (no overlap)
    chunks = chunk_sentences(s, 10, 2, 3)
    assert chunks[1] == s[2]
    assert word_count(chunks[1]) == 15


def test_over_long_sentence_first_and_last():
    s = [sent("long", 12), sent("a", 2), sent("long2", 11)]
    assert chunk_groups(s, 10, 2, 3) == [[0], [1], [2]]


def test_zero_overlap_starts_every_chunk_empty():
    s = [sent("a", 6), sent("b", 6), sent("c", 6)]
    assert chunk_groups(s, 10, 2, 0) == [[0], [1], [2]]
    assert chunk_sentences(s, 10, 2, 0) == s


def test_seed_plus_next_sentence_may_exceed_m_unless_strict():
    s = [sent("a", 6), sent("b", 6), sent("c", 6)]
    # Pseudocode line 30 appends s_j after seeding without another check.
    groups = chunk_groups(s, 10, 2, 3)
    assert groups == [[0], [0, 1], [1, 2]]
    assert word_count(chunk_sentences(s, 10, 2, 3)[1]) == 12
    # strict_max drops the seed when seed + sentence would overflow
    assert chunk_groups(s, 10, 2, 3, strict_max=True) == [[0], [1], [2]]


def test_empty_sentences_are_skipped():
    s = ["", sent("a", 2), "   ", sent("b", 2), "\n"]
    assert chunk_groups(s, 10, 2, 3) == [[1, 3]]
    assert chunk_sentences(s, 10, 2, 3) == [s[1] + " " + s[3]]
    assert chunk_sentences(["", "  "], 10, 2, 3) == []
    assert chunk_sentences([], 10, 2, 3) == []


def test_last_buffer_is_emitted():
    s = [sent("a", 6), sent("b", 5), sent("c", 1)]
    groups = chunk_groups(s, 10, 2, 0)
    assert groups == [[0], [1, 2]]
    assert chunk_sentences(s, 10, 2, 0)[-1] == s[1] + " " + s[2]


def test_invalid_max():
    with pytest.raises(ValueError):
        chunk_groups(["a"], 0, 0, 0)


# ------------------------------------------------------------------ property test

def _check(sentences: list[str], M: int, m: int, O: int, strict: bool) -> None:
    counts = [word_count(s) for s in sentences]
    groups = chunk_groups(sentences, M, m, O, strict_max=strict)
    chunks = chunk_sentences(sentences, M, m, O, strict_max=strict)
    assert chunks == [" ".join(sentences[i].strip() for i in g) for g in groups]

    nonempty = [i for i, w in enumerate(counts) if w > 0]
    new_order: list[int] = []
    last = -1
    for k, g in enumerate(groups):
        assert g, "no empty chunks"
        assert all(counts[i] > 0 for i in g), "empty sentences are skipped"
        rank = [nonempty.index(i) for i in g]
        assert rank == list(range(rank[0], rank[-1] + 1)), "a chunk is a run of consecutive sentences"
        new = [i for i in g if i > last]
        assert new, "every chunk brings a new sentence"
        new_order.extend(new)
        last = g[-1]
        size = sum(counts[i] for i in g)
        seed = [i for i in g if k > 0 and i <= groups[k - 1][-1]]
        if seed:
            prev = groups[k - 1]
            prev_size = sum(counts[i] for i in prev)
            seed_size = sum(counts[i] for i in seed)
            assert O > 0 and prev_size >= m, "overlap only after a normal emission"
            assert seed == prev[len(prev) - len(seed):], "the seed is a suffix of the previous chunk"
            assert seed_size >= min(O, prev_size), "the seed reaches O (or is all of B)"
            assert seed_size - counts[seed[0]] < O, "the seed is the shortest such suffix"
            assert not (len(prev) == 1 and counts[prev[0]] > M), "no overlap after an over-long sentence"
        if size > M:
            if len(g) == 1:
                assert counts[g[0]] > M  # a single over-long sentence
            else:
                assert not strict, "strict chunks never exceed M"
                # literal Algorithm 1: the seed plus ONE overflowing sentence
                assert len(new) == 1 and seed and size - sum(counts[i] for i in seed) <= M
        if len(g) > 1:
            assert all(counts[i] <= M for i in g), "an over-long sentence is always alone"
    assert new_order == nonempty, "every sentence appears, once, in order"


@pytest.mark.parametrize("strict", [False, True])
def test_random_inputs(strict):
    rng = random.Random(1234 + strict)
    for _ in range(1500):
        M = rng.randint(1, 40)
        m = rng.randint(0, M + 5)
        O = rng.choice([0, 0, rng.randint(1, 15), rng.randint(1, 60)])
        sentences = []
        for j in range(rng.randint(0, 25)):
            n = rng.choice([0, rng.randint(1, max(1, M // 2)), rng.randint(1, M + 10)])
            sentences.append(sent(f"s{j}w", n) if n else rng.choice(["", " ", "\n"]))
        _check(sentences, M, m, O, strict)


# ------------------------------------------------------------------ sentences

def test_chunk_text_end_to_end():
    sentences = [f"Sentence number {i} talks about topic {i} in some detail here." for i in range(40)]
    text = " ".join(sentences)
    chunks = chunk_text(text, "en", max_words=50, min_words=20, overlap_words=10)
    assert len(chunks) > 1
    assert all(word_count(c) <= 50 + 10 for c in chunks)
    # consecutive chunks overlap by whole sentences
    assert chunks[1].startswith(chunks[0].split(". ")[-1].rstrip(".")[:20])
    assert chunks[0].startswith("Sentence number 0 ")
    assert chunks[-1].endswith("topic 39 in some detail here.")
    assert chunk_text("One short sentence.", "en", 50, 20, 10) == ["One short sentence."]
