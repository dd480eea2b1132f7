"""The ablation of the verdict's and the answer card's tuned numbers (issue 47): each set alone to its untuned value,
judged on what it decides.

Why a tool beside ``scripts/ablation.py``: these numbers never reorder pages (``search.verdict``,
``search.answer``), so P@1, that ablation's measure, cannot see them. Each row here counts, on the untouched
(holdout) half of every evaluation, what the number decides:

- a verdict number: the questions whose verdict is right (strong when the first page is right, not strong when it
  is wrong; no first page of an out-of-corpus set is right);
- a card number: the cards' worth, right cards minus nine times the wrong ones (issue 44 allows at most one wrong
  card in ten shown: nine right ones pay for a wrong one).

Each question is searched once, since the ranking is the same in every configuration: the search keeps what the
verdict and the card read (the query, the first page, the ranked lists, the card's units; kept on disk in
build/figures/verdict-ablation/, so a rerun searches nothing unless the code changed or ``--fresh``), and each
configuration judges that again with its number set. A verdict number moves the signal, so both monotone maps from
signal to confidence are fitted anew for each configuration on the tune halves (``calibration_fit``, as
``evident eval --split tune`` and ``scripts/calibration.py`` fit today's), the baseline's the same way: every
row compares like with like. The card's gate (``CARD_MIN_SCORE``, ``CARD_MIN_MARGIN``) stays at today's cut in the
rows of the card's weights.

A number keeps when untuning it loses on two different question files (raw and completed of one file are one
file; one organisation's questions asked of another's index are a file of their own); else it is a candidate for
removal. The table goes between the markers of docs/ranking.md and to build/figures/verdict-ablation.md.

    .venv/bin/python scripts/verdict_ablation.py [--bench ../shared/bench] [--only NAME,...] [--fresh]

Needs the stack and the indices of ``bash scripts/eval-bench.sh``; about 2,600 searches the first time.
"""
from __future__ import annotations

import argparse
import dataclasses
import pickle
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from core.embedding import limit_native_threads
from core.settings import PROJECT_ROOT as ROOT
from core.settings import load_settings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # ablation.py, figures.py, evaluations.py beside it
import ablation  # noqa: E402 - scripts/ablation.py: rows, patching, fingerprint, alias check
import figures  # noqa: E402 - scripts/figures.py: the markers' rewrite
from evaluations import EVALUATIONS, Evaluation  # noqa: E402 - scripts/evaluations.py: the one list

RECORDS = ROOT / "build" / "figures" / "verdict-ablation"
TABLE = ROOT / "build" / "figures" / "verdict-ablation.md"
MARKERS = ("<!-- verdict-ablation:start -->", "<!-- verdict-ablation:end -->")
TUNE, HOLDOUT = "tune", "holdout"
WRONG_CARD_COST = 9  # right cards that pay for a wrong one: issue 44's bound, at most one in ten shown wrong
ONE_MAP = "one map"  # the row without a follow-up map of its own: one map fitted on every first result
NEVER = 99  # letters no word has (a matching rule that never applies), evidence no page has retrieved (all of it)
SIGNAL_ITSELF = "the signal itself"  # the row without a fitted map: the signal read as the confidence
IDENTITY = tuple((step / 1000, step / 1000) for step in range(1001))  # a map giving each signal itself, to 0.001

Row = ablation.Heuristic
VERDICT_ROWS = (
    Row("verdict.STEM_CHARS", NEVER, "a word held by a word of its stem (5 letters)"),
    Row("verdict.COMPOUND_PART_CHARS", NEVER, "a word held inside a compound (6 letters)"),
    Row("verdict.UNKNOWN_TERM_FACTOR", 1.0, "a word the corpus writes nowhere weighing more"),
    Row("verdict.AGREE_DEPTH", 1, "a list agreeing by its first three pages"),
    Row("verdict.AGREEMENT_SHARE", 0.0, "the lists' agreement in the signal"),
    Row("verdict.FOLLOW_UP_CALIBRATION", ONE_MAP, "a map of its own for follow-ups"),
    Row("verdict.CALIBRATION", SIGNAL_ITSELF, "a fitted map from signal to confidence"),
)
# The card's heuristics: a rule of its own whose weight is another number's (``scripts/inventory.py`` counts them
# with the heuristics, not the tuned numbers); switched off by that weight at 0.
CARD_HEURISTICS = (
    Row("answer.VALUE_WEIGHT", 0.0, "a value where the question asks how many or when"),
)
CARD_ROWS = (
    Row("answer.CARD_EVIDENCE", NEVER, "the card read from the page's five best evidence"),
    Row("answer.COVERAGE_WEIGHT", 0.0, "a unit's coverage of the question in its score"),
    Row("answer.ADDED_WEIGHT", 0.0, "the words a unit adds in its score"),
    Row("answer.ADDED_WORDS", 1, "added words counting up to four"),
    Row("answer.UNEMBEDDED_GAP", 0.0, "a unit without a vector set behind"),
    Row("answer.CARD_MIN_SCORE", float("-inf"), "the card's lowest score"),
    Row("answer.CARD_MIN_MARGIN", 0.0, "the card's lead over the next unit"),
    *CARD_HEURISTICS,
)
ROWS = (*VERDICT_ROWS, *CARD_ROWS)


