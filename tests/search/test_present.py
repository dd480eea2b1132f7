"""Snippets, hits with their page's other evidence, facets and paging, on plain data."""
from __future__ import annotations

from search.grouping import Group
from search.present import facet_counts, highlight_terms, hits, newest_first, page_of, snippet
from search.query import Query, ResolvedQuery


def test_snippet_marks_whole_words_and_escapes_html():
    text = "Reset the <VPN> password; the VPNs are reset nightly."
    marked = snippet(text, {"vpn", "reset", "is"})
    assert marked.startswith("<mark>Reset</mark> the &lt;<mark>VPN</mark>&gt;")
    assert "VPNs" in marked and "<mark>VPNs" not in marked


def test_snippet_opens_a_third_of_its_width_before_the_first_match():
    text = "x" * 300 + " needle " + "y" * 300
    marked = snippet(text, {"needle"}, width=90)
    assert marked.startswith("…" + "x" * 29 + " <mark>needle</mark>") and marked.endswith("…")


def test_snippet_without_terms_is_the_escaped_opening():
    assert snippet("a < b", set()) == "a &lt; b"
    assert snippet("", {"term"}) == ""


def _evidence(key: str, kind: str, text: str, score: float) -> dict:
    return {"_id": key, "_score_fused": score,
            "_source": {"url": "https://wiki/p", "title": "P", "kind": kind, "text": text, "id": key}}


def test_a_hit_lists_up_to_three_other_evidence_without_page_units_or_repeats():
    items = [_evidence("1", "passage", "buoy one", 0.9), _evidence("2", "page", "buoy page", 0.8),
             _evidence("3", "passage", "buoy one", 0.7), _evidence("4", "list", "buoy two", 0.6),
             _evidence("5", "table", "buoy three", 0.5), _evidence("6", "code", "buoy four", 0.4),
             _evidence("7", "passage", "buoy five", 0.3)]
    (hit,) = hits([Group(items, 1.23456789)], {"buoy"})
    assert hit.score == 1.234568 and hit.evidence_id == "1"
    assert [m["snippet"] for m in hit.more] == ["<mark>buoy</mark> two", "<mark>buoy</mark> three",
                                                "<mark>buoy</mark> four"]


def test_a_page_facts_hit_shows_the_facts_and_is_not_repeated_beneath_a_content_hit():
    facts = _evidence("f", "page_facts",
                      "P, in space Operations (OPS). Page last updated (edited) on 2025-03-02 by Lea.", 0.9)
    (hit,) = hits([Group([facts, _evidence("1", "passage", "buoy one", 0.5)], 1.0)], {"lea"})
    assert hit.kind == "page_facts" and "by <mark>Lea</mark>" in hit.snippet
    (hit,) = hits([Group([_evidence("1", "passage", "buoy one", 0.9), facts], 1.0)], {"buoy"})
    assert hit.more == []


def test_a_hit_names_its_kind_in_words_with_its_page_and_says_when_and_by_whom_it_was_updated():
    pdf_page = _evidence("1", "pdf_page", "buoy one", 0.9)
    pdf_page["_source"] |= {"page": 3, "updated": "2025-02-27T16:05:41.000Z", "author": "Tomasz Wierzbicki"}
    (hit,) = hits([Group([pdf_page, _evidence("2", "table_row", "buoy two", 0.5)], 1.0)], {"buoy"})
    assert (hit.label, hit.updated, hit.author) == ("PDF page 3", "2025-02-27T16:05:41.000Z", "Tomasz Wierzbicki")
    assert [m["label"] for m in hit.more] == ["Table row"]
    (facts,) = hits([Group([_evidence("f", "page_facts", "P, in space OPS.", 0.9)], 1.0)], set())
    assert facts.label == "Page details" and facts.updated == facts.author == ""


def test_table_rows_read_as_headers_and_values_in_a_row_a_table_or_a_section_and_beneath_a_hit():
    """As the answer card shows it, not as the sentence written for the index ("Row 2 in Table 1: … is …")."""
    row = _evidence("1", "table_row", "Row 2 in Table 1: Severity is SEV-1, and Response time is 15 minutes", 0.9)
    other = _evidence("2", "table_row", "Row 3 in Table 1: Severity is SEV-2, and Response time is 1 hour", 0.5)
    (hit,) = hits([Group([row, other], 1.0)], {"response"})
    assert hit.snippet == "Severity: SEV-1 · <mark>Response</mark> time: 15 minutes"
    assert [m["snippet"] for m in hit.more] == ["Severity: SEV-2 · <mark>Response</mark> time: 1 hour"]
    table = _evidence("3", "table", "Table 1 columns: Severity, Response time. Row 1 in Table 1: Severity is SEV-1, "
                      "and Response time is 15 minutes. Row 2 in Table 1: Severity is SEV-2.", 0.9)
    (hit,) = hits([Group([table], 1.0)], set())
    assert hit.snippet == "Severity: SEV-1 · Response time: 15 minutes. Severity: SEV-2."
    section = _evidence("4", "section", "Sonderurlaub Row 1 in Table 1: Eigene Hochzeit is 2 Tage. Row 2 in Table 1: "
                        "BIOS is E3.24. Einsätze auf See werden gesondert geregelt.", 0.9)
    (hit,) = hits([Group([section], 1.0)], set())
    assert hit.snippet == "Sonderurlaub Eigene Hochzeit: 2 Tage. BIOS: E3.24. Einsätze auf See werden gesondert geregelt."


