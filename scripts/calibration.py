"""Fit the verdict's follow-up map (``search.verdict.FOLLOW_UP_CALIBRATION``) over every evaluation at once.

Each ``evident eval --json`` keeps its first results' ``calibration_points`` (signal, right, read as a follow-up,
half). This script pools the follow-ups of the tune halves of every evaluation that scripts/eval-bench.sh saved
(scripts/evaluations.py, the naive baselines left out: their follow-ups are read without the conversation), in-corpus
and out-of-corpus alike, and prints the monotone map that ``evident.verdict_figures.calibration_fit`` gives them:

    .venv/bin/python scripts/calibration.py [--figures build/figures]

Paste the printed line into search/verdict.py. The untouched halves stay for the figures table to report.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the project's packages, however this is run
sys.path.insert(0, str(Path(__file__).resolve().parent))  # evaluations.py beside it
from evaluations import EVALUATIONS  # noqa: E402 - scripts/evaluations.py: the one list
from evident.verdict_figures import calibration_fit  # noqa: E402

TUNE = "tune"


def follow_up_points(figures: Path) -> tuple[list[tuple[float, bool]], list[str]]:
    """The (signal, right) of every follow-up of a tune half in the saved evaluations, and what was left out: each
    evaluation whose file is missing, or is not the ``--json`` of ``evident eval``, with the reason."""
    points, left_out = [], []
    for evaluation in EVALUATIONS:
        if evaluation.baseline:
            continue
        path = figures / f"{evaluation.name}.json"
        if not path.is_file():
            left_out.append(f"{path}: missing")
            continue
        try:
            found = [(float(signal), bool(right)) for signal, right, follow_up, half
                     in json.loads(path.read_text(encoding="utf-8")).get("calibration_points", [])
                     if follow_up and half == TUNE]
        except (ValueError, TypeError, AttributeError) as exc:  # not JSON, or points of another shape
            left_out.append(f"{path}: not the --json of evident eval ({exc})")
            continue
        points += found
    return points, left_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=Path, default=ROOT / "build" / "figures")
    args = parser.parse_args(argv)
    points, left_out = follow_up_points(args.figures)
    for why in left_out:
        print(f"calibration: {why}; fitted without it", file=sys.stderr)
    if not points:
        print(f"calibration: no follow-up of a tune half in {args.figures}", file=sys.stderr)
        return 1
    fitted = ", ".join(f"({low}, {rate})" for low, rate in calibration_fit(points))
    print(f"# {len(points)} follow-ups of the tune halves")
    print(f"FOLLOW_UP_CALIBRATION: tuple[tuple[float, float], ...] = ({fitted})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