def evaluations() -> tuple[Evaluation, ...]:
    """Every evaluation whose verdicts the figures report: the ablated ones and the out-of-corpus sets."""
    return tuple(e for e in EVALUATIONS if e.label or e.out_of_corpus)


def file_of(evaluation: Evaluation) -> tuple[str, str]:
    """A question file as the rule counts them: its path and the index it is asked of."""
    return evaluation.path, evaluation.alias


# -- searching once ---------------------------------------------------------------------------------------------
def recording_searcher(settings, client):
    """A Searcher that keeps, for each search, what its verdict and card stages read (``kept``)."""
    from search.searcher import Searcher

    class Recording(Searcher):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.kept: list[dict] = []  # per search: what its verdict and card read, emptied by ``record``

        def order(self, *args):  # the judgement kept is the page listed first's, after pages matching nothing left
            before = len(self.kept)
            ordered = super().order(*args)
            del self.kept[before:-1]
            return ordered

        def judge(self, query, retrieved, first, shown, principals):
            self.kept.append({"query": query, "lists": retrieved.ranked_lists, "first": first,
                              "principals": principals})
            return super().judge(query, retrieved, first, shown, principals)

        def answer(self, query, first, judgement, vectors, card_units):
            self.kept[-1] |= {"vector": vectors[0] if vectors else None, "units": card_units}
            return super().answer(query, first, judgement, vectors, card_units)

    return Recording.from_settings(settings, client)


def record(searcher, evaluation: Evaluation, bench: Path) -> list[dict]:
    """Each question of ``evaluation`` searched once: its half, whether its first page is right, and what its
    verdict and card read (the search of a restricted question's outsider check is not kept)."""
    from tqdm import tqdm

    from evident.evaluation import load_questions, out_of_corpus, run, split_of

    questions = load_questions(evaluation.questions(bench))
    if evaluation.out_of_corpus:
        questions, _ = out_of_corpus(searcher.client, evaluation.alias, questions)
    records: list[dict] = []

    def keep(_: int) -> None:
        records.append(searcher.kept[0] if searcher.kept else {})
        searcher.kept.clear()

    searcher.kept.clear()
    with tqdm(total=len(questions), unit="q", desc=evaluation.name, file=sys.stderr, leave=False) as bar:
        outcomes = run(searcher, questions, field_name=evaluation.field, progress=lambda n: (keep(n), bar.update(1)))
    # run asks in this order, one outcome and one record a question
    ordered = sorted(questions, key=lambda q: (q.get("conv_id", ""), q.get("turn", 1)))
    return [kept | {"question": q, "right": outcome.rank == 1, "half": split_of(q.get("conv_id", q.get("id", "")))}
            for q, kept, outcome in zip(ordered, records, outcomes, strict=True)]


class Searchers:
    """One recording Searcher per index alias, the models loaded once (``ablation.searcher_for``)."""

    def __init__(self, settings):
        from core.index import connect

        self.settings, self.client, self.by_alias = settings, connect(settings), {}

    def on(self, alias: str):
        if alias not in self.by_alias:
            ablation.check_alias(self.client, alias)
            on_alias = dataclasses.replace(self.settings, opensearch=dataclasses.replace(self.settings.opensearch,
                                                                                        index_alias=alias))
            first = next(iter(self.by_alias.values()), None)
            searcher = recording_searcher(on_alias, self.client) if first is None else type(first)(
                on_alias, self.client, first.embedder, first.lemmatizer, first.lexicon, first.reranker,
                first.rewriter, first.multilingual_embedder)
            self.by_alias[alias] = searcher
        return self.by_alias[alias]


