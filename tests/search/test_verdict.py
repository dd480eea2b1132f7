"""The verdict's pure parts: coverage of the question's content, the lists' agreement, the calibration map."""
from __future__ import annotations

from search.grouping import Group
from search.query import Query, ResolvedQuery
from search.verdict import (CALIBRATION, FOLLOW_UP_CALIBRATION, NONE, STRONG, WEAK, TextWords, agreement, calibrated,
                            coverage, holds, holds_any, judge_all, matching, question_terms, text_words_of,
                            verdict_of)


def query(text: str, lemmas: list[str], lang: str = "en", translated: dict | None = None,
          carried: dict | None = None, respelled: dict | None = None) -> Query:
    resolved = ResolvedQuery(text, carried or {}, text, {}, bool(carried))
    return Query(text, lang, resolved, lemmas, translated or {}, respelled or {})


def page(url: str, title: str, *texts: str) -> Group:
    return Group([{"_source": {"url": url, "title": title, "text": text, "heading_path": [], "kind": "passage"}}
                  for text in texts], 1.0)


def hits(*urls: str) -> list[dict]:
    return [{"_source": {"url": url}} for url in urls]


def test_a_word_is_held_through_its_inflections_compounds_and_umlauts():
    text_words = TextWords.of({"resturlaub", "verfallt", "am", "31"})
    assert holds("verfallen", text_words)  # "verfällt", folded
    assert holds("urlaub", text_words)  # inside the compound
    assert not holds("rate", TextWords.of({"separate"}))  # too short to be a compound's part
    assert not holds("release", TextWords.of({"relevant"}))


def test_a_short_term_is_held_where_the_page_writes_it_inflected():
    """"How many vacation days do I get?" asks for the term "day": a page writing "30 working days" holds it, as
    one writing "Tage" holds "tag" and one writing "paid" holds "pay"; a word that only opens with it does not."""
    asked = question_terms(query("how many vacation days do I get", ["vacation", "day"]))
    assert coverage(asked, "Vacation Policy\nAnnual leave, full-time: 30 working days") == 1.0
    assert holds("tag", text_words_of("Drei Tage vor Reiseantritt"))
    assert holds("pay", text_words_of("Overtime is paid with the next salary"))
    assert not holds("day", text_words_of("Dayton office"))
    assert not holds("car", text_words_of("Your badge card opens the door"))


def test_a_page_s_words_are_its_texts_words_together_as_if_read_as_one_text():
    texts = ["Resturlaub verfällt", "TS-E4471 boot test", "Rate limit of the API"]
    together, whole = TextWords.union(text_words_of(t) for t in texts), text_words_of("\n".join(texts))
    assert (together.exact, together.stems) == (whole.exact, whole.stems)
    for spelling in ("urlaub", "verfallen", "e4471", "limits", "rate", "separate", "boot test"):
        assert holds(spelling, together) == holds(spelling, whole), spelling


def test_a_word_holds_a_term_when_its_coverage_is_above_nothing():
    asked = question_terms(query("who approved the quaymaster release", ["approve", "quaymaster", "release"]))
    for word in ("quaymaster", "approved", "releases", "mira", "the"):
        assert holds_any(asked, word) == (coverage(asked, word) > 0), word
    assert holds_any(asked, "quaymaster") and not holds_any(asked, "mira")
    assert holds_any([], "mira") and coverage([], "mira") == 1.0  # a question without content terms


def test_the_pages_matching_a_question_are_those_whose_coverage_is_above_nothing():
    """Below a first page that is no good match, a search lists only these: one holding the question in a word of its
    title, of another form ("releases") or translated, never one that holds none of it."""
    asked = question_terms(query("Freigabe des Quaymaster-Release", ["freigabe", "quaymaster", "release"], lang="de",
                                 translated={"en": {"freigabe": ["approval"]}}))
    pages = [page("u/title", "Quaymaster overview", "Ports and berths."), page("u/form", "Notes", "Two releases a year."),
             page("u/translated", "Sign-off", "Approval by the CAB."), page("u/none", "Canteen", "Lunch is at noon.")]
    kept = matching(pages, asked)
    assert [found.items[0]["_source"]["url"] for found in kept] == ["u/title", "u/form", "u/translated"]
    judged = judge_all(pages, query("Freigabe des Quaymaster-Release", ["freigabe", "quaymaster", "release"],
                                    lang="de", translated={"en": {"freigabe": ["approval"]}}), [])
    assert [judgement.coverage > 0 for judgement in judged] == [True, True, True, False]
    assert matching(pages, []) == pages  # a question without content terms: every page


def test_a_missing_rare_name_costs_more_than_a_missing_common_word():
    asked = question_terms(query("who approved the quaymaster release", ["approve", "quaymaster", "release"]))
    without_name = coverage(asked, "The release was approved by Mira.")
    without_common = coverage(asked, "Quaymaster was approved by Mira.")
    assert without_name < without_common < 1.0


def test_a_translation_holds_the_term_it_translates():
    asked = question_terms(query("Urlaub", ["urlaub"], lang="de", translated={"en": {"urlaub": ["vacation"]}}))
    assert coverage(asked, "Vacation policy for all staff") == 1.0


def test_agreement_counts_the_lists_that_rank_the_page_among_their_first():
    top = [["a", "b", "c"], ["b", "d", "e"]]
    assert agreement("b", top) == 1.0 and agreement("a", top) == 0.5 and agreement("z", top) == 0.0


def test_confidence_rises_with_the_signal():
    rates = [calibrated(signal / 20) for signal in range(21)]
    assert rates == sorted(rates) and rates[0] == CALIBRATION[0][1]


