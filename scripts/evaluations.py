"""The evaluations behind the ranking figures, listed once: ``scripts/eval-bench.sh`` ingests their indices and runs
them (the lines this script prints), ``scripts/figures.py`` writes their table into docs/ranking.md, and
``scripts/ablation.py`` asks them again with each heuristic off.

    python3 scripts/evaluations.py [--bench ../shared/bench]

prints, in order, a line per index before the first evaluation that asks it (``ingest``, the alias, the folders
to ingest) and a line per evaluation (``eval``, its name, the alias asked, its title, the ``evident eval``
arguments), tab-separated. Standard library only, so any Python 3.11 runs it.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARBOR = "evalsets/harborlane"
# What each index holds: its folders, under --bench when they open with "bench:", else in the repository.
CORPORA = {"evalbench": ("bench:wiki/pages", "bench:pdf"), "evalharbor": (f"{HARBOR}/pages",)}
BASELINE_READING = "prev-question"  # the naive baseline's reading of a follow-up: the previous question prepended


@dataclass(frozen=True)
class Evaluation:
    """One evaluation: its name (its results are build/figures/<name>.json), its title in the figures table, the
    questions file (under --bench when ``bench``), the field asked, the index alias asked, its column in the
    ablation table (empty: not ablated), how a follow-up is read, and whether the questions are another
    organisation's (out of corpus: no page of the index answers them)."""

    name: str
    title: str
    path: str
    field: str
    alias: str
    label: str = ""
    bench: bool = False
    conversation: str = "state"
    out_of_corpus: bool = False

    @property
    def baseline(self) -> bool:
        return self.conversation == BASELINE_READING

    def questions(self, bench: Path) -> Path:
        return (bench if self.bench else ROOT) / self.path

    def arguments(self, bench: Path) -> list[str]:
        """The arguments of ``evident eval`` that run it."""
        out = [str(self.questions(bench)), "--field", self.field]
        if self.baseline:
            out += ["--conversation", self.conversation]
        return out + (["--out-of-corpus"] if self.out_of_corpus else [])


def _file(stem: str, path: str, alias: str, title: str, label: str, bench: bool = False,
          raw_and_completed: bool = True, baseline: bool = False) -> list[Evaluation]:
    """A question file's evaluations: raw (the question with its conversation) and completed, or the questions
    alone; with the naive baseline after the raw one."""
    if not raw_and_completed:
        return [Evaluation(stem, title, path, "question", alias, label, bench)]
    raw = Evaluation(f"{stem}-raw", f"{title}, raw", path, "question", alias, f"{label} raw", bench)
    completed = Evaluation(f"{stem}-completed", f"{title}, completed", path, "completed_question", alias,
                           f"{label} compl", bench)
    naive = Evaluation(f"{stem}-baseline", f"{title}, naive baseline", path, "question", alias, "", bench,
                       BASELINE_READING)
    return [raw, completed, *([naive] if baseline else [])]


