"""A search's profile: each stage's time and OpenSearch round trips, and the Server-Timing header they make."""
from __future__ import annotations

from core.profile import (TOTAL, Profile, StageFigures, count_round_trip, parse_server_timing, recording,
                          server_timing, timed_stages)


@timed_stages({"look_up": "lookup", "rank": "rank"})
class TwoStages:
    def look_up(self) -> str:
        count_round_trip()
        count_round_trip()
        return "found"

    def rank(self, found: str) -> str:
        return found.upper()


def test_the_stages_run_inside_a_recording_fill_it_in_the_order_they_ran():
    with recording() as profile:
        count_round_trip()  # outside any stage: in the total only
        assert TwoStages().rank(TwoStages().look_up()) == "FOUND"
    assert list(profile.stages) == ["lookup", "rank", TOTAL]
    assert profile.stages["lookup"].round_trips == 2 and profile.stages["rank"].round_trips == 0
    assert profile.stages[TOTAL].round_trips == 3
    assert profile.stages[TOTAL].ms >= profile.stages["lookup"].ms + profile.stages["rank"].ms


def test_outside_a_recording_the_stages_run_as_they_are():
    count_round_trip()
    assert TwoStages().look_up() == "found"


def test_the_header_names_each_stage_with_its_duration_and_its_round_trips():
    profile = Profile(stages={"spelling": StageFigures(1.234), "retrieve": StageFigures(11.0, 1),
                              "sentences": StageFigures(2.05, 2), TOTAL: StageFigures(30.46, 3)})
    header = server_timing(profile)
    assert header == ('spelling;dur=1.2, retrieve;desc="1 round trip";dur=11.0, '
                      'sentences;desc="2 round trips";dur=2.0, total;desc="3 round trips";dur=30.5')
    assert parse_server_timing(header) == {"spelling": StageFigures(1.2), "retrieve": StageFigures(11.0, 1),
                                           "sentences": StageFigures(2.0, 2), TOTAL: StageFigures(30.5, 3)}


def test_a_header_from_elsewhere_is_read_as_far_as_it_makes_sense():
    assert parse_server_timing('cache;desc="hit", db;dur=53, app;dur=fast, ;dur=1') == {
        "cache": StageFigures(0.0), "db": StageFigures(53.0)}
    assert parse_server_timing("") == {}
