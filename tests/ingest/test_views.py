"""Key phrases ranked within the corpus, extractive summaries, the optional LLM summary request."""
from __future__ import annotations

import json

import pytest

from text.lemmas import Lemmatizer
from text.stopwords import stopwords
from ingest.views import KeywordStats, LLMSummarizer, keyword_candidates, keywords, summarize

EN = [
    "To reset your 2FA token, open the Self-Service Portal and choose Reset token. The HVX-1234 hardware "
    "token must be returned to the IT Service Desk. If the token is lost, report it via the ticket form of "
    "the IT Service Desk. Version 4.1.2 of the Authenticator app is required.",
    "The travel policy applies to all employees. Train tickets must be booked via the travel portal. "
    "Hotel costs are reimbursed up to 120 EUR per night.",
    "The IT Service Desk is open from Monday to Friday. Call extension 4455 or open a ticket in the portal.",
    "All employees can order equipment in the portal. The portal lists the approved devices.",
]
DE = [
    "Urlaubsanträge werden im Personalportal gestellt. Der Antrag wird von der Führungskraft genehmigt. "
    "Bei Fragen zum Urlaubsantrag wenden Sie sich an die Personalabteilung. Resturlaub verfällt am 31. März.",
    "Die Reisekostenrichtlinie gilt für alle Mitarbeitenden. Bahntickets werden über das Reiseportal gebucht.",
    "Im Personalportal finden alle Mitarbeitenden ihre Gehaltsabrechnung.",
]
ES = [
    "Las solicitudes de vacaciones se crean en el portal de empleados. El responsable aprueba la solicitud. "
    "Las vacaciones no disfrutadas caducan el 31 de marzo.",
    "La política de viajes se aplica a todos los empleados. Los billetes de tren se reservan en el portal.",
]


@pytest.fixture(scope="module")
def lem() -> Lemmatizer:
    return Lemmatizer()


@pytest.fixture(scope="module")
def stats(lem) -> KeywordStats:
    stats = KeywordStats()
    for lang, texts in (("en", EN), ("de", DE), ("es", ES)):
        stats.add_documents(lem.lemma_lists(texts, lang))
    return stats


# ------------------------------------------------------------------ statistics

def test_stats_count_documents_and_serialize(lem):
    stats = KeywordStats()
    stats.add(["portal", "token", "portal"])
    stats.add("portal ticket")
    assert stats.n_docs == 2 and stats.df["portal"] == 2 and stats.df["token"] == 1
    assert stats.idf("token") > stats.idf("portal") > 0
    assert stats.idf("unseen") > stats.idf("token")
    restored = KeywordStats.from_json(stats.to_json())
    assert restored.to_dict() == stats.to_dict()
    assert KeywordStats.from_json(stats.to_json().encode()).df == stats.df  # bytes, as Redis returns them
    assert json.loads(stats.to_json())["n_docs"] == 2
    assert KeywordStats().idf("x") == 1.0
    assert KeywordStats.from_json("").n_docs == 0


# ------------------------------------------------------------------ key phrases

def test_keywords_find_codes_and_rare_terms_not_stop_words(lem, stats):
    text = EN[0]
    kws = keywords(text, lem.lemmas(text, "en"), "en", stats=stats, top=8, lemmatizer=lem)
    assert len(kws) == 8
    joined = " ".join(kws)
    for term in ("HVX-1234", "2FA", "4.1.2", "IT Service Desk", "Authenticator"):
        assert term in joined
    stop = stopwords("en")
    for phrase in kws:
        words = [w for w in phrase.split() if not w.isupper()]  # acronyms such as "IT" are kept
        assert not {w.lower() for w in words} & stop
    assert kws[0] in ("IT Service Desk", "HVX-1234 hardware token")
    assert not any(v in joined for v in ("choose", "returned", "required"))  # verbs are no key phrases


def test_corpus_statistics_demote_common_words(lem):
    text = "Portal, portal, portal, Kerberos."
    alone = keywords(text, None, "en", lemmatizer=lem)
    assert alone == ["portal", "Kerberos"]  # the most frequent word first, in its most frequent spelling
    stats = KeywordStats()
    stats.add_documents([["portal", "news"]] * 50 + [["kerberos", "keytab", "portal"]])
    assert keywords(text, None, "en", stats=stats, lemmatizer=lem) == ["Kerberos", "portal"]  # rare in the corpus


def test_keywords_german_and_spanish(lem, stats):
    de = keywords(DE[0], lem.lemmas(DE[0], "de"), "de", stats=stats, top=6, lemmatizer=lem)
    assert "Urlaubsanträge" in de and "Resturlaub" in de and "Personalabteilung" in de
    assert not {"gestellt", "genehmigt", "verfällt", "bitte"} & {w.lower() for p in de for w in p.split()}
    es = keywords(ES[0], lem.lemmas(ES[0], "es"), "es", stats=stats, top=5, lemmatizer=lem)
    assert "solicitudes" in es and "vacaciones" in es
    assert not {"de", "la", "el", "se"} & set(es)