EVALUATIONS: tuple[Evaluation, ...] = (
    *_file("questions", "questions.jsonl", "evalbench", "questions.jsonl", "q", bench=True, baseline=True),
    *_file("conversations", "conversations.jsonl", "evalbench", "conversations.jsonl", "conv", bench=True,
           baseline=True),
    *_file("talvik-standalone", "evalsets/talvik-standalone.jsonl", "evalbench", "evalsets/talvik-standalone.jsonl",
           "talvik", raw_and_completed=False),
    *_file("talvik-conversations", "evalsets/talvik-conversations.jsonl", "evalbench",
           "evalsets/talvik-conversations.jsonl", "t-conv", baseline=True),
    *_file("harborlane", f"{HARBOR}/harborlane-conversations.jsonl", "evalharbor", "evalsets/harborlane", "harbor",
           baseline=True),
    *_file("talvik-standalone-de", "evalsets/talvik-standalone.de.jsonl", "evalbench",
           "evalsets/talvik-standalone.de.jsonl (German set)", "talvik de", raw_and_completed=False),
    *_file("talvik-conversations-de", "evalsets/talvik-conversations.de.jsonl", "evalbench",
           "evalsets/talvik-conversations.de.jsonl", "t-conv de"),
    *_file("harborlane-de", f"{HARBOR}/harborlane-conversations.de.jsonl", "evalharbor", "evalsets/harborlane .de",
           "harbor de"),
    # German questions kept untouched (evalsets/README.md): reported here, never asked by the ablation or a fit.
    *_file("talvik-german", "evalsets/talvik-german.jsonl", "evalbench", "evalsets/talvik-german.jsonl (untouched)",
           "", raw_and_completed=False),
    # Words as people type them (typos, words run together, German compounds the pages write otherwise, verbs
    # with a prefix, and plain controls), one file per organisation: the inputs the spelling stage's numbers guard.
    *_file("typed-words", "evalsets/typed-words.jsonl", "evalbench", "evalsets/typed-words.jsonl (typed words)",
           "typed", raw_and_completed=False),
    *_file("harborlane-typed", f"{HARBOR}/harborlane-typed.jsonl", "evalharbor",
           "evalsets/harborlane typed words", "harbor typed", raw_and_completed=False),
    # One organisation's questions asked of the other's index (evident eval leaves out any whose gold page that
    # index holds): no first page is right, and the verdict should say so.
    Evaluation("ooc-questions-on-harbor", "out of corpus: bench questions.jsonl asked of harborlane",
               "questions.jsonl", "completed_question", "evalharbor", bench=True, out_of_corpus=True),
    Evaluation("ooc-harborlane-on-bench", "out of corpus: harborlane asked of the bench",
               f"{HARBOR}/harborlane-conversations.jsonl", "completed_question", "evalbench", out_of_corpus=True),
    # The same and two more organisations' conversations asked raw, follow-ups read with their history: a
    # conversation about what the index lacks, for the follow-ups' verdict (``scripts/calibration.py``).
    Evaluation("ooc-questions-on-harbor-raw", "out of corpus: bench questions.jsonl asked of harborlane, raw",
               "questions.jsonl", "question", "evalharbor", bench=True, out_of_corpus=True),
    Evaluation("ooc-conversations-on-harbor-raw", "out of corpus: bench conversations.jsonl asked of harborlane, raw",
               "conversations.jsonl", "question", "evalharbor", bench=True, out_of_corpus=True),
    Evaluation("ooc-talvik-conversations-on-harbor-raw",
               "out of corpus: evalsets/talvik-conversations.jsonl asked of harborlane, raw",
               "evalsets/talvik-conversations.jsonl", "question", "evalharbor", out_of_corpus=True),
    Evaluation("ooc-harborlane-on-bench-raw", "out of corpus: harborlane asked of the bench, raw",
               f"{HARBOR}/harborlane-conversations.jsonl", "question", "evalbench", out_of_corpus=True),
)


def ablated() -> tuple[Evaluation, ...]:
    """The evaluations the ablation asks again: every one with a column of its own."""
    return tuple(e for e in EVALUATIONS if e.label)


def baseline_of(evaluation: Evaluation) -> Evaluation | None:
    """The naive baseline of the same questions, field and index, if there is one."""
    return next((e for e in EVALUATIONS if e.baseline and not evaluation.baseline
                 and (e.path, e.field, e.alias) == (evaluation.path, evaluation.field, evaluation.alias)), None)


def corpus(alias: str, bench: Path) -> list[str]:
    return [str(bench / folder.removeprefix("bench:")) if folder.startswith("bench:") else str(ROOT / folder)
            for folder in CORPORA[alias]]


def plan(bench: Path) -> list[list[str]]:
    """The lines eval-bench.sh runs, in order: each index's ingest before the first evaluation asking it."""
    lines, ingested = [], set()
    for e in EVALUATIONS:
        if e.alias not in ingested:
            ingested.add(e.alias)
            lines.append(["ingest", e.alias, *corpus(e.alias, bench)])
        lines.append(["eval", e.name, e.alias, e.title, *e.arguments(bench)])
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench",
                        help="the shared bench's folder (default ../shared/bench)")
    args = parser.parse_args(argv)
    for line in plan(args.bench):
        print("\t".join(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