def test_a_row_whose_cells_hold_full_stops_reads_whole_and_the_text_after_the_table_stays_apart():
    """A title's abbreviation ("Dr.") or a cell of two sentences does not end the row; the prose after it is not
    read as one of its cells."""
    section = _evidence("5", "section", "Row 1 in Table 1: Severity is SEV-1, and Escalation is CTO (Dr. Henrike "
                        "Vogelsang) after 1 hour, and Updates is Every hour. Row 2 in Table 1: Term is Freeze "
                        "exception, and Definition is One fix after the code freeze. Only for blockers., and See also "
                        "is —. Nights, and weekends too.", 0.9)
    (hit,) = hits([Group([section], 1.0)], set())
    assert hit.snippet == ("Severity: SEV-1 · Escalation: CTO (Dr. Henrike Vogelsang) after 1 hour · Updates: Every "
                           "hour. Term: Freeze exception · Definition: One fix after the code freeze. Only for "
                           "blockers. · See also: —. Nights, and weekends too.")


def test_hits_keep_the_order_they_are_given_and_are_paged():
    """The searcher orders the pages (best match first, or newest first); a lower score listed first stays first."""
    ranked = hits([Group([_evidence("1", "passage", "a", 0.1)], 0.1),
                   Group([_evidence("2", "passage", "b", 0.2)], 0.2)], set())
    assert [h.evidence_id for h in ranked] == ["1", "2"]
    assert [h.evidence_id for h in page_of(ranked, 1, 2)] == ["2"]


def test_facets_count_each_result_once_per_value_its_evidence_holds():
    ops_page = Group([_evidence("1", "passage", "a", 0.3), _evidence("2", "table", "b", 0.2)], 0.3)
    ops_page.items[1]["_source"]["space"] = "OPS"
    ops_page.items[0]["_source"]["space"] = "OPS"
    hr_page = Group([_evidence("3", "passage", "c", 0.1)], 0.1)
    hr_page.items[0]["_source"]["space"] = "HR"
    assert facet_counts([ops_page, hr_page]) == {"space": {"OPS": 1, "HR": 1},
                                                  "kind": {"passage": 2, "table": 1}}


def test_highlight_terms_take_lemmas_carried_terms_translations_and_words():
    query = Query("Wie viele Lerntage?", "de", ResolvedQuery("Wie viele Lerntage?", {"budget": 1.0}, "", {}, False),
                  ["lerntag"], {"en": {"lerntag": ["learn", "day"]}})
    assert highlight_terms(query) >= {"lerntag", "budget", "learn", "day", "lerntage"}
    assert "wie" not in highlight_terms(query)


def _linked(url: str) -> Group:
    item = _evidence(url, "passage", "buoy", 0.5)
    item["_source"]["url"] = url
    return Group([item], 0.5)


def test_a_link_ingest_would_refuse_today_is_not_shown_from_an_older_index():
    refused = ["javascript:alert(document.domain)", "data:text/html,<script>x</script>", "/spaces/OPS/pages/1",
               "//evil.example/p", "http://user:secret@wiki.example/p", "https://wiki.example/p?token=abc",
               "file:///srv/share/p.pdf"]
    shown = hits([_linked(url) for url in refused], {"buoy"})
    assert [h.url for h in shown] == [""] * len(refused) and all(h.title == "P" for h in shown)  # listed, no link
    assert hits([_linked("https://wiki.example/p")], {"buoy"})[0].url == "https://wiki.example/p"


def test_a_file_link_is_shown_only_under_the_configured_file_share():
    shared = _linked("file:///srv/share/ops/rota.pdf#page=2")
    assert hits([shared], set(), "file:///srv/share/")[0].url == "file:///srv/share/ops/rota.pdf#page=2"
    assert hits([shared], set(), "file:///srv/other/")[0].url == ""


def _page(url: str, updated: str, score: float) -> Group:
    return Group([{"_id": url, "_score_fused": score, "_source": {"url": url, "updated": updated}}], score)


def test_newest_first_orders_the_matching_pages_by_date_and_leaves_the_rest_in_their_rank():
    ranked = [_page("best", "2024-03-01T10:00:00Z", 3.0), _page("undated", "", 2.5),
              _page("unrelated-new", "2025-12-01T00:00:00Z", 2.0), _page("newer", "2025-01-05T09:00:00+01:00", 1.5),
              _page("no-zone", "2025-01-05T08:30:00", 1.2), _page("unrelated-old", "2020-01-01", 1.0)]
    matching = [True, True, False, True, True, False]
    ordered = [found.items[0]["_source"]["url"] for found in newest_first(ranked, matching)]
    # 09:00 at UTC+1 is 08:00 UTC, before 08:30 of a date without a zone (read as UTC); undated after the dated
    assert ordered == ["no-zone", "newer", "best", "undated", "unrelated-new", "unrelated-old"]
    assert newest_first(ranked, [False] * len(ranked)) == ranked
