"""The answer card's pure parts: the answering unit of a strong first page, or no card."""
from __future__ import annotations

from opensearchpy import exceptions

from search.answer import CARD_CARRIED_SHARE, answer_card, asked_values, closeness_of
from search.present import row_text
from search.grouping import Group
from search.sentences import AskedUnits
from search.verdict import NONE, STRONG, Judgement, question_terms
from tests.search.test_verdict import query

STRONG_PAGE = Judgement(STRONG, 0.9, 0.9, 1.0, 1.0)


def evidence(kind: str, text: str, **more) -> dict:
    return {"_id": text[:8], "_source": {"url": "https://w/p", "title": "Urlaubsregelung", "kind": kind,
                                         "text": text, "heading_path": ["Resturlaub"], "lang": "de",
                                         "id": f"ev-{kind}", **more}}


RESTURLAUB = query("Wann verfällt der Resturlaub?", ["verfallen", "resturlaub"], lang="de")


def test_the_card_holds_the_definition_that_answers():
    asked = query("Resturlaub", ["resturlaub"], lang="de")
    found = Group([evidence("passage", "Zum Resturlaub.", heading_path=["Begriffe"]),
                   evidence("term", "Resturlaub: nicht genommener Urlaub des Vorjahres, bis Ende März.",
                            heading_path=["Begriffe"])], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked))
    assert card is not None and card.kind == "definition"
    assert card.text == "Resturlaub: nicht genommener Urlaub des Vorjahres, bis Ende März."
    assert (card.evidence_id, card.url, card.confidence) == ("ev-term", "https://w/p", 0.9)


