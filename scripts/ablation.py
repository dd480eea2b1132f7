"""The ablation of issue 47: each ranking heuristic switched off alone, P@1 on every question file with and without it.

Why: a heuristic earns its place by the questions it wins. Each row of the table is one heuristic that a setting
switches off (a weight set to 0, a boolean off, an empty value), or one tuned number set to the value it would
have untuned (``NUMBERS``); each cell is what P@1 of one evaluation of ``scripts/eval-bench.sh`` moves by when it
is off. Its verdict is "keeps" when switching it off loses at least one question on two different question files
(raw and completed of one file are one file), else "candidate for removal".

What issue 47 caps (tuned numbers and heuristics) is counted by ``scripts/inventory.py``.

The models load once: every configuration's Searcher shares the embedders, lemmatizer and word list of the first
(``dataclasses.replace`` on the settings, as ``evident.evaluation.searcher_on`` does for an index). Each
(configuration, evaluation) result is written to build/figures/ablation/<config>/<evaluation>.json when it is done,
and a rerun keeps what is there, so an interrupted run resumes; ``--fresh`` asks again what this run selects.
The table goes between the markers of docs/ranking.md ("## Ablation") and to build/figures/ablation.md, rewritten
from every result on disk. Needs the stack and the indices of ``bash scripts/eval-bench.sh`` (evalbench,
evalharbor); it never ingests. About 1,300 searches a configuration (0.1 to 0.2 s each on two busy cores, so 3 to 5
minutes; the baseline and 15 heuristics under an hour): pick a subset with ``--only`` (``baseline`` alone runs
the baseline only) and ``--files``.

    .venv/bin/python scripts/ablation.py [--bench ../shared/bench] [--only NAME,...] [--files GLOB,...]
                                         [--fresh]
"""
from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import hashlib
import importlib
import json
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from core.embedding import limit_native_threads
from core.settings import PROJECT_ROOT as ROOT
from core.settings import Settings, load_settings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # figures.py, evaluations.py beside it, however loaded
import figures  # noqa: E402 - scripts/figures.py: the markers' rewrite
from evaluations import Evaluation, ablated  # noqa: E402 - scripts/evaluations.py: the one list


RESULTS = ROOT / "build" / "figures" / "ablation"
TABLE = ROOT / "build" / "figures" / "ablation.md"
DOC = ROOT / "docs" / "ranking.md"
START, END = "<!-- ablation:start -->", "<!-- ablation:end -->"
NUMBERS_MARKERS = ("<!-- ablation-numbers:start -->", "<!-- ablation-numbers:end -->")
BASELINE = "baseline"  # the configuration of today's settings, what every row is compared with
CREATE_ALIAS = "bash scripts/eval-bench.sh (it ingests the bench into evalbench and evalharbor)"
# The code a search and its evaluation run: a result on disk of other code (or other settings) is asked again.
FINGERPRINTED = ("search", "text", "core", "evident/evaluation.py")


EVALUATIONS = ablated()  # each evaluation with a column of its own (scripts/evaluations.py)


@dataclass(frozen=True)
class Heuristic:
    """A heuristic a setting switches off, or a tuned number set to its untuned value: ``path`` is section.field
    of ``Settings`` or module.NAME of a ``search/`` module, ``off`` the value that does."""

    path: str
    off: object
    what: str

    @property
    def name(self) -> str:
        return self.path.split(".")[-1].lower()

    @property
    def is_setting(self) -> bool:
        return self.path.split(".")[0] in SECTIONS


