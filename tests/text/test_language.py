"""Language detection and lookup lemmas (spaCy blank pipelines + spacy-lookups-data, no models)."""
from __future__ import annotations

import threading

import pytest

from text.language import (Lemmatizer, Token, default_lemmatizer, detect_language, language_scores,
                             normalize_lang, stopwords, verb_lemmas)


@pytest.fixture(scope="module")
def lem() -> Lemmatizer:
    return Lemmatizer()


# ------------------------------------------------------------------ detection

@pytest.mark.parametrize("text, lang", [
    ("wer ist dafür zuständig?", "de"),
    ("¿cómo creo una solicitud?", "es"),
    ("how do I reset 2FA", "en"),
    ("Reisekostenrichtlinie Bahnticket", "de"),
    ("Passwort vergessen", "de"),
    ("password reset", "en"),
    ("contraseña olvidada", "es"),
    ("Urlaubsantrag", "de"),
    ("Gehaltsabrechnung", "de"),
    ("solicitud de vacaciones", "es"),
    ("vacation request", "en"),
    ("Drucker einrichten", "de"),
    ("configurar impresora", "es"),
    ("SAP Zugang beantragen", "de"),
    ("Wo finde ich den Speiseplan", "de"),
    ("menú del comedor", "es"),
    ("order a laptop", "en"),
])
def test_short_queries(text, lang):
    assert detect_language(text) == lang


def test_no_evidence_gives_the_default():
    assert detect_language("VPN") == "en"
    assert detect_language("VPN", default="de") == "de"
    assert detect_language("HVX-1234 4.1.2", default="es") == "es"
    assert detect_language("", default="de") == "de"
    assert detect_language("Outlook", default="es") == "es"  # a name, as likely in every language


def test_mixed_page_goes_to_the_majority():
    page = ("Die Urlaubsplanung erfolgt über das Portal. Bitte beachten Sie die Fristen. "
            "Anträge müssen zwei Wochen vorher gestellt werden. Click here to open the portal. "
            "Weitere Informationen finden Sie im Handbuch.")
    assert detect_language(page) == "de"
    page_en = ("This page explains the travel policy. All employees must book trains via the portal. "
               "Reisekostenrichtlinie (PDF). The approval is done by your manager.")
    assert detect_language(page_en) == "en"
    scores = language_scores(page)
    assert scores["de"] > scores["en"] > scores["es"] >= 0


def test_more_candidates():
    cands = ("en", "de", "es", "fr", "it", "nl", "pt")
    texts = {
        "fr": "Comment puis-je réinitialiser mon mot de passe ? Le service informatique est responsable.",
        "it": "Come posso reimpostare la password? Il servizio informatico è responsabile della richiesta.",
        "nl": "Hoe kan ik mijn wachtwoord opnieuw instellen? De afdeling is verantwoordelijk voor de aanvraag.",
        "pt": "Como posso redefinir a minha senha? O serviço de informática é responsável pelo pedido.",
        "es": "¿Cómo puedo restablecer mi contraseña? El servicio de informática es responsable.",
        "de": "Wie kann ich mein Passwort zurücksetzen? Die IT-Abteilung ist für den Antrag zuständig.",
        "en": "How can I reset my password? The IT department is responsible for the request.",
    }
    for lang, text in texts.items():
        assert detect_language(text, candidates=cands) == lang, lang


def test_normalize_lang_and_stopwords():
    assert normalize_lang("de-DE") == "de"
    assert normalize_lang("ES") == "es"
    assert normalize_lang(None) == ""
    assert {"the", "and", "be"} <= stopwords("en")
    assert {"und", "der", "sein", "werden"} <= stopwords("de")
    assert {"de", "la", "ser"} <= stopwords("es")
    assert stopwords("xx") == frozenset()
    assert "report" not in stopwords("en")
    assert "create" in verb_lemmas("en") and "report" not in verb_lemmas("en")


# ------------------------------------------------------------------ lemmas

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


def test_lemma_text_and_batches(lem):
    texts = ["The reports were created.", "", "Running VPN checks"]
    assert lem.lemma_texts(texts, "en") == ["the report be create", "", "run vpn check"]
    assert lem.lemma_lists(texts, "en") == [t.split() for t in lem.lemma_texts(texts, "en")]
    assert lem.lemma_text("The reports were created.", "en") == "the report be create"
    assert lem.lemma_texts([], "en") == []


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
    import text.language as language

    first = language._pipeline("en")
    assert language._pipeline("en") is first
    monkeypatch.setattr(language, "_VOCAB_LIMIT", len(first.strings) - 1)
    renewed = language._pipeline("en")
    assert renewed is not first and renewed.table is first.table
    monkeypatch.setattr(language, "_VOCAB_LIMIT", 10**9)
    assert lem.lemmas("The reports were created", "en") == ["the", "report", "be", "create"]
