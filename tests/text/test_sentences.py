"""Rule-based sentence splitting: abbreviations, ordinals, list lines, wrapped prose, hyphenation."""
from __future__ import annotations

from text.sentences import split_sentences


def test_abbreviations_versions_and_decimals_do_not_split():
    text = ("Use a tool, e.g. the VPN client. Dr. Smith approved version 4.1.2 on Monday. "
            "It costs 3.50 EUR! Why? See Fig. 3 for details, i.e. the diagram.")
    assert split_sentences(text, "en") == [
        "Use a tool, e.g. the VPN client.",
        "Dr. Smith approved version 4.1.2 on Monday.",
        "It costs 3.50 EUR!",
        "Why?",
        "See Fig. 3 for details, i.e. the diagram.",
    ]


def test_german_abbreviations_and_ordinals():
    text = ("Bitte z.B. den Antrag stellen. Dr. Müller ist zuständig, bzw. Fr. Meier. Siehe Nr. 5 der Liste. "
            "Der Termin ist am 3. Mai 2024. Version 4.1.2 ist aktuell. Danach usw. Die Abrechnung folgt.")
    assert split_sentences(text, "de") == [
        "Bitte z.B. den Antrag stellen.",
        "Dr. Müller ist zuständig, bzw. Fr. Meier.",
        "Siehe Nr. 5 der Liste.",
        "Der Termin ist am 3. Mai 2024.",
        "Version 4.1.2 ist aktuell.",
        "Danach usw.",
        "Die Abrechnung folgt.",
    ]


def test_spanish_marks():
    text = "¿Cómo creo una solicitud? Ver p.ej. la pág. 5 del manual. ¡Listo! El Sr. Pérez aprueba."
    assert split_sentences(text, "es") == [
        "¿Cómo creo una solicitud?", "Ver p.ej. la pág. 5 del manual.", "¡Listo!", "El Sr. Pérez aprueba."]


def test_list_lines_are_sentences_and_wrapped_prose_is_joined():
    text = ("Steps:\n- Open the portal\n- Click Reset. Then wait.\n- Enter the code\n\n"
            "This is a long sentence that has been wrapped by the PDF\nextractor in the middle.\n"
            "1. Install the client.\n2. Log in\n3. Done")
    assert split_sentences(text, "en") == [
        "Steps:", "- Open the portal", "- Click Reset.", "Then wait.", "- Enter the code",
        "This is a long sentence that has been wrapped by the PDF extractor in the middle.",
        "1. Install the client.", "2. Log in", "3. Done",
    ]


def test_short_lines_stay_apart_and_german_hyphenation_is_undone():
    text = ("Urlaub\nKrankheit\nReisen\n\n"
            "Der Antrag muss bis zum Ende des Monats beim zuständigen\nPersonalbüro eingereicht werden. "
            "Die Urlaubs-\nanträge werden geprüft. Fach-\nund Führungskräfte.")
    assert split_sentences(text, "de") == [
        "Urlaub", "Krankheit", "Reisen",
        "Der Antrag muss bis zum Ende des Monats beim zuständigen Personalbüro eingereicht werden.",
        "Die Urlaubsanträge werden geprüft.", "Fach- und Führungskräfte.",
    ]


def test_quotes_and_brackets_stay_with_their_sentence():
    assert split_sentences('He said "Stop." Then he left. (See below.) Next part.') == [
        'He said "Stop."', "Then he left.", "(See below.)", "Next part."]


def test_empty_text():
    assert split_sentences("") == []
    assert split_sentences(" \n\n ") == []
