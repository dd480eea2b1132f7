"""Lookup lemmas: spaCy blank tokenizers and the lemma tables of spacy-lookups-data, no models."""
from __future__ import annotations

import threading

import pytest

from text.lemmas import Lemmatizer, Token, default_lemmatizer


@pytest.fixture(scope="module")
def lem() -> Lemmatizer:
    return Lemmatizer()


def test_english_lemmas(lem):
    assert lem.lemmas("Reports reporting created running ran policies", "en") == [
        "report", "report", "create", "run", "run", "policy"]
    # lookup lemmas are inflectional: derivations keep their form
    assert lem.lemmas("creation", "en") == ["creation"]


def test_german_lemmas_meet_lowercase_queries(lem):
    assert lem.lemmas("Anträge Urlaubsanträge", "de") == ["antrag", "urlaubsantrag"]
    # the table is case-sensitive (nouns capitalized): a lowercase query finds the same lemma
    assert lem.lemmas("anträge urlaubsanträge", "de") == ["antrag", "urlaubsantrag"]
    assert lem.lemmas("Die Anträge wurden erstellt", "de") == ["der", "antrag", "werden", "erstellen"]
    # compounds are not split; an unknown inflected compound takes its tail's lemma
    assert lem.lemmas("Mitarbeitergespräche Zugriffsrechte Urlaubsantrag", "de") == [
        "mitarbeitergespräch", "zugriffsrecht", "urlaubsantrag"]


def test_spanish_lemmas(lem):
    assert lem.lemmas("solicitudes Solicitudes creó", "es") == ["solicitud", "solicitud", "crear"]


def test_codes_numbers_and_punctuation(lem):
    text = "Reset 2FA on HVX-1234 (see E3.24, v4.1.2), e.g. via https://intra.example.com/x or it@example.com!"
    assert lem.lemmas(text, "en") == ["reset", "2fa", "on", "hvx-1234", "see", "e3.24", "v4.1.2", "e.g.", "via",
                                      "https://intra.example.com/x", "or", "it@example.com"]
    assert lem.lemmas("z.B. Nr. 5 kostet 3,5 EUR", "de") == ["z.b.", "nr", "5", "kosten", "3,5", "eur"]
    assert lem.lemmas("VPN", "en") == ["vpn"]  # acronyms are kept, not looked up


def test_lemma_batches(lem):
    texts = ["The reports were created.", "", "Running VPN checks"]
    assert lem.lemma_lists(texts, "en") == [["the", "report", "be", "create"], [], ["run", "vpn", "check"]]
    assert lem.lemma_lists(texts, "en") == [lem.lemmas(t, "en") for t in texts]
    assert lem.lemma_lists([], "en") == []


def test_analyze_keeps_surface_kind_and_line_breaks(lem):
    tokens = lem.analyze("Urlaubsanträge für HVX-1234.\nVPN", "de")
    assert tokens == [Token("Urlaubsanträge", "urlaubsantrag", "word"), Token("für", "für", "word"),
                      Token("HVX-1234", "hvx-1234", "code"), Token(".", ".", "punct"),
                      Token("\n", "\n", "punct"), Token("VPN", "vpn", "acronym")]
    assert [len(t) for t in lem.analyze_texts(["a b", "c"], "en")] == [2, 1]


def test_unknown_language_is_tokenized_without_lemmas(lem):
    assert lem.lemmas("Häuser Anträge", "") == ["häuser", "anträge"]
    assert lem.lemmas("les demandes", "fr") == ["les", "demandes"]
    fr = Lemmatizer(languages=("fr",))
    assert fr.lemmas("les demandes", "fr") == ["le", "demande"]
    fallback = Lemmatizer(fallback="de")
    assert fallback.lemmas("Anträge", "") == ["antrag"]


def test_instances_share_pipelines_and_threads_agree(lem):
    assert default_lemmatizer() is default_lemmatizer()
    text = "Die Urlaubsanträge wurden von der Personalabteilung geprüft."
    expected = lem.lemmas(text, "de")
    results: list[list[str]] = []

    def work():
        other = Lemmatizer()
        for _ in range(50):
            results.append(other.lemmas(text, "de"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 200 and all(r == expected for r in results)


def test_pipeline_is_renewed_when_its_vocabulary_grows(lem, monkeypatch):
    import text.lemmas as lemmas

    first = lemmas._pipeline("en")
    assert lemmas._pipeline("en") is first
    monkeypatch.setattr(lemmas, "_VOCAB_LIMIT", len(first.strings) - 1)
    renewed = lemmas._pipeline("en")
    assert renewed is not first and renewed.table is first.table
    monkeypatch.setattr(lemmas, "_VOCAB_LIMIT", 10**9)
    assert lem.lemmas("The reports were created", "en") == ["the", "report", "be", "create"]
