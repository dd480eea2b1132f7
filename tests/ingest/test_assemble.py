"""Assembling evidence: each page's own facts (space, place, who wrote and changed it, when) as one evidence."""
from __future__ import annotations

import json

import pytest

from ingest import evidence as kinds
from ingest.config import IngestConfig
from ingest.pipeline import evidence_for
from ingest.sources import SourceFile
from tests.ingest.sources.pdf_helpers import builders
from text.lemmas import Lemmatizer
from text.sentences import split_sentences


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


def _page(body: str, **extra) -> bytes:
    page = {"id": "7", "type": "page", "title": "HVX 4.0.1 Release Test Report",
            "space": {"key": "ENG", "name": "Engineering"},
            "ancestors": [{"id": "1", "title": "Engineering Home"}, {"id": "2", "title": "Release Test Reports"}],
            "version": {"number": 8, "when": "2024-04-29T15:26:33.000Z", "by": {"displayName": "Pavla Horáková"}},
            "metadata": {"labels": {"results": [{"name": "release-test-report"}]}},
            "body": {"storage": {"value": body}},
            "_links": {"base": "https://wiki.example.com", "webui": "/spaces/ENG/pages/7/HVX"}, **extra}
    return json.dumps(page).encode("utf-8")


def _facts(file: SourceFile, lemmatizer: Lemmatizer) -> list:
    return [e for e in evidence_for(file, IngestConfig(), lemmatizer)[1] if e.kind == kinds.PAGE_FACTS]


def test_a_wiki_page_gets_one_evidence_of_its_own_facts(lemmatizer):
    history = {"createdBy": {"displayName": "Mira Okonkwo"}, "createdDate": "2024-03-02T08:00:00.000Z"}
    attachments = {"attachment": {"results": [{"title": "boot-log.txt"}]}}
    data = _page("<p>The run used compatibility suite CS-11 on 7 machines in the Brno lab.</p>",
                 history=history, children=attachments)
    [facts] = _facts(SourceFile("7.json", data), lemmatizer)
    assert facts.text.splitlines() == [  # a fact group a line: each one a sentence, whatever the language reads
        "HVX 4.0.1 Release Test Report, in space Engineering (ENG), under Engineering Home > Release Test Reports.",
        "Page created on 2024-03-02 by Mira Okonkwo.",
        "Page last updated (edited) on 2024-04-29 by Pavla Horáková, version 8.",
        "Labels: release-test-report.", "Attachments: boot-log.txt.",
        "Seite erstellt am 2024-03-02 von Mira Okonkwo.",
        "Seite zuletzt geändert (bearbeitet) am 2024-04-29 von Pavla Horáková, Version 8.",
    ]  # who and when also in German: "wer hat die Seite zuletzt bearbeitet" meets an English page
    assert facts.url == "https://wiki.example.com/spaces/ENG/pages/7/HVX"
    assert "2024-04-29" in facts.lemmas.split()  # "when was it updated" meets the date as a day


def test_a_page_without_text_still_states_its_facts(lemmatizer):
    [facts] = _facts(SourceFile("7.json", _page("")), lemmatizer)
    assert "Page last updated (edited) on 2024-04-29 by Pavla Horáková" in facts.text


def test_a_german_page_states_its_facts_in_german_and_unknown_facts_are_left_out(lemmatizer):
    body = "<p>Die Reisekosten werden nach der Reise über das Formular im Portal abgerechnet und erstattet.</p>"
    [facts] = _facts(SourceFile("7.json", _page(body)), lemmatizer)
    assert facts.text.startswith("HVX 4.0.1 Release Test Report, im Bereich (Space) Engineering (ENG)")
    assert "Seite zuletzt geändert (bearbeitet) am 2024-04-29 von Pavla Horáková, Version 8." in facts.text
    assert facts.text.endswith("Page last updated (edited) on 2024-04-29 by Pavla Horáková, version 8.")
    assert "erstellt" not in facts.text and "created" not in facts.text and "Anhänge" not in facts.text
    # one sentence each, though German reads "HR." as "Herr" and "Version 8." as an ordinal within a line
    assert "Seite zuletzt geändert (bearbeitet) am 2024-04-29 von Pavla Horáková, Version 8." in split_sentences(
        facts.text, "de")


