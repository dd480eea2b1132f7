"""Bytes to text: valid UTF-8 is read as UTF-8 whatever detection would say, UTF-16 is read with or without a
byte-order mark, a declared charset is followed when the bytes are not UTF-8, and every guess comes with a note."""
from __future__ import annotations

import pytest

from ingest.charset import decode_json, decode_markup, text_encoding

PAGE = "<html><body><p>{}</p></body></html>"


@pytest.mark.parametrize("text", ["Hello 😀 ok", "€ 😀 €"])  # charset detection reads the second as Shift JIS
def test_valid_utf8_without_a_declaration_is_read_as_utf8_and_nothing_is_guessed(text):
    assert decode_markup(f"<p>{text}</p>".encode()) == (f"<p>{text}</p>", "")


def test_valid_utf8_wins_over_a_declaration_it_does_not_fit():
    page = '<meta charset="iso-8859-1"><p>Grüße</p>'
    assert decode_markup(page.encode()) == (page, "")


def test_latin1_declared_as_utf8_is_read_as_western_with_a_note_saying_so():
    page = '<meta charset="utf-8"><p>Grüße aus der Straße</p>'
    text, note = decode_markup(page.encode("latin-1"))
    assert text == page
    assert note.startswith("it declares UTF-8 but its bytes are not valid UTF-8 (byte 0xfc at offset 27); "
                           "read as Windows-1252 and kept, a guess")


def test_undeclared_western_bytes_are_guessed_as_windows_1252_not_by_detections_first_tie():
    page = "<p>café “quoted” 12 €</p>"
    text, note = decode_markup(page.encode("cp1252"))
    assert text == page and "declares no charset" in note and "Windows-1252" in note


def test_a_declared_charset_is_followed_when_the_bytes_are_not_utf8():
    page = '<meta charset="windows-1251"><p>Привет</p>'
    assert decode_markup(page.encode("cp1251")) == (page, "")


def test_mostly_utf8_with_a_few_broken_bytes_stays_utf8_with_them_replaced_and_said():
    text, note = decode_markup("<p>Straße – café ".encode() + b"\xff\xfe" + "naïve</p>".encode())
    assert text == "<p>Straße – café \ufffd\ufffdnaïve</p>"
    assert "read as UTF-8 with its 2 broken byte sequence(s) replaced" in note


@pytest.mark.parametrize("codec, bom", [("utf-16-le", b""), ("utf-16-be", b""), ("utf-16-le", b"\xff\xfe"),
                                        ("utf-16-be", b"\xfe\xff")])
def test_utf16_is_read_with_or_without_a_byte_order_mark(codec, bom):
    page = PAGE.format("Grüße 😀 日本")
    text, note = decode_markup(bom + page.encode(codec))
    assert text.lstrip("\ufeff") == page
    assert note == ("" if bom else f"it has no byte-order mark; read as {codec.upper()}, told by the pattern of "
                                   "its NUL bytes, its text kept")


def test_binary_bytes_with_nuls_are_not_taken_for_utf16():
    assert text_encoding(bytes(range(256)) * 8) == ""
    assert text_encoding(b"<p>\x00\x00\x00 a page with a few NUL bytes</p>") == ""


def test_json_is_utf8_or_utf16_by_its_form_and_never_guessed():
    assert decode_json('{"a": "Grüße"}'.encode("utf-16-le")) == '{"a": "Grüße"}'
    assert decode_json(b'\xef\xbb\xbf{"a": 1}') == '{"a": 1}'
    with pytest.raises(UnicodeDecodeError):
        decode_json('{"a": "Grüße"}'.encode("latin-1"))