def recorded(searchers: Searchers, bench: Path, fresh: bool) -> dict[str, list[dict]]:
    """Every evaluation's records, from disk when they were kept of the same code, else searched now."""
    code = ablation.fingerprint(searchers.settings)
    out: dict[str, list[dict]] = {}
    for e in evaluations():
        if not e.questions(bench).is_file():
            print(f"verdict ablation: {e.questions(bench)} is missing: {e.name} skipped (--bench)", file=sys.stderr)
            continue
        path = RECORDS / f"{e.name}.pickle"
        if path.is_file() and not fresh:
            kept = pickle.loads(path.read_bytes())
            if kept["code"] == code:
                out[e.name] = kept["records"]
                continue
        limit_native_threads(searchers.settings.embedding.threads)
        started = time.perf_counter()
        out[e.name] = record(searchers.on(e.alias), e, bench)
        RECORDS.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps({"code": code, "records": out[e.name]}))
        print(f"verdict ablation: {e.name}: {len(out[e.name])} questions searched in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return out


# -- judging again ----------------------------------------------------------------------------------------------
def signals(records: dict[str, list[dict]], judges: dict[str, object]) -> dict[str, list[tuple[float, bool]]]:
    """Each record's signal and whether it is read as a follow-up, judged with the constants as they are now."""
    from search.verdict import NO_RESULT, follows_conversation

    out = {}
    for name, found in records.items():
        judge = judges[name]
        out[name] = [((judge(r["query"], r["lists"], r["first"], r["principals"]) if r.get("first") else NO_RESULT)
                      .signal, bool(r.get("query")) and follows_conversation(r["query"])) for r in found]
    return out


def fitted_maps(records, judged, one_map: bool) -> tuple[tuple, tuple]:
    """The two maps from signal to confidence, fitted on the tune halves of every evaluation (one map for both
    when ``one_map``)."""
    from evident.verdict_figures import calibration_fit

    points = {False: [], True: []}
    for name, found in records.items():
        for r, (signal, follow_up) in zip(found, judged[name]):
            if r["half"] == TUNE and r.get("first"):
                points[follow_up and not one_map].append((signal, r["right"]))
    maps = [tuple(tuple(p) for p in calibration_fit(points[f])) or ((0.0, 0.0),) for f in (False, True)]
    return maps[0], (maps[0] if one_map else maps[1])


def figures_of(records, judged, maps, card_of) -> dict[str, dict]:
    """Per evaluation, on its holdout half: questions, right verdicts, right and wrong cards."""
    from evident.verdict_figures import card_right
    from search.verdict import STRONG, calibrated, verdict_of

    out = {}
    for name, found in records.items():
        figures_here = {"n": 0, "verdict_right": 0, "cards_right": 0, "cards_wrong": 0}
        for r, (signal, follow_up) in zip(found, judged[name]):
            if r["half"] != HOLDOUT:
                continue
            confidence = calibrated(signal, maps[1] if follow_up else maps[0])
            strong = bool(r.get("first")) and verdict_of(confidence) == STRONG
            figures_here["n"] += 1
            figures_here["verdict_right"] += strong == r["right"]
            card = card_of(name, r, confidence) if strong else None
            ok = card_right(vars(card), r["question"]) if card is not None else None
            figures_here["cards_right"] += ok is True
            figures_here["cards_wrong"] += ok is False
        out[name] = figures_here
    return out


def configuration(records, searchers, row: Row | None) -> dict[str, dict]:
    """The holdout figures with ``row``'s number untuned (today's with None), both maps fitted anew."""
    from search import answer, verdict

    with ExitStack() as stack:
        if row is not None and row.off not in (ONE_MAP, SIGNAL_ITSELF):
            stack.enter_context(ablation.patched(row))
        verdict.text_words_of.cache_clear()  # words are kept with the stem length they were read with
        judges = {name: _judge(searchers[name]) for name in records}
        judged = signals(records, judges)
        maps = (IDENTITY, IDENTITY) if row is not None and row.off == SIGNAL_ITSELF else fitted_maps(
            records, judged, one_map=row is not None and row.off == ONE_MAP)

        def card_of(name, r, confidence):
            judgement = verdict.Judgement(verdict.STRONG, confidence, 0.0, 0.0, 0.0)
            searcher = searchers[name]
            return answer.answer_card(r["first"][0], judgement,
                                      verdict.question_terms(r["query"], answer.CARD_CARRIED_SHARE), "",
                                      r.get("vector"), lambda body: searcher.client.search(
                                          index=searcher.settings.opensearch.index_alias, body=body), r.get("units"),
                                      answer.asked_values(r["query"].asked), r["query"].lang)

        result = figures_of(records, judged, maps, card_of)
        verdict.text_words_of.cache_clear()
    return result


def _judge(searcher):
    """The first page's judgement as the searcher's verdict stage gives it (its corpus look-up included), through
    ``Searcher.judge`` itself: judging again records nothing."""
    from search.searcher import Retrieved, Searcher

    def judge(query, lists, first, principals):
        return Searcher.judge(searcher, query, Retrieved(lists, False), first, [], principals)[0]
    return judge


# -- the table --------------------------------------------------------------------------------------------------
def worth(figures_here: dict) -> int:
    return figures_here["cards_right"] - WRONG_CARD_COST * figures_here["cards_wrong"]


def measure(row: Row, figures_here: dict) -> int:
    return worth(figures_here) if row in CARD_ROWS else figures_here["verdict_right"]


def row_verdict(row: Row, mine: dict[str, dict], base: dict[str, dict]) -> str:
    """"keeps" when untuned it loses on two question files (``file_of``), else "candidate for removal"."""
    by_name = {e.name: e for e in evaluations()}
    losing = {file_of(by_name[name]) for name in mine if measure(row, mine[name]) < measure(row, base[name])}
    return "keeps" if len(losing) >= 2 else "candidate for removal"


def cell(row: Row, mine: dict, base: dict) -> str:
    """A verdict row's change of right verdicts ("-2"); a card row's change of right and wrong cards ("+3/+1")."""
    if row in CARD_ROWS:
        right, wrong = mine["cards_right"] - base["cards_right"], mine["cards_wrong"] - base["cards_wrong"]
        return "0" if not right and not wrong else f"{right:+d}/{wrong:+d}"
    change = mine["verdict_right"] - base["verdict_right"]
    return f"{change:+d}" if change else "0"


def label_of(e: Evaluation) -> str:
    return e.label or e.name.removeprefix("ooc-").replace("-on-", " on ").replace("conversations", "conv")


def table(results: dict[str, dict[str, dict]], seconds: float) -> str:
    """Today's holdout figures, then per row its number, untuned value, the change per evaluation and its verdict."""
    base = results["baseline"]
    columns = [e for e in evaluations() if e.name in base]
    lines = ["| number | untuned | " + " | ".join(label_of(e) for e in columns) + " | verdict |",
             "|---|---|" + "---|" * len(columns) + "---|",
             "| today: right verdicts / n | | " + " | ".join(
                 f"{base[e.name]['verdict_right']}/{base[e.name]['n']}" for e in columns) + " | |",
             "| today: cards right/wrong | | " + " | ".join(
                 f"{base[e.name]['cards_right']}/{base[e.name]['cards_wrong']}" for e in columns) + " | |"]
    for row in ROWS:
        if row.name not in results:
            continue
        mine = results[row.name]
        lines.append(f"| {row.what} | `{row.path}`: {row.off} | "
                     + " | ".join(cell(row, mine[e.name], base[e.name]) for e in columns)
                     + f" | {row_verdict(row, mine, base)} |")
    lines += ["", f"Holdout halves only, both maps fitted on the tune halves per row; verdict rows: right verdicts "
                  f"with the number untuned minus today's; card rows: right/wrong cards. By "
                  f"`scripts/verdict_ablation.py` ({time.strftime('%Y-%m-%d')}, {seconds:.0f} s of judging). "
                  f"{NEVER}: letters no word has, or more evidence than a page has retrieved. "
                  "Columns: " + "; ".join(f"{label_of(e)} = {e.name}" for e in columns) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench")
    parser.add_argument("--only", help="rows, comma separated: " + ", ".join(r.name for r in ROWS))
    parser.add_argument("--fresh", action="store_true", help="search again, even if records are on disk")
    args = parser.parse_args(argv)
    asked = [name for name in (args.only or "").split(",") if name]
    unknown = [name for name in asked if name not in {r.name for r in ROWS}]
    if unknown:
        print(f"verdict ablation: --only {','.join(unknown)}: no such row (known: "
              f"{', '.join(r.name for r in ROWS)})", file=sys.stderr)
        return 2
    wanted = [r for r in ROWS if not asked or r.name in asked]
    settings = load_settings()
    shared = Searchers(settings)
    records = recorded(shared, args.bench.resolve(), args.fresh)
    aliases = {e.name: e.alias for e in evaluations()}
    searchers = {name: shared.on(aliases[name]) for name in records}
    started = time.perf_counter()
    results = {"baseline": configuration(records, searchers, None)}
    for row in wanted:
        results[row.name] = configuration(records, searchers, row)
        print(f"verdict ablation: {row.name}: {row_verdict(row, results[row.name], results['baseline'])}",
              file=sys.stderr)
    body = table(results, time.perf_counter() - started)
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(body + "\n", encoding="utf-8")
    doc = ablation.DOC.read_text(encoding="utf-8")
    if MARKERS[0] in doc:
        ablation.DOC.write_text(figures.rewrite(doc, body, *MARKERS), encoding="utf-8")
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
