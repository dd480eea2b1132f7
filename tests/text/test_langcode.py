"""Language codes compared by their primary subtag."""
from text.langcode import normalize_lang


def test_normalize_lang():
    assert normalize_lang("de-DE") == "de"
    assert normalize_lang("pt_BR") == "pt"
    assert normalize_lang(" ES ") == "es"
    assert normalize_lang(None) == ""
