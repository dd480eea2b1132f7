"""The multilingual embedder (multilingual-e5-small, packaged): what it reads of an evidence, and that it reads a
German question and an English answer into one space."""
from __future__ import annotations

import numpy as np

from core.multilingual import PASSAGE_WORDS, MultilingualEmbedder, passage_text


def test_the_model_reads_title_headings_and_text_cut_to_its_words():
    text = passage_text("Travel Expense Policy", ["Hotels", "Abroad"], "word " * 200)
    assert text.startswith("Travel Expense Policy. Hotels. Abroad. word word")
    assert len(text.split()) == PASSAGE_WORDS


def test_a_german_question_comes_closest_to_the_english_text_that_answers_it():
    embedder = MultilingualEmbedder(threads=1)
    answer, other = embedder.passages([
        passage_text("Travel Expense Policy", ["Hotels"], "Abroad, a hotel may cost up to 180 EUR per night."),
        passage_text("Release Test Report", ["Results"], "All 42 boot configurations passed the secure boot test."),
    ])
    question = embedder.question("Wie viel darf ein Hotel pro Nacht im Ausland kosten?")
    assert np.dot(question, answer) > np.dot(question, other)
    assert abs(np.linalg.norm(question) - 1.0) < 1e-4  # a unit vector: its dot product is its cosine
    assert embedder.passages([]) == []