HEURISTICS = (
    Heuristic("search.dense_weight", 0.0, "the k-NN list of the context view"),
    Heuristic("search.foreign_dense_share", 0.0, "the k-NN lists of a foreign question, as written and translated"),
    Heuristic("search.page_support", (), "a page's next best evidence adding to its score"),
    Heuristic("search.history", False, "a follow-up read with its conversation"),
    Heuristic("search.carried_boost", 0.0, "terms carried from earlier turns (still matched, at weight 0)"),
    Heuristic("search.prior_weight", 0.0, "the prior of the pages shown for earlier turns"),
    Heuristic("search.twin_penalty", 0.0, "template twins set back"),
    Heuristic("search.term_weight", 0.0, "index-term anchors and acronym definitions lifted"),
    Heuristic("search.lexicon", "", "translations through the German-English word list"),
    Heuristic("search.corpus_senses", False, "translations by the senses the corpus holds"),
    Heuristic("search.spelling", False, "spelling, run-together words and compounds"),
    Heuristic("search.acronyms", False, "acronyms searched beside their long form"),
    Heuristic("search.sentence_weight", 0.0, "the sentence stage"),
    Heuristic("search.collapse_duplicates", False, "near-duplicate pages folded into one result"),
)
# Tuned numbers, each at the value it would have untuned: a field or a share unboosted (1), no fade-out (0), the
# plain power (1), every word kept (1 letter), every word checked for spelling, the suggester's likeness.
# A constant is read when a search runs, so it is set on its module while its configuration is evaluated; one the word
# list's loading reads (``LOADED``) is set while the list is loaded again for its configuration. The depth each
# ranked list fetches is untuned at OpenSearch's default size (10 hits), the near-duplicate fold's distance at the
# value its method was published with (3 of 64 SimHash bits, Manku et al. 2007).
NUMBERS = (
    Heuristic("retrievers.TITLE_BOOST", 1, "a title's BM25 boost"),
    Heuristic("retrievers.FIELD_BOOST", 1, "the evidence's own fields' BM25 boost (words, headings, keywords, lemmas)"),
    Heuristic("search.translation_boost", 1.0, "a translated word's BM25 weight"),
    Heuristic("conversation.TERM_DECAY", 1.0, "an earlier turn's share per turn back"),
    Heuristic("conversation.MIN_SHARE", 0.0, "the share below which an earlier turn has faded out"),
    Heuristic("priors.DEFINITION_SHARE_POWER", 1, "the power of an acronym's share lifting its definition"),
    Heuristic("query._MIN_TERM_CHARS", 1, "the letters a searched word has at least"),
    Heuristic("spelling.MIN_SIMILARITY", 0.5, "the likeness a suggestion needs (the term suggester's default)"),
    Heuristic("spelling.KNOWN_WORD_LOG_PROB", 0.0,
              "how rare a word is to be checked for spelling or split (every word)"),
    Heuristic("conversation.STANDALONE_TERMS", 1, "a follow-up's own terms for the embedder to read it alone"),
    Heuristic("conversation._PRIOR_RESULTS", 10, "an earlier turn's results given the prior (every one shown)"),
    Heuristic("lexicon.TRANSLATIONS_PER_TERM", 4, "the translations of a word searched (every one the list keeps)"),
    Heuristic("lexicon._MAX_WORDS", 99, "the words of a dictionary phrase kept as a translation (every phrase)"),
    Heuristic("lexicon._KEPT_TRANSLATIONS", 99, "the senses the word list keeps a word (every one)"),
    Heuristic("search.candidates", 10, "the evidence each ranked list fetches (OpenSearch's default size)"),
    Heuristic("search.near_duplicate_bits", 3, "the near-duplicate fold's distance (the published 3 of 64 bits)"),
)
LOADED = {"lexicon._MAX_WORDS", "lexicon._KEPT_TRANSLATIONS"}  # read as the word list loads, not as a search runs
_RELOADED: dict[str, object] = {}  # each of ``LOADED``'s word lists, loaded under its row's value
SECTIONS = ("search", "rerank")  # the sections of ``Settings`` whose fields a row may switch


# -- configurations and runs -----------------------------------------------------------------------------------
def configured(settings: Settings, heuristic: Heuristic | None) -> Settings:
    """``settings`` with ``heuristic`` off (as they are for the baseline, None, and for a constant's row)."""
    if heuristic is None or not heuristic.is_setting:
        return settings
    section, name = heuristic.path.split(".")
    return dataclasses.replace(settings, **{section: dataclasses.replace(getattr(settings, section),
                                                                         **{name: heuristic.off})})


@contextmanager
def patched(heuristic: Heuristic | None) -> Iterator[None]:
    """A ``search/`` constant at its row's value meanwhile; nothing for a setting's row or the baseline."""
    if heuristic is None or heuristic.is_setting:
        yield
        return
    module_name, name = heuristic.path.split(".")
    module = importlib.import_module(f"search.{module_name}")
    kept = getattr(module, name)
    setattr(module, name, heuristic.off)
    try:
        yield
    finally:
        setattr(module, name, kept)


