"""Rewrite the figures table of docs/ranking.md from the JSON that `evident eval --json` wrote.

scripts/eval-bench.sh saves each evaluation's --json as build/figures/<name>.json (the evaluations of
scripts/evaluations.py) and runs this script at its end; run it alone to redo the table from saved files:

    python3 scripts/figures.py [--figures build/figures] [--doc docs/ranking.md]

Only the lines between the markers change. A row whose file is missing is left out, with a warning; no file at all
is an error. Standard library only, so any Python 3.11 runs it.
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- figures:start -->", "<!-- figures:end -->"
sys.path.insert(0, str(Path(__file__).resolve().parent))  # evaluations.py beside it, however this is loaded
from evaluations import EVALUATIONS, baseline_of  # noqa: E402 - scripts/evaluations.py: the one list

# title, the evaluation's file stem, the stem of its naive baseline (the previous question prepended) or None
ROWS = tuple((e.title, e.name, base.name if (base := baseline_of(e)) else None)
             for e in EVALUATIONS if not e.baseline)
# The stems of sets asked of another organisation's index: no page is right, the row shows the share not strong.
OUT_OF_CORPUS = frozenset(e.name for e in EVALUATIONS if e.out_of_corpus)
HEADER = ("| file, question | n | P@1 | hit@5 | MRR | en / de | tune / untouched half | baseline P@1 "
          "| restricted shown | strong: right / wrong first page | cards: right / wrong of shown |"
          "\n|---|---|---|---|---|---|---|---|---|---|---|")


def figure(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def pair(breakdown: dict, first: str, second: str) -> str:
    """P@1 of two groups of a breakdown ("0.883 / 0.963"); blank when the file has neither."""
    if first not in breakdown and second not in breakdown:
        return ""
    return " / ".join(figure(breakdown[key]["p_at_1"]) if key in breakdown else "–" for key in (first, second))


def verdict_cells(result: dict, out_of_corpus: bool) -> list[str]:
    """The verdict's cell (strong when the first page is right / wrong; "not strong" of an out-of-corpus set) and
    the cards' (shown and right / wrong of those shown); blank for a result without them."""
    if "verdicts" not in result:
        return ["", ""]
    strong = (f"not strong {figure(result['not_strong'])}" if out_of_corpus else
              f"{figure(result['strong_when_right'])} / {figure(result['strong_when_wrong'])}")
    cards = result["cards"]
    return [strong, "" if out_of_corpus else f"{figure(cards['right'])} / {figure(cards['wrong_of_shown'])}"]


def row(label: str, result: dict, baseline: dict | None = None, out_of_corpus: bool = False) -> str:
    """One line of the table from one `evident eval --json` result (and its baseline's)."""
    restricted = result.get("restricted", {})
    shown = f"{restricted.get('leaks', 0)} of {restricted['n']}" if restricted.get("n") else ""
    cells = [label, str(result["n"]), figure(result["p_at_1"]), figure(result["hit_at_5"]), figure(result["mrr"]),
             pair(result.get("by_lang", {}), "en", "de"), pair(result.get("by_split", {}), "tune", "holdout"),
             figure(baseline["p_at_1"]) if baseline else "", shown, *verdict_cells(result, out_of_corpus)]
    return "| " + " | ".join(cells) + " |"


def table(results: dict[str, dict], date: str) -> str:
    """The text between the markers: the table of the rows whose results are there, and a line saying when."""
    lines = [HEADER, *(row(label, results[stem], results.get(base) if base else None, stem in OUT_OF_CORPUS)
                       for label, stem, base in ROWS if stem in results)]
    failed = sum(len(results[stem].get("failed", [])) for _, stem, _ in ROWS if stem in results)
    note = f" {failed} searches failed and count as misses." if failed else ""
    lines += ["", f"Measured on {date} by `scripts/eval-bench.sh` (fresh ingests).{note} "
                  "`scripts/figures.py` rewrites this table."]
    return "\n".join(lines)


def rewrite(doc: str, body: str, start: str = START, end: str = END) -> str:
    """``doc`` with what stands between the markers ``start`` and ``end`` replaced by ``body``."""
    if doc.count(start) != 1 or doc.count(end) != 1 or doc.index(start) > doc.index(end):
        raise ValueError(f"the document needs one {start} and, after it, one {end}")
    head, rest = doc.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{body}\n{end}{tail}"


def load(folder: Path) -> tuple[dict[str, dict], str]:
    """The results found in ``folder`` by stem, and the day the newest of them was written."""
    stems = {stem for _, stem, base in ROWS for stem in (stem, base) if stem}
    paths = {stem: folder / f"{stem}.json" for stem in stems if (folder / f"{stem}.json").is_file()}
    results = {stem: json.loads(path.read_text(encoding="utf-8")) for stem, path in paths.items()}
    newest = max((path.stat().st_mtime for path in paths.values()), default=0.0)
    return results, datetime.date.fromtimestamp(newest).isoformat()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=Path, default=ROOT / "build" / "figures",
                        help="folder of the --json files (default build/figures)")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "ranking.md", help="the document to rewrite")
    args = parser.parse_args(argv)
    results, date = load(args.figures)
    if not any(stem in results for _, stem, _ in ROWS):
        print(f"figures: no evaluation found in {args.figures}; run scripts/eval-bench.sh first", file=sys.stderr)
        return 1
    for label, stem, _ in ROWS:
        if stem not in results:
            print(f"figures: {args.figures / (stem + '.json')} is missing: row {label!r} left out", file=sys.stderr)
    try:
        args.doc.write_text(rewrite(args.doc.read_text(encoding="utf-8"), table(results, date)), encoding="utf-8")
    except ValueError as exc:
        print(f"figures: {args.doc}: {exc}", file=sys.stderr)
        return 1
    print(f"figures: {args.doc} rewritten from {len(results)} files in {args.figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
