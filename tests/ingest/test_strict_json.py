"""JSON that Python's reader would settle silently or fail on in its own words is refused with a sentence."""
from __future__ import annotations

import json

import pytest

from ingest.strict_json import UnreadableJson, load_json


def _reason(data: bytes) -> str:
    with pytest.raises(UnreadableJson) as info:
        load_json(data)
    return str(info.value)


def test_a_key_given_twice_is_refused_naming_the_key():
    data = b'{"id": "1", "restrictions": {"group": ["hr-team"]}, "restrictions": {}}'
    assert _reason(data) == ("the key 'restrictions' appears twice in one object, so which of its values holds is "
                             "unclear (JSON readers differ: some keep the first, some the last) and not guessed")
    assert "'name'" in _reason(b'{"a": [{"name": "x", "name": "y"}]}')  # at any depth


def test_a_number_too_long_to_read_is_refused_in_a_sentence():
    assert _reason(b'{"n": -' + b"9" * 5_000 + b"}") == (
        "it holds a number of 5,000 digits, more than can be read (4,300 at most)")


@pytest.mark.parametrize("data, where", [(rb'{"title": "a\ud800b"}', "under the key 'title'"),
                                         (rb'{"labels": [["ok", "\udfff"]]}', "under the key 'labels'"),
                                         (rb'{"\ud800": 1}', "under the key '\\ud800'"),
                                         (rb'["\ud800"]', "at the top")])
def test_a_lone_surrogate_escape_is_refused_saying_where(data, where):
    assert _reason(data).startswith(f"a text {where} holds the lone surrogate escape \\u")


def test_good_json_reads_as_python_reads_it():
    page = {"title": "Grüße 😀", "n": [1, 2.5, None, True, {"deep": ["x"]}]}
    assert load_json(json.dumps(page).encode()) == page  # the emoji escaped as the pair "\ud83d\ude00"
    assert load_json(json.dumps(page, ensure_ascii=False).encode("utf-16")) == page


def test_broken_json_is_refused_with_the_readers_position_not_its_exception():
    assert _reason(b"{not json").startswith("invalid JSON: Expecting property name")
    assert _reason(b"[" * 100_000 + b"]" * 100_000).startswith("JSON nested too deep to read")
    assert _reason('{"a": "Grüße"}'.encode("latin-1")) == (
        "not UTF-8 text (byte 0xfc at offset 9); JSON must be UTF-8")