def selected(only: str | None, files: str | None) -> tuple[list[Heuristic], list[Evaluation]]:
    """The heuristics named in ``only`` (all without it; ``baseline`` alone: none, the baseline always runs) and
    the evaluations whose name matches a glob of ``files`` (all without it); a name or glob that selects nothing
    is an error naming what exists."""
    heuristics = [*HEURISTICS, *NUMBERS]
    if only:
        by_name = {h.name: h for h in heuristics}
        unknown = [n for n in only.split(",") if n and n not in by_name and n != BASELINE]
        if unknown:
            raise ValueError(f"--only {','.join(unknown)}: no such heuristic (known: {BASELINE}, "
                             f"{', '.join(by_name)})")
        heuristics = [by_name[n] for n in dict.fromkeys(only.split(",")) if n in by_name]
    evaluations = list(EVALUATIONS)
    if files:
        globs = [g for g in files.split(",") if g]
        evaluations = [e for e in EVALUATIONS if any(fnmatch.fnmatchcase(e.name, g) for g in globs)]
        if not evaluations:
            raise ValueError(f"--files {files}: matches no evaluation "
                             f"(known: {', '.join(e.name for e in EVALUATIONS)})")
    return heuristics, evaluations


def result_path(config: str, evaluation: Evaluation, folder: Path | None = None) -> Path:
    return (folder or RESULTS) / config / f"{evaluation.name}.json"


def searcher_for(first, settings: Settings, heuristic: Heuristic | None = None):
    """A Searcher on ``settings`` with the models of ``first``, given as ``Searcher.from_settings`` would: no word
    list when ``search.lexicon`` is empty, one loaded anew under ``heuristic`` when the loading reads it
    (``LOADED``). The multilingual model stays whatever its stage's weight, so the cross-lingual list it also feeds
    is not switched off with the stage."""
    from search.lexicon import Lexicon
    from search.searcher import Searcher

    lexicon = first.lexicon if settings.search.lexicon else None
    if heuristic is not None and heuristic.path in LOADED and lexicon is not None:
        if heuristic.path not in _RELOADED:  # once a run: a configuration's searcher is made anew for each alias
            with patched(heuristic):
                _RELOADED[heuristic.path] = Lexicon.from_ding(settings.search.lexicon)
        lexicon = _RELOADED[heuristic.path]
    return Searcher(settings, first.client, first.embedder, first.lemmatizer, lexicon, first.reranker,
                    first.rewriter, first.multilingual_embedder)


def check_alias(client, alias: str) -> None:
    """An alias that is not there is an error saying how to make it; so is an OpenSearch that does not answer."""
    from opensearchpy.exceptions import ConnectionError as NoAnswer

    try:
        there = client.indices.exists_alias(name=alias) or client.indices.exists(index=alias)
    except NoAnswer as exc:
        raise SystemExit(f"ablation: OpenSearch does not answer ({exc}); start the stack: .venv/bin/evident "
                         "services up") from None
    if not there:
        raise SystemExit(f"ablation: the index alias {alias!r} does not exist; create it with {CREATE_ALIAS}")


def evaluate(searcher, evaluation: Evaluation, questions: list[dict], config: str, heuristic: Heuristic | None,
             label: str) -> dict:
    """One evaluation through ``evident.evaluation`` with progress on stderr: its report, each question's rank."""
    from tqdm import tqdm

    from evident.evaluation import report, run

    started = time.perf_counter()
    with tqdm(total=len(questions), unit="q", desc=label, file=sys.stderr, leave=False) as bar:
        outcomes = run(searcher, questions, field_name=evaluation.field, progress=lambda n: bar.update(1))
    return {"config": config, "setting": heuristic.path if heuristic else None,
            "value": heuristic.off if heuristic else None, "evaluation": evaluation.name,
            "questions": evaluation.path, "field": evaluation.field, "alias": evaluation.alias,
            "seconds": round(time.perf_counter() - started, 1),
            "ranks": {o.question.get("id", str(n)): o.rank for n, o in enumerate(outcomes)},
            "right": sum(o.rank == 1 for o in outcomes), "report": report(outcomes)}


