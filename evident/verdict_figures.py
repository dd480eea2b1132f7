"""``evident eval``'s figures of the verdict and the answer card (``search.verdict``, ``search.answer``).

Verdicts: how many first results are strong, weak and none; of the questions whose first page is right, the share
kept strong; of those whose first page is wrong (every question of an out-of-corpus set), the share called strong;
among strong first results, the rate of right pages beside their mean confidence; of the questions whose right page
comes below a first page that matches, how many show it under "Less related pages" (judged none). Cards: the share
of questions shown a right card, and the share of shown cards that are wrong; a card is right when what it shows (its
``context``, else its ``text``) holds ``CARD_RIGHT`` of the content words of the question's gold ``evidence`` (its
``answer`` without one). A page's metadata is a gold span as the Confluence API names it
("version.by.displayName: Friederike Sauer"): its field paths are no words a page shows, so only the values
count, and a timestamp ("version.when: 2025-02-05T07:40:19.000Z") counts as its day, what a page shows of it.
``calibration_fit`` is the monotone map from signal to confidence that the run's first results give
(``search.verdict.CALIBRATION``), ``follow_up_calibration_fit`` the same for the follow-ups read with carried terms
(``search.verdict.FOLLOW_UP_CALIBRATION``); ``calibration_points`` keeps each first result's signal, whether it was
right, whether it was such a follow-up and its half, so ``scripts/calibration.py`` can fit one map over several runs.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from search.query import words
from search.verdict import NONE, STRONG, VERDICTS, fold
from text.stopwords import stopwords

CARD_RIGHT = 0.8  # of the gold span's content words the card must hold: its answer, give or take a word
# Questions per bin of the calibration fit before the bins are pooled into a monotone map: enough for a rate to
# move by a few hundredths, not by one question.
CALIBRATION_BIN = 20
RATE_DECIMALS = 4
_FIELD_PATH = re.compile(r"\b[^\W\d]\w*(?:\.\w+)+:\s")  # "version.when: " of a metadata span; not "4.1: "
_TIME_OF_DAY = re.compile(r"(?<=\d{4}-\d\d-\d\d)T[\d:.]+(?:Z|[+-]\d\d:?\d\d)?")  # "T07:40:19.000Z" of an API timestamp


def card_right(card: dict | None, question: dict) -> bool | None:
    """Whether a card holds the question's gold span; None without a card or without a gold span."""
    gold = _TIME_OF_DAY.sub("", _FIELD_PATH.sub(" ", question.get("evidence") or question.get("answer") or ""))
    if card is None or not gold.strip():
        return None
    stop = stopwords(question.get("lang", "en") or "en")
    wanted = {w for w in words(fold(gold)) if w not in stop}
    if not wanted:
        return None
    held = set(words(fold(card.get("context") or card["text"])))
    return len(wanted & held) / len(wanted) >= CARD_RIGHT


def rate(part: int, whole: int) -> float:
    return round(part / whole, RATE_DECIMALS) if whole else 0.0


def verdict_figures(outcomes: list, half: Callable[[object], str] = lambda outcome: "") -> dict:
    """The verdicts' and cards' figures over ``outcomes`` (``evident.evaluation.Outcome``; ``half``: an outcome's
    half, ``tune`` or ``holdout``)."""
    n = len(outcomes)
    right = [o for o in outcomes if o.rank == 1]
    wrong = [o for o in outcomes if o.rank != 1]
    strong = [o for o in outcomes if o.verdict == STRONG]
    below = [o for o in outcomes if o.rank and o.rank > 1 and o.verdict != NONE]  # a right page under a matching one
    return {"verdicts": {v: rate(sum(o.verdict == v for o in outcomes), n) for v in VERDICTS},
            "not_strong": rate(n - len(strong), n),
            "strong_when_right": rate(sum(o.verdict == STRONG for o in right), len(right)),
            "strong_when_wrong": rate(sum(o.verdict == STRONG for o in wrong), len(wrong)),
            "right_when_strong": rate(sum(o.rank == 1 for o in strong), len(strong)),
            "confidence_when_strong": rate(sum(o.confidence for o in strong), len(strong)),
            "right_page_below": len(below), "right_page_set_apart": sum(o.set_apart for o in below),
            "cards": card_rates(outcomes),
            "calibration_fit": calibration_fit([(o.signal, o.rank == 1) for o in outcomes
                                                if o.urls and not o.follow_up]),
            "follow_up_calibration_fit": calibration_fit([(o.signal, o.rank == 1) for o in outcomes
                                                          if o.urls and o.follow_up]),
            "calibration_points": [[o.signal, int(o.rank == 1), int(o.follow_up), half(o)]
                                   for o in outcomes if o.urls]}


def card_rates(outcomes: list) -> dict:
    """Of ``outcomes``, the share shown a card, the share shown a right one, and the share of shown cards (with a
    gold span to judge them by) that are wrong."""
    cards = [card_right(o.card, o.question) for o in outcomes if o.card is not None]
    checked = [ok for ok in cards if ok is not None]
    return {"shown": rate(len(cards), len(outcomes)), "right": rate(sum(checked), len(outcomes)),
            "wrong_of_shown": rate(sum(not ok for ok in checked), len(checked))}


def calibration_fit(pairs: list[tuple[float, bool]]) -> list[list[float]]:
    """A monotone map from signal to the rate of right first results: bins of ``CALIBRATION_BIN`` results by
    signal (results of one signal share a bin: the map gives them one rate), adjacent bins pooled while a rate
    falls (pool adjacent violators); each as [lowest signal, rate]."""
    bins: list[list[tuple[float, bool]]] = []
    for signal, ok in sorted(pairs):  # a bin closes at its size, but never between results of one signal
        if not bins or (len(bins[-1]) >= CALIBRATION_BIN and signal != bins[-1][-1][0]):
            bins.append([])
        bins[-1].append((signal, ok))
    pooled: list[list] = []  # [lowest signal, right, count]
    for found in bins:
        pooled.append([found[0][0], sum(ok for _, ok in found), len(found)])
        while len(pooled) > 1 and pooled[-2][1] / pooled[-2][2] >= pooled[-1][1] / pooled[-1][2]:
            low, ok, count = pooled.pop()
            pooled[-1][1] += ok
            pooled[-1][2] += count
    return [[round(low, RATE_DECIMALS), rate(ok, count)] for low, ok, count in pooled]


def format_verdicts(result: dict) -> list[str]:
    """The verdict and card figures as lines under ``evident eval``'s table."""
    if "verdicts" not in result:
        return []
    v, c = result["verdicts"], result["cards"]
    return [f"verdicts: strong {v['strong']:.3f}, weak {v['weak']:.3f}, none {v['none']:.3f}; "
            f"not strong {result['not_strong']:.3f}",
            f"strong when the first page is right {result['strong_when_right']:.3f}, when wrong "
            f"{result['strong_when_wrong']:.3f}; right when strong {result['right_when_strong']:.3f} "
            f"(mean confidence {result['confidence_when_strong']:.3f})",
            f"right page below a matching first page: {result['right_page_below']}, shown as less related "
            f"{result['right_page_set_apart']}",
            f"answer cards: shown {c['shown']:.3f}, shown and right {c['right']:.3f}, wrong of shown "
            f"{c['wrong_of_shown']:.3f}"]
