"""The multilingual embedder (multilingual-e5-small, packaged): what it reads of an evidence, and that it reads a
German question and an English answer into one space."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


# Run in a fresh interpreter: which OpenMP runtime a process has loaded, and with how many threads, is fixed
# once per process. spaCy's blank pipeline loads torch, and with it its OpenMP runtime, as a worker does.
ONE_CORE_SCRIPT = """
import glob, os, sys
from core.embedding import limit_native_threads
if sys.argv[1] == "limited":
    limit_native_threads(1)
import spacy
spacy.blank("de")
import torch
from core.multilingual import MultilingualEmbedder
embedder = MultilingualEmbedder(threads=1)
embedder.question("warm up")


def ticks():
    # clock ticks (utime + stime) each thread of this process has computed so far
    spent = {}
    for task in glob.glob(f"/proc/{os.getpid()}/task/*/stat"):
        fields = open(task).read().rsplit(")", 1)[1].split()
        spent[task] = int(fields[11]) + int(fields[12])
    return spent


before = ticks()
embedder.passages(["word " * 60 + str(i) for i in range(12)])
busy = sum(spent - before.get(task, 0) > 5 for task, spent in ticks().items())
print(busy)
"""


def run_busy_threads(mode: str) -> int:
    """The threads of a fresh process that computed while the engine embedded, its threads ``limited`` first
    or not."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", ONE_CORE_SCRIPT, mode], capture_output=True, text=True,
                          cwd=Path(__file__).parents[2], env=env, timeout=300, check=True)
    return int(done.stdout.split()[-1])


def test_a_process_that_limits_its_threads_embeds_on_one_core_after_torch_has_loaded():
    # Unlimited, the engine's parallel regions run on torch's runtime over every core: two worker processes on
    # two cores then spin against each other's threads. The comparison shows the check can fail.
    assert run_busy_threads("limited") == 1
    if (os.cpu_count() or 1) > 1:
        assert run_busy_threads("unlimited") > 1