def write_json(path: Path, data: dict) -> None:
    """Written whole or not at all: a run stopped mid-write leaves no result a rerun would keep."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".json.part")
    part.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    part.replace(path)


def fingerprint(settings: Settings, root: Path = ROOT) -> str:
    """What a result depends on besides the index: the code of ``FINGERPRINTED`` and the ranking settings."""
    digest = hashlib.sha1()
    for name in FINGERPRINTED:
        for path in sorted((root / name).rglob("*.py")) if (root / name).is_dir() else [root / name]:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update(repr((settings.search, settings.rerank, settings.embedding)).encode())
    return digest.hexdigest()[:12]


def done(config: str, heuristic: Heuristic | None, evaluation: Evaluation, code: str) -> bool:
    """Whether a result of this configuration and evaluation is on disk, of the same ``code`` (``fingerprint``)
    and for the off value switched today."""
    path = result_path(config, evaluation)
    if not path.is_file():
        return False
    kept = json.loads(path.read_text(encoding="utf-8"))
    same_value = heuristic is None or kept.get("value") == json.loads(json.dumps(heuristic.off))
    return kept.get("code") == code and same_value


def run_all(settings: Settings, heuristics: list[Heuristic], evaluations: list[Evaluation], bench: Path) -> None:
    """The baseline, then each heuristic off, over each evaluation, one Searcher per configuration and alias; a
    result already on disk is kept; a bench file that is missing is skipped, any other missing file is an error."""
    from core.index import connect
    from evident.evaluation import load_questions
    from search.searcher import Searcher

    present = [e for e in evaluations if e.questions(bench).is_file()]
    for e in evaluations:
        if e not in present:
            if not e.bench:
                raise SystemExit(f"ablation: {e.questions(bench)}: no such questions file")
            print(f"ablation: {e.questions(bench)} is missing: {e.name} skipped (--bench)", file=sys.stderr)
    configs: list[tuple[str, Heuristic | None]] = [(BASELINE, None), *((h.name, h) for h in heuristics)]
    code = fingerprint(settings)
    todo = [(c, h, e) for c, h in configs for e in present if not done(c, h, e, code)]
    print(f"ablation: {len(todo)} of {len(configs) * len(present)} evaluations to run "
          f"({len(configs)} configurations, {len(present)} files)", file=sys.stderr)
    if not todo:
        return
    client = connect(settings)
    for alias in dict.fromkeys(e.alias for _, _, e in todo):
        check_alias(client, alias)
    limit_native_threads(settings.embedding.threads)  # as `evident eval` runs: the same question vectors
    first = Searcher.from_settings(settings, client)
    first.warm_up()
    questions = {e.name: load_questions(e.questions(bench)) for e in present}
    searchers: dict[tuple[str, str], object] = {}
    for step, (config, heuristic, evaluation) in enumerate(todo, start=1):
        if (config, evaluation.alias) not in searchers:
            on_alias = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch,
                                                                                   index_alias=evaluation.alias))
            searchers = {(config, evaluation.alias): searcher_for(first, configured(on_alias, heuristic), heuristic)}
        label = f"[{step}/{len(todo)}] {config} {evaluation.name}"
        with patched(heuristic):
            result = evaluate(searchers[config, evaluation.alias], evaluation, questions[evaluation.name], config,
                              heuristic, label) | {"code": code}
        write_json(result_path(config, evaluation), result)
        failed = len(result["report"]["failed"])
        print(f"{label}: P@1 {result['report']['p_at_1']:.3f} ({result['right']} of {result['report']['n']}) in "
              f"{result['seconds']} s" + (f", {failed} searches FAILED (counted as misses)" if failed else ""),
              file=sys.stderr)


# -- the table -------------------------------------------------------------------------------------------------
def load_results(folder: Path = RESULTS) -> dict[str, dict[str, dict]]:
    """Every result on disk: configuration -> evaluation name -> result."""
    out: dict[str, dict[str, dict]] = {}
    for path in sorted(folder.glob("*/*.json")):
        out.setdefault(path.parent.name, {})[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    return out


def change(result: dict, base: dict) -> str:
    """P@1 off minus P@1 on, as the table shows it ("-0.008", "0"); "!" marks failed searches."""
    delta = (result["right"] - base["right"]) / base["report"]["n"] if base["report"]["n"] else 0.0
    failed = "!" if result["report"]["failed"] or base["report"]["failed"] else ""
    return (f"{delta:+.3f}" if result["right"] != base["right"] else "0") + failed


def verdict(results: dict[str, dict], base: dict[str, dict], expected: int) -> str:
    """"keeps" when switching the heuristic off loses a question on two different question files; else "candidate
    for removal", or "incomplete" while files it has not been run on could still make two."""
    compared = [name for name in results if name in base]
    losing = {results[name]["questions"] for name in compared if results[name]["right"] < base[name]["right"]}
    if len(losing) >= 2:
        return "keeps"
    if len(compared) < expected:
        return f"incomplete ({len(compared)} of {expected})"
    return "candidate for removal"