def test_a_pdf_states_its_title_author_and_date_on_its_first_page(lemmatizer):
    file = SourceFile("travel.pdf", builders.structured_pdf(), url="https://files.example.com/travel.pdf")
    [facts] = _facts(file, lemmatizer)
    assert facts.url == "https://files.example.com/travel.pdf#page=1"
    assert facts.text.splitlines() == ["Travel and Expense Manual.", "Document created by ACME Finance.",
                                       "Document last updated (edited) on 2025-03-01.",
                                       "Dokument erstellt von ACME Finance.",
                                       "Dokument zuletzt geändert (bearbeitet) am 2025-03-01."]


def test_every_evidence_names_who_last_changed_its_page_else_its_author(lemmatizer):
    history = {"createdBy": {"displayName": "Mira Okonkwo"}}
    wiki = evidence_for(SourceFile("7.json", _page("<p>Suite CS-11 ran on 7 machines.</p>", history=history)),
                        IngestConfig(), lemmatizer)[1]
    assert {e.author for e in wiki} == {"Pavla Horáková"}  # the last version's editor, not the creator
    pdf = SourceFile("travel.pdf", builders.structured_pdf(), url="https://files.example.com/travel.pdf")
    assert {e.author for e in evidence_for(pdf, IngestConfig(), lemmatizer)[1]} == {"ACME Finance"}


def test_every_evidence_of_a_wiki_page_names_its_space_by_key_and_name(lemmatizer):
    wiki = evidence_for(SourceFile("7.json", _page("<p>Suite CS-11 ran on 7 machines.</p>")), IngestConfig(),
                        lemmatizer)[1]
    assert {(e.space, e.space_name) for e in wiki} == {("ENG", "Engineering")}


def test_each_leaf_evidence_states_its_sentences_after_the_page_title(lemmatizer):
    body = ("<h2>Result</h2><p>The run used compatibility suite CS-11 on 7 machines. The Kestrel IPC-540 failed "
            "UEFI boot. Fixed.</p><ul><li>Orbis EdgeBox E3 passed every boot configuration</li></ul>")
    evidence = evidence_for(SourceFile("7.json", _page(body)), IngestConfig(), lemmatizer)[1]
    by_kind = {e.kind: e for e in evidence}
    title = "HVX 4.0.1 Release Test Report"
    assert by_kind[kinds.PASSAGE].sentences == [
        f"{title}: The run used compatibility suite CS-11 on 7 machines.",
        f"{title}: The Kestrel IPC-540 failed UEFI boot."]  # "Fixed." says too little to answer anything
    assert by_kind[kinds.LIST].sentences == [f"{title}: - Orbis EdgeBox E3 passed every boot configuration"]
    # A section and the whole page hold their leaves' sentences again: none of their own.
    assert by_kind[kinds.SECTION].sentences == [] and by_kind[kinds.PAGE].sentences == []


def test_a_glossary_row_and_a_passage_state_the_acronyms_they_define_and_nothing_repeats_them(lemmatizer):
    body = ("<p>Every outage has an Incident Commander (IC) who runs the call.</p>"
            "<table><tr><th>Acronym</th><th>Meaning</th></tr>"
            "<tr><td>PCR</td><td>Platform Configuration Register of a TPM</td></tr>"
            "<tr><td>HVX</td><td>Our hypervisor product</td></tr></table>")
    evidence = evidence_for(SourceFile("7.json", _page(body)), IngestConfig(), lemmatizer)[1]
    defining = {e.kind: e.defines for e in evidence if e.defines}
    assert defining == {kinds.PASSAGE: ["IC = Incident Commander"],
                        kinds.TABLE_ROW: ["PCR = Platform Configuration Register"]}
    assert all("defines" not in e.meta for e in evidence)