def test_keyword_phrases_are_short_runs_and_subsumed_phrases_are_skipped(lem):
    text = "Elektronische Signatur für Verträge. Die elektronische Signatur wird im Vertragsportal erstellt."
    kws = keywords(text, None, "de", lemmatizer=lem)
    assert "Elektronische Signatur" in kws or "elektronische Signatur" in kws
    assert "Signatur" not in kws  # inside a phrase already chosen
    tokens = lem.analyze("the very long access control list management console of SAP", "en")
    assert all(len(c.tokens) <= 3 for c in keyword_candidates(tokens, "en"))
    assert keywords("", None, "en", lemmatizer=lem) == []
    assert keywords("the and of", None, "en", lemmatizer=lem) == []


def test_context_and_title_boost(lem):
    text = "Badges, parking, lockers."
    assert keywords(text, None, "en", lemmatizer=lem) == ["Badges", "parking", "lockers"]  # a tie: text order
    assert keywords(text, None, "en", lemmatizer=lem, title="Parking")[0] == "parking"
    context = lem.lemmas("Parking rules\n" + text, "en")  # the heading repeats it
    assert keywords(text, context, "en", lemmatizer=lem)[0] == "parking"


# ------------------------------------------------------------------ summary

LONG_EN = ("Employees can work from home up to three days per week. The home office policy describes the "
           "rules for working from home. Equipment for the home office, such as a monitor and a headset, can "
           "be ordered in the IT shop. The canteen offers vegetarian meals every day. Working from home "
           "requires the approval of your manager and a signed home office agreement. Parking spaces are limited.")


def test_summary_picks_central_sentences_in_order(lem):
    summary = summarize(LONG_EN, "en", title="Home office policy", lemmatizer=lem)
    assert summary == ("The home office policy describes the rules for working from home. Working from home "
                       "requires the approval of your manager and a signed home office agreement.")
    one = summarize(LONG_EN, "en", title="Home office policy", max_sentences=1, lemmatizer=lem)
    assert one == "The home office policy describes the rules for working from home."
    assert "canteen" not in summarize(LONG_EN, "en", max_sentences=3, lemmatizer=lem)


def test_summary_without_title_prefers_the_central_sentence(lem):
    text = ("The weather was nice. Password resets are done in the password portal. "
            "The password portal also unlocks accounts. Forgotten passwords can be reset in the portal. "
            "Lunch is at noon.")
    assert summarize(text, "en", max_sentences=1, lemmatizer=lem) in (
        "Password resets are done in the password portal.", "The password portal also unlocks accounts.")


def test_summary_german_and_spanish(lem):
    de = ("Mitarbeitende können bis zu drei Tage pro Woche im Homeoffice arbeiten. Die Homeoffice-Richtlinie "
          "beschreibt die Regeln für das Arbeiten im Homeoffice. Ausstattung kann im IT-Shop bestellt werden. "
          "Die Kantine bietet täglich vegetarische Gerichte an. Das Arbeiten im Homeoffice erfordert die "
          "Zustimmung der Führungskraft. Parkplätze sind begrenzt.")
    summary = summarize(de, "de", title="Homeoffice", lemmatizer=lem)
    assert "Kantine" not in summary and "Parkplätze" not in summary and summary.count(".") == 2
    es = ("Los empleados pueden trabajar desde casa hasta tres días por semana. La política de teletrabajo "
          "describe las reglas del teletrabajo. La cafetería ofrece comidas vegetarianas todos los días. "
          "El teletrabajo requiere la aprobación del responsable. Las plazas de aparcamiento son limitadas.")
    summary = summarize(es, "es", title="Teletrabajo", lemmatizer=lem)
    assert "teletrabajo" in summary and "cafetería" not in summary and "aparcamiento" not in summary


def test_short_texts_come_back_as_they_are(lem):
    assert summarize("One sentence. Two sentences.", "en", lemmatizer=lem) == "One sentence. Two sentences."
    assert summarize(["Only one."], "en", lemmatizer=lem) == "Only one."
    assert summarize("", "en", lemmatizer=lem) == ""
    sentences = ["First point here.", "Second point here.", "Third point here."]
    assert summarize(sentences, "en", max_sentences=5, lemmatizer=lem) == " ".join(sentences)
    assert summarize(LONG_EN, "en", max_words=5, lemmatizer=lem).endswith(" …")


# ------------------------------------------------------------------ LLM summary prompt

def test_llm_summarizer_builds_the_prompt_and_cleans_answers():
    llm = LLMSummarizer()
    messages = llm.messages("Der Antrag wird im Portal gestellt.", "de", title="Urlaub")
    assert messages[0]["role"] == "system" and "German" in messages[0]["content"]
    assert "Title: Urlaub" in messages[1]["content"]
    assert llm.options() == {"temperature": 0.0, "max_tokens": 160}
    assert llm.clean(" Summary: Der Antrag  wird\ngestellt. ") == "Der Antrag wird gestellt."
    assert llm.clean("Zusammenfassung:") == ""


def test_reference_labels_of_verbalized_tables_are_no_key_phrases(lem):
    text = "Row 1 in Table 1: Model is TideSense S3, and Firmware is 3.2.1. Row 2 in Table 1: Model is M1."
    kws = keywords(text, None, "en", lemmatizer=lem)
    assert "Row" not in kws and "Table" not in kws
    assert "TideSense S3" in kws and "3.2.1" in kws
