"""Where a search's time goes: each named stage's milliseconds and OpenSearch round trips, per request.

A caller opens ``recording()`` around one search; the stages it runs fill it (``timed_stages`` wraps a class's
stage methods in one place) and every request the OpenSearch client sends is counted to the stage running
(``CountingTransport``, the transport ``core.index.connect`` gives every client). Outside a recording the
stages run as they are and nothing is counted. The recording lives in a context variable, so each request
thread of the API fills its own. ``server_timing`` writes a recording as an HTTP ``Server-Timing`` header
(``spelling;dur=1.2, retrieve;desc="1 round trip";dur=11.0, ..., total;dur=30.5``), which a browser's
developer tools show and ``parse_server_timing`` reads back (``evident bench --profile``).
"""
from __future__ import annotations

import functools
import re
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator

from opensearchpy import Transport

TOTAL = "total"  # the whole search, stages and what runs between them
DURATION_DECIMALS = 1  # a tenth of a millisecond: finer is noise on a busy machine
ROUND_TRIPS = re.compile(r"(\d+) round trips?")
METRIC = re.compile(r'^\s*([\w.-]+)((?:\s*;\s*\w+\s*=\s*(?:"[^"]*"|[^;,\s]*))*)\s*$')
PARAM = re.compile(r'(\w+)\s*=\s*("[^"]*"|[^;,\s]*)')


@dataclass
class StageFigures:
    """One stage of one search (or, for ``TOTAL``, the whole of it)."""

    ms: float = 0.0
    round_trips: int = 0


@dataclass
class Profile:
    """One search's stages in the order they ran; ``TOTAL`` once the recording closes."""

    stages: dict[str, StageFigures] = field(default_factory=dict)
    running: list[str] = field(default_factory=list)  # the stage a round trip is counted to: the innermost
    started: float = field(default_factory=time.perf_counter)


_recording: ContextVar[Profile | None] = ContextVar("evident_profile", default=None)


@contextmanager
def recording() -> Iterator[Profile]:
    """A profile the stages run inside the block fill; its ``TOTAL`` is the block's time and round trips."""
    profile = Profile()
    token = _recording.set(profile)
    try:
        yield profile
    finally:
        _recording.reset(token)
        trips = sum(stage.round_trips for stage in profile.stages.values())
        profile.stages.pop("", None)  # the round trips counted outside any stage: in the total only
        profile.stages[TOTAL] = StageFigures((time.perf_counter() - profile.started) * 1000, trips)


def count_round_trip() -> None:
    profile = _recording.get()
    if profile is not None:
        name = profile.running[-1] if profile.running else ""
        profile.stages.setdefault(name, StageFigures()).round_trips += 1


def _timed(name: str, method):
    @functools.wraps(method)
    def run(*args, **kwargs):
        profile = _recording.get()
        if profile is None:
            return method(*args, **kwargs)
        figures = profile.stages.setdefault(name, StageFigures())
        profile.running.append(name)
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            figures.ms += (time.perf_counter() - started) * 1000
            profile.running.pop()
    return run


def timed_stages(stages: dict[str, str]):
    """A class decorator: each method named in ``stages`` (method name -> stage name) timed into the recording
    open when it runs. A name the class lacks is an error at import, so a renamed stage is not lost quietly."""
    def wrap(cls):
        for method_name, stage_name in stages.items():
            setattr(cls, method_name, _timed(stage_name, getattr(cls, method_name)))
        return cls
    return wrap


class CountingTransport(Transport):
    """opensearch-py's transport, each request it sends counted to the recording open (one round trip; its
    retries are the transport's own)."""

    def perform_request(self, *args, **kwargs):
        count_round_trip()
        return super().perform_request(*args, **kwargs)


def server_timing(profile: Profile) -> str:
    """The ``Server-Timing`` header of a recording: each stage with its duration, and a description with its
    round trips when it made any."""
    metrics = []
    for name, figures in profile.stages.items():
        trips = (f';desc="{figures.round_trips} round trip{"" if figures.round_trips == 1 else "s"}"'
                 if figures.round_trips else "")
        metrics.append(f"{name}{trips};dur={figures.ms:.{DURATION_DECIMALS}f}")
    return ", ".join(metrics)


def parse_server_timing(header: str) -> dict[str, StageFigures]:
    """The stages of a ``Server-Timing`` header as ``server_timing`` writes it (a metric without a duration
    counts 0 ms; a malformed one is left out)."""
    out = {}
    for metric in header.split(","):
        matched = METRIC.match(metric)
        if not matched:
            continue
        params = {key.lower(): value.strip('"') for key, value in PARAM.findall(matched.group(2))}
        try:
            ms = float(params.get("dur", 0))
        except ValueError:
            continue
        trips = ROUND_TRIPS.search(params.get("desc", ""))
        out[matched.group(1)] = StageFigures(ms, int(trips.group(1)) if trips else 0)
    return out