def table(results: dict[str, dict[str, dict]], evaluations: tuple[Evaluation, ...] = EVALUATIONS,
          rows: tuple[Heuristic, ...] = HEURISTICS) -> str:
    """The markdown table of ``rows`` (the heuristics, or the tuned numbers): today's P@1 first, then per row its
    setting or constant, off value, the P@1 change per evaluation and its verdict; columns for the evaluations
    some result has."""
    base = results.get(BASELINE, {})
    columns = [e for e in evaluations if any(e.name in by_file for by_file in results.values())]
    what, switched = ("heuristic", "setting: off") if rows is HEURISTICS else ("tuned number", "untuned")
    lines = [f"| {what} | {switched} | " + " | ".join(e.label for e in columns) + " | verdict |",
             "|---|---|" + "---|" * len(columns) + "---|",
             "| today's P@1 (n) | | " + " | ".join(
                 f"{base[e.name]['report']['p_at_1']:.3f} ({base[e.name]['report']['n']})" if e.name in base else ""
                 for e in columns) + " | |"]
    shown = [BASELINE]
    for h in rows:
        mine = results.get(h.name, {})
        if not mine:
            continue
        shown.append(h.name)
        cells = [change(mine[e.name], base[e.name]) if e.name in mine and e.name in base else "" for e in columns]
        lines.append(f"| {h.what} | `{h.path}`: {json.dumps(h.off)} | " + " | ".join(cells)
                     + f" | {verdict(mine, base, len(evaluations))} |")
    kept = [r for name in shown for r in results.get(name, {}).values()]
    seconds = sum(r["seconds"] for r in kept)
    failed = sum(len(r["report"]["failed"]) for r in kept)
    codes = {r.get("code") for r in kept}
    lines += ["", f"P@1 with the {'heuristic off' if rows is HEURISTICS else 'number untuned'} minus today's, by "
                  f"`scripts/ablation.py` ({time.strftime('%Y-%m-%d')}, {seconds / 60:.1f} minutes of searching). "
                  "Columns: " + "; ".join(f"{e.label} = {e.name}" for e in columns) + "."
              + (f" {failed} searches failed (\"!\"), counted as misses." if failed else "")
              + (f" Results of {len(codes)} versions of the code or settings: run again to ask the older anew."
                 if len(codes) > 1 else "")]
    return "\n".join(lines)


def rewrite(doc: str, body: str, markers: tuple[str, str] = (START, END)) -> str:
    """``doc`` with what stands between ``markers`` replaced by ``body``."""
    return figures.rewrite(doc, body, *markers)


def write_table(doc: Path = DOC, out: Path = TABLE, folder: Path = RESULTS) -> bool:
    """Each table with a row on disk in ``folder`` into ``doc`` and ``out`` (a table with none keeps what the
    document has); False when there is no result yet."""
    results = load_results(folder)
    parts = [(table(results, rows=rows), markers) for rows, markers in ((HEURISTICS, (START, END)),
                                                                          (NUMBERS, NUMBERS_MARKERS))
             if any(h.name in results for h in rows)]
    if not parts:
        return False
    text = doc.read_text(encoding="utf-8")
    for body, markers in parts:
        text = rewrite(text, body, markers)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join(body for body, _ in parts) + "\n", encoding="utf-8")
    doc.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench",
                        help="the bench's folder (questions.jsonl, conversations.jsonl); its files are skipped when "
                             "missing (default ../shared/bench)")
    parser.add_argument("--only", help=f"heuristics to switch off and numbers to untune, comma separated "
                        f"({BASELINE}: none, the baseline alone): "
                        + ", ".join(h.name for h in (*HEURISTICS, *NUMBERS)))
    parser.add_argument("--files", help="evaluations whose name matches one of these globs, comma separated: "
                        + ", ".join(e.name for e in EVALUATIONS))
    parser.add_argument("--fresh", action="store_true", help="ask again what is selected, even if on disk")
    args = parser.parse_args(argv)
    try:
        heuristics, evaluations = selected(args.only, args.files)
    except ValueError as exc:
        print(f"ablation: {exc}", file=sys.stderr)
        return 2
    settings = load_settings()
    if args.fresh:
        for config in [BASELINE, *(h.name for h in heuristics)]:
            for e in evaluations:
                result_path(config, e).unlink(missing_ok=True)
    run_all(settings, heuristics, evaluations, args.bench.resolve())
    try:
        written = write_table()
    except ValueError as exc:
        print(f"ablation: {DOC}: {exc}", file=sys.stderr)
        return 1
    print(f"ablation: {'table written to ' + str(DOC) + ' and ' + str(TABLE) if written else 'no result yet'}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
