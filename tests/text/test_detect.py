"""Language detection from stop words, word frequencies, character trigrams and marked characters."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from text.detect import _model, detect_language, known_word, language_scores

ROOT = Path(__file__).resolve().parents[2]
DIGEST = ("import hashlib, json, sys; from text.detect import _model; "
          "print(hashlib.sha256(json.dumps(sorted(_model(sys.argv[1]).trigram.items())).encode()).hexdigest())")


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


def test_a_language_without_a_frequency_list_gets_the_same_model_in_every_process():
    """French has only equally likely word forms, more than the model reads: which it reads must not follow the
    process's hash seed, or a page's language could differ between two workers."""
    here = hashlib.sha256(json.dumps(sorted(_model("fr").trigram.items())).encode()).hexdigest()
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    other = subprocess.run([sys.executable, "-c", DIGEST, "fr"], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
    assert other == here


@pytest.mark.parametrize("word", ["vacation", "Urlaub", "verfällt", "Anschluß", "contraseña", "the"])
def test_a_word_of_a_language_is_known(word):
    assert known_word(word)


@pytest.mark.parametrize("word", ["xyzzyplugh", "Quaymaster", "ts-e4471", "4.1.2"])
def test_names_codes_and_nonsense_are_no_language_s_words(word):
    assert not known_word(word)