def test_a_page_holding_the_question_is_strong_and_one_holding_none_of_it_none():
    asked = query("When does unused vacation expire?", ["unused", "vacation", "expire"])
    answering = page("https://w/vacation", "Vacation policy", "Unused vacation days expire on 31 March.")
    elsewhere = page("https://w/boot", "Boot test report", "The machine failed UEFI boot.")
    ranked = [hits("https://w/vacation", "https://w/boot"), hits("https://w/vacation")]
    strong, none = judge_all([answering, elsewhere], asked, ranked)
    assert strong.verdict == STRONG and none.verdict == NONE and strong.confidence > none.confidence


def test_a_code_the_question_splits_is_held_where_the_page_writes_it_whole():
    asked = question_terms(query("TS-E4471", ["ts", "e4471"]))
    assert coverage(asked, "TS-E4471 means the buoy's modem refused the certificate.") == 1.0
    assert coverage(asked, "TS-E2210 means a frame was dropped.") < 0.5  # its neighbour code is not it


def test_a_date_is_held_where_the_page_writes_it_in_another_form_and_another_date_is_not_it():
    asked = question_terms(query("Wer fehlte am 5. Februar 2025?",
                                 ["fehlen", "5", "februar", "2025", "2025-02-05", "--02-05"], lang="de",
                                 translated={"en": {"fehlen": ["missing", "absent"]}}))
    assert coverage(asked, "2025-02-05 Weekly Sync. Absent: Greta (missing)") == 1.0
    assert coverage(asked, "Weekly sync of 5 February 2025, Greta missing") == 1.0
    assert coverage(asked, "2025-02-12 Weekly Sync. Greta missing") < 0.5  # the next week's page


def test_a_name_the_corpus_writes_nowhere_lowers_the_confidence_more_than_one_it_writes_elsewhere():
    asked = query("When does the Rotterdam office close?", ["rotterdam", "office", "close"])
    found = page("https://w/offices", "Offices", "The office closes at 18:00.")
    ranked = [hits("https://w/offices"), hits("https://w/offices")]
    asked_about: list[list[str]] = []

    def corpus_holds(terms: list[str], known: set[str]) -> set[str]:
        asked_about.append(terms)
        return set(terms) & known

    elsewhere, = judge_all([found], asked, ranked, lambda terms: corpus_holds(terms, {"rotterdam"}))
    nowhere, = judge_all([found], asked, ranked, lambda terms: corpus_holds(terms, set()))
    assert nowhere.coverage < elsewhere.coverage and nowhere.confidence <= elsewhere.confidence
    assert asked_about == [["rotterdam"], ["rotterdam"]]  # only the words no judged page holds are looked up


def test_a_corrected_typo_is_judged_as_the_word_it_stands_for_not_as_a_name_nobody_writes():
    found = page("https://w/first-week", "Your first week", "Set your password from home.")
    ranked = [hits("https://w/first-week"), hits("https://w/first-week")]
    nowhere = lambda terms: set()  # noqa: E731 - the corpus writes neither the typo nor anything else asked about
    typed, = judge_all([found], query("how do I set my pasword password", ["set", "pasword", "password"],
                                      respelled={"pasword": ["password"]}), ranked, nowhere)
    spelled, = judge_all([found], query("how do I set my password", ["set", "password"]), ranked, nowhere)
    assert typed == spelled and typed.coverage == 1.0
    # a page that writes the word as typed holds it too
    as_typed = question_terms(query("pasword password", ["pasword", "password"], respelled={"pasword": ["password"]}))
    assert len(as_typed) == 1 and coverage(as_typed, "Reset your pasword here.") == 1.0
    # a run-together word stands for both its parts; without them among the terms it stays a term of its own
    split = query("ratelimit rate limit", ["ratelimit", "rate", "limit"], respelled={"ratelimit": ["rate", "limit"]})
    assert coverage(question_terms(split), "The rate limit is 100 requests.") == 1.0
    cut = query("ratelimit rate", ["ratelimit", "rate"], respelled={"ratelimit": ["rate", "limit"]})
    assert len(question_terms(cut)) == 2


def test_a_follow_up_read_with_carried_terms_is_judged_through_the_follow_up_map():
    found = page("https://w/bike", "Bike leasing", "You can lease two bikes at a time.")
    ranked = [hits("https://w/bike"), hits("https://w/bike")]
    alone, = judge_all([found], query("how many bikes?", ["bike"]), ranked)
    following, = judge_all([found], query("how many bikes?", ["bike"], carried={"lease": 1.0}), ranked)
    assert alone.signal == following.signal == 1.0  # the page holds every term either way
    assert alone.confidence == round(calibrated(1.0, CALIBRATION), 3)
    assert following.confidence == round(calibrated(1.0, FOLLOW_UP_CALIBRATION), 3)


def test_a_carried_term_the_corpus_writes_nowhere_weighs_more_like_a_name_of_the_questions_own():
    asked = query("and the deadline?", ["deadline"], carried={"quaymaster": 1.0, "release": 1.0})
    found = page("https://w/release", "Release calendar", "The release deadline is Friday.")
    ranked = [hits("https://w/release"), hits("https://w/release")]
    known, = judge_all([found], asked, ranked, lambda terms: set(terms))
    unknown, = judge_all([found], asked, ranked, lambda terms: set())
    assert unknown.coverage < known.coverage < 1.0  # the other organisation's product the page lacks


def test_a_first_result_right_half_the_time_is_weak_and_one_right_more_often_strong():
    assert verdict_of(0.5) == WEAK  # a coin toss is not "more likely right than wrong"
    assert verdict_of(0.501) == STRONG
    assert verdict_of(0.149) == NONE