def test_the_card_is_the_sentence_that_answers_not_its_neighbour():
    found = Group([evidence("passage", "Urlaub wird im Portal beantragt. Nicht genommener Resturlaub verfällt "
                                       "am 31. März des Folgejahres.")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(RESTURLAUB))
    assert card is not None and card.kind == "sentence"
    assert card.text == "Nicht genommener Resturlaub verfällt am 31. März des Folgejahres."
    assert card.context == ("Urlaub wird im Portal beantragt. Nicht genommener Resturlaub verfällt am 31. März des "
                            "Folgejahres.")


def test_the_context_holds_the_neighbours_after_then_before_within_its_length():
    before = "Nicht genommener Urlaub heißt Resturlaub."
    after = "Ausnahmen genehmigt die Personalabteilung."
    far = "Die Personalabteilung sitzt im zweiten Stock und ist montags bis freitags erreichbar." * 3
    found = Group([evidence("passage", f"{far} {before} Resturlaub verfällt am 31. März. {after} {far}")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(RESTURLAUB))
    assert card is not None and card.text == "Resturlaub verfällt am 31. März."
    assert card.context == f"{before} {card.text} {after}"  # the far sentences would pass the card's length


def test_the_context_never_reads_past_a_neighbour_too_long_for_it():
    long_one = "Die Personalabteilung prüft jeden Antrag einzeln " + "und sorgfältig " * 30 + "."
    found = Group([evidence("passage", f"Resturlaub verfällt am 31. März. {long_one} Ausnahmen genehmigt die "
                                       "Personalabteilung.")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(RESTURLAUB))
    assert card is not None and card.context == "Resturlaub verfällt am 31. März."


def test_a_row_a_definition_and_a_page_fact_have_no_context():
    asked = query("Resturlaub", ["resturlaub"], lang="de")
    found = Group([evidence("term", "Resturlaub: nicht genommener Urlaub des Vorjahres, bis Ende März.")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked))
    assert card is not None and card.context == ""


def test_a_unit_that_restates_the_question_loses_to_the_one_that_adds_the_answer():
    asked = query("How many backup codes are issued?", ["backup", "code", "issue"])
    found = Group([evidence("list", "- Backup codes are issued.\n- Each account is issued ten backup codes, valid "
                                    "for one year after the first login.", heading_path=["Backup codes"], lang="en")],
                  1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked))
    assert card is not None and card.kind == "list_item"
    assert card.text == "Each account is issued ten backup codes, valid for one year after the first login."


def test_a_question_asking_when_is_answered_by_the_sentence_that_writes_the_time():
    """The three sentences hold the question's words alike; the one writing a time answers "when", and leads the
    card by it (without the value, its lead over the next sentence is too small for a card)."""
    asked = query("When must the weekly timesheet be submitted?", ["week", "timesheet", "submit"])
    found = Group([evidence("passage", "Open the timesheet and add an entry for each project you worked on. Submit "
                                       "your week by Monday 12:00 for the previous week. Your manager approves the "
                                       "submitted timesheet.", title="Timesheets", heading_path=["Weekly timesheet"],
                            lang="en")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked), values=asked_values(asked.asked))
    assert card is not None and card.text == "Submit your week by Monday 12:00 for the previous week."
    assert answer_card(found, STRONG_PAGE, question_terms(asked)) is None  # the same question read as asking none


def test_a_value_is_asked_for_by_how_many_how_long_and_when_in_each_language_never_by_a_conjunction():
    assert asked_values("When is the payroll run?") == frozenset()
    assert asked_values("Wie viele Urlaubstage habe ich 2025?") == {"2025"}  # a value it writes answers nothing
    assert asked_values("¿Cuántos días de vacaciones tengo?") == frozenset()
    assert asked_values("and when does it close?") == frozenset()
    assert asked_values("Why was legacy boot still tested in 4.2 when it is off by default?") is None
    assert asked_values("Who approves my leave?") is None


def test_no_card_when_two_units_answer_alike():
    asked = query("When does leave lapse?", ["leave", "lapse"])
    found = Group([evidence("passage", "Leave in Germany lapses on 31 March of the next year. Leave in Brno lapses "
                                       "on 31 December of the same year.", lang="en")], 1.0)
    assert answer_card(found, STRONG_PAGE, question_terms(asked)) is None


def test_a_page_fact_answers_who_changed_the_page_last():
    asked = query("Who last updated the leave policy?", ["last", "update", "leave", "policy"])
    found = Group([evidence("page_facts", "Leave policy, in space HR. Page last updated (edited) on 2024-04-29 by "
                                          "Merle Dahlberg, version 4.", title="Leave policy", heading_path=[],
                                          lang="en")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked))
    assert card is not None and card.kind == "page_fact"
    assert card.text == "Page last updated (edited) on 2024-04-29 by Merle Dahlberg, version 4."


def test_a_page_fact_answers_in_the_askers_language_not_in_both():
    facts = evidence("page_facts", "Leave policy, in space HR. Page last updated (edited) on 2024-04-29 by Merle "
                                   "Dahlberg, version 4. Seite zuletzt geändert (bearbeitet) am 2024-04-29 von Merle "
                                   "Dahlberg, Version 4.", title="Leave policy", heading_path=[], lang="en")
    # as a search reads them: each word with its translation, which the other language's sentence holds
    english = query("Who last edited the leave policy?", ["last", "edit", "leave", "policy"],
                    translated={"de": {"last": ["zuletzt"], "edit": ["bearbeiten"]}})
    german = query("Wer hat die Leave policy zuletzt bearbeitet?", ["leave", "policy", "zuletzt", "bearbeiten"],
                   lang="de", translated={"en": {"zuletzt": ["last"], "bearbeiten": ["edit"]}})
    for asked, told in ((english, "Page last updated (edited) on 2024-04-29"), (german, "Seite zuletzt geändert")):
        card = answer_card(Group([facts], 1.0), STRONG_PAGE, question_terms(asked), lang=asked.lang)
        assert card is not None and card.kind == "page_fact" and card.text.startswith(told), (asked.asked, card)
    # a language the facts are not told in: the page's own
    spanish = query("¿Quién editó la leave policy?", ["editar", "leave", "policy"], lang="es")
    card = answer_card(Group([facts], 1.0), STRONG_PAGE, question_terms(spanish), lang="es")
    assert card is None or card.text.startswith("Page last updated")


def test_no_card_unless_the_verdict_is_strong():
    found = Group([evidence("term", "Resturlaub: verfällt am 31. März.")], 1.0)
    weak = Judgement(NONE, 0.1, 0.1, 0.2, 0.0)
    assert answer_card(found, weak, question_terms(RESTURLAUB)) is None
    assert answer_card(None, STRONG_PAGE, question_terms(RESTURLAUB)) is None


def test_no_card_when_no_unit_holds_the_question():
    asked = query("Wie beantrage ich Elternzeit?", ["beantragen", "elternzeit"], lang="de")
    found = Group([evidence("term", "Resturlaub: verfällt am 31. März.")], 1.0)
    assert answer_card(found, STRONG_PAGE, question_terms(asked)) is None


def test_a_table_row_shows_as_its_header_and_values():
    assert row_text("Row 3 in Table 1: Machine is Orbis EdgeBox E3, and BIOS is E3.24") == \
        "Machine: Orbis EdgeBox E3 · BIOS: E3.24"
    asked = query("BIOS of the Orbis EdgeBox E3", ["bios", "orbis", "edgebox", "e3"])
    found = Group([evidence("table_row", "Row 3 in Table 1: Machine is Orbis EdgeBox E3, and BIOS is E3.24")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked))
    assert card is not None and (card.kind, card.text) == ("table_row", "Machine: Orbis EdgeBox E3 · BIOS: E3.24")


def test_a_card_is_still_chosen_when_opensearch_does_not_answer_for_the_sentences_closeness():
    def refused(body: dict) -> dict:
        raise exceptions.ConnectionError("N/A", "refused", None)

    found = Group([evidence("passage", "Urlaub wird im Portal beantragt. Nicht genommener Resturlaub verfällt "
                                       "am 31. März des Folgejahres.")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(RESTURLAUB), vector=[0.1, 0.2], search=refused)
    assert card is not None and card.text.startswith("Nicht genommener Resturlaub")


def test_the_sentences_closeness_is_read_from_an_answer_asked_ahead_when_it_covers_the_evidence():
    found = Group([evidence("passage", "Resturlaub verfällt am 31. März.", title="Urlaub")], 1.0)
    answered = {"hits": {"hits": [{"_id": "ev-passage", "inner_hits": {"sentences": {"hits": {"hits": [
        {"_source": {"text": "Urlaub: Resturlaub verfällt am 31. März."}, "_score": 0.9}]}}}}]}}
    asked: list[dict] = []

    def search(body: dict) -> dict:
        asked.append(body)
        return answered

    ahead = AskedUnits(frozenset({"ev-passage", "ev-other"}), answered)
    assert closeness_of(found, [0.1], search, ahead) == {"ev-passage": {"Resturlaub verfällt am 31. März.": 0.9}}
    assert not asked  # no round trip of its own
    elsewhere = AskedUnits(frozenset({"ev-other"}), {"hits": {"hits": []}})  # another page came first
    assert closeness_of(found, [0.1], search, elsewhere) == {"ev-passage": {"Resturlaub verfällt am 31. März.": 0.9}}
    assert len(asked) == 1


def test_two_rows_answering_alike_show_together_and_a_third_leaves_the_card_unsure():
    """Two rows of the page's tables that answer about as well (a value the question does not pin to one row)
    make one card of both, each on a line of its context; with a third as close, no card."""
    asked = query("Which BIOS does the Orbis EdgeBox need?", ["bios", "orbis", "edgebox"])
    rows = [evidence("table_row", f"Row {n} in Table 1: Machine is Orbis EdgeBox {model}, and BIOS is {bios}.",
                     lang="en", id=f"row-{n}") for n, (model, bios) in enumerate([("E3", "E3.24"), ("E5", "E5.11")],
                                                                                start=1)]
    card = answer_card(Group(rows, 1.0), STRONG_PAGE, question_terms(asked))
    assert card is not None and card.kind == "table_row"
    assert card.context.splitlines() == ["Machine: Orbis EdgeBox E3 · BIOS: E3.24",
                                         "Machine: Orbis EdgeBox E5 · BIOS: E5.11"]
    assert card.text in card.context.splitlines()
    third = evidence("table_row", "Row 3 in Table 1: Machine is Orbis EdgeBox E7, and BIOS is E7.02.", lang="en",
                     id="row-3")
    assert answer_card(Group([*rows, third], 1.0), STRONG_PAGE, question_terms(asked)) is None


def test_a_row_does_not_win_the_card_by_writing_the_questions_word_uninflected():
    """"How many vacation days do I get?" names no country: the rows of the entitlement table answer alike, though
    only the first writes "day" as the question does ("five-day week") and the others "days"."""
    asked = query("How many vacation days do I get?", ["vacation", "day"])
    rows = [evidence("table_row", f"Row {n} in Table 1: Country is {country}, and Annual leave is {days} working "
                                  f"days, and Notes is {note}", lang="en", id=f"row-{n}", title="Vacation Policy")
            for n, (country, days, note) in enumerate([("Germany", 30, "Based on a five-day week"),
                                                       ("Czech Republic", 25, "Plus 3 paid wellness days"),
                                                       ("United States", 20, "Plus 5 floating holidays")], start=1)]
    assert answer_card(Group(rows, 1.0), STRONG_PAGE, question_terms(asked)) is None


def test_a_follow_ups_card_answers_its_own_words_the_conversation_only_says_which_page():
    asked = query("and in Berlin?", ["berlin"], carried={"hotel": 1.0, "night": 1.0, "price": 1.0})
    found = Group([evidence("list", "- The hotel price per night includes breakfast.\n- Berlin: up to 145 EUR a "
                                    "night.\n- Book through the travel desk.", title="Travel policy",
                            heading_path=["Hotels"], lang="en")], 1.0)
    card = answer_card(found, STRONG_PAGE, question_terms(asked, CARD_CARRIED_SHARE))
    assert card is not None and card.text == "Berlin: up to 145 EUR a night."
    # read with the carried terms at the verdict's weight, the unit holding the topic leaves the card unsure
    assert answer_card(found, STRONG_PAGE, question_terms(asked)) is None
