"""Near-duplicate pages folded into one result, on plain data: which page is shown, what is listed under it,
and what is never folded."""
from __future__ import annotations

from core.settings import SearchConfig
from search.duplicates import canonical_of, collapse_near_duplicates, copies
from search.fusion import page_parts
from search.grouping import Group
from search.present import hits

BITS = SearchConfig().near_duplicate_bits
SIGNATURE = "9f3a5c7e11d20b48"
ONE_BIT_OFF = "9f3a5c7e11d20b49"
FAR = "60c5a381ee2df4b7"  # every bit flipped


def page(doc: str, title: str, space: str = "ENG", created: str = "", updated: str = "", labels=(),
         signature: str = SIGNATURE, url: str = "") -> dict:
    return {"doc_id": doc, "url": url or f"https://wiki.example.org/pages/{doc}", "title": title, "space": space,
            "created": created, "updated": updated, "labels": list(labels), "page_simhash": signature,
            "kind": "passage", "text": f"text of {title}"}


def group_of(src: dict, score: float) -> Group:
    return Group([{"_id": src["doc_id"], "_score_fused": score, "_source": src}], score)


def shown(groups: list[Group]) -> list[tuple[str, list[str]]]:
    """Each result's page and the pages listed under it."""
    return [(g.items[0]["_source"]["doc_id"], [d["doc_id"] for d in g.items[0].get("_duplicates", [])])
            for g in groups]


def test_a_team_space_page_is_shown_over_its_copy_in_a_personal_space():
    pages = [page("mine", "Deploy checklist", space="~jdoe", created="2023-01-01"),
             page("team", "Deploy checklist", space="ENG", created="2024-01-01")]
    assert canonical_of(pages) == 1


def test_the_original_is_shown_over_its_later_copy():
    pages = [page("copy", "Copy of Deploy checklist", created="2024-05-02"),
             page("orig", "Deploy checklist", created="2022-11-20")]
    assert canonical_of(pages) == 1


def test_without_creation_dates_the_page_titled_copy_of_is_the_copy():
    pages = [page("copy", "Copy of Deploy checklist"), page("orig", "Deploy checklist")]
    assert canonical_of(pages) == 1


def test_a_copy_updated_after_its_archived_original_replaces_it():
    pages = [page("orig", "Deploy checklist", created="2021-03-01", updated="2021-06-01", labels=["Archived"]),
             page("copy", "Deploy checklist (2024)", created="2024-01-10", updated="2024-02-01")]
    assert canonical_of(pages) == 1


def test_an_archived_original_updated_after_its_copy_stays():
    pages = [page("orig", "Deploy checklist", created="2021-03-01", updated="2024-02-20", labels=["archived"]),
             page("copy", "Copy of Deploy checklist", created="2024-01-10", updated="2024-02-01")]
    assert canonical_of(pages) == 0


def test_an_archived_original_gives_way_to_a_copy_updated_a_day_after_it():
    pages = [page("orig", "Deploy checklist", created="2021-03-01", updated="2024-01-31", labels=["archived"]),
             page("copy", "Copy of Deploy checklist", created="2024-01-10", updated="2024-02-01")]
    assert canonical_of(pages) == 1


def test_an_original_that_is_not_archived_stays_however_new_its_copy():
    pages = [page("orig", "Deploy checklist", created="2021-03-01", updated="2021-06-01"),
             page("copy", "Copy of Deploy checklist", created="2024-01-10", updated="2024-02-01")]
    assert canonical_of(pages) == 0


def test_a_copy_ranked_first_is_folded_under_its_original_at_the_copy_s_place():
    copy = page("copy", "Copy of Deploy checklist", space="~jdoe", created="2024-05-02", updated="2024-05-02")
    orig = page("orig", "Deploy checklist", created="2022-11-20", signature=ONE_BIT_OFF)
    other = page("other", "Incident postmortems", signature=FAR)
    folded = collapse_near_duplicates([group_of(copy, 3.0), group_of(other, 2.0), group_of(orig, 1.0)], BITS)
    assert shown(folded) == [("orig", ["copy"]), ("other", [])]
    assert [g.score for g in folded] == [3.0, 2.0]
    [first, _] = hits(folded, set())
    assert first.url == orig["url"]
    assert first.duplicates == [{"url": copy["url"], "title": "Copy of Deploy checklist", "space": "~jdoe",
                                 "updated": "2024-05-02"}]


def test_an_explained_fold_books_what_the_copy_s_better_score_adds_to_its_original():
    copy = group_of(page("copy", "Copy of Deploy checklist", space="~jdoe"), 3.0)
    orig = group_of(page("orig", "Deploy checklist", signature=ONE_BIT_OFF), 1.0)
    for found in (copy, orig):
        found.items[0]["_parts"] = {"bm25": found.score}
    [folded] = collapse_near_duplicates([copy, orig], BITS)
    assert folded.items[0]["_parts"] == {"bm25": 1.0, "near_duplicate_fold": 2.0}
    assert sum(page_parts(folded.items, SearchConfig().page_support).values()) == folded.score


def test_pages_filled_in_from_one_template_are_not_folded_even_when_their_texts_are_close():
    groups = [group_of(page("r40", "HVX 4.0 Release Test Report"), 2.0),
              group_of(page("r41", "HVX 4.1 Release Test Report", signature=ONE_BIT_OFF), 1.0)]
    assert shown(collapse_near_duplicates(groups, BITS)) == [("r40", []), ("r41", [])]


def test_pages_without_a_readable_signature_and_a_document_s_other_pages_stay_apart():
    manual = [page("pdf:manual", f"Manual p{n}", url=f"https://files.example.org/manual.pdf#page={n}")
              for n in (1, 2)]
    stubs = [page("stub1", "Start here", signature=""), page("stub2", "Start here", signature=""),
             page("damaged", "Start here", signature="zz"), page("damaged2", "Start here", signature="zz")]
    groups = [group_of(src, 4.0 - i) for i, src in enumerate([*manual, *stubs])]
    assert shown(collapse_near_duplicates(groups, BITS)) == [
        ("pdf:manual", []), ("pdf:manual", []), ("stub1", []), ("stub2", []), ("damaged", []), ("damaged2", [])]


def test_a_copy_with_an_unsafe_link_is_listed_without_it():
    orig = page("orig", "Deploy checklist", created="2022-11-20")
    copy = page("copy", "Copy of Deploy checklist", created="2024-05-02", url="javascript:alert(1)")
    [hit] = hits(collapse_near_duplicates([group_of(orig, 2.0), group_of(copy, 1.0)], BITS), set())
    assert hit.duplicates[0]["url"] == "" and hit.duplicates[0]["title"] == "Copy of Deploy checklist"


def test_pages_as_far_apart_as_the_threshold_fold_and_one_bit_further_do_not():
    """The bits flipped are spread over every block but one of the signature's, the farthest the index looks."""
    base = int(SIGNATURE, 16)
    spread = [n * (64 // (BITS + 1)) for n in range(BITS + 1)]  # one bit in each block
    at_threshold = f"{base ^ sum(1 << bit for bit in spread[:BITS]):016x}"
    beyond = f"{base ^ sum(1 << bit for bit in spread):016x}"
    for signature, folded in ((at_threshold, ["far"]), (beyond, [])):
        groups = [group_of(page("near", "Deploy checklist"), 2.0),
                  group_of(page("far", "Copy of Deploy checklist", signature=signature), 1.0)]
        assert shown(collapse_near_duplicates(groups, BITS))[0] == ("near", folded)


def test_a_page_is_told_a_copy_of_another_as_a_fold_would_join_them():
    """``copies``: what lets the multilingual stage's check see past the first page's copies."""
    original = group_of(page("a", "Travel Policy"), 2.0)
    assert copies(original, group_of(page("b", "Copy of Travel Policy", signature=ONE_BIT_OFF), 1.9), BITS)
    assert not copies(original, group_of(page("c", "Remote Work", signature=FAR), 1.0), BITS)
    assert not copies(group_of(page("r40", "HVX 4.0 Release Test Report"), 2.0),
                      group_of(page("r41", "HVX 4.1 Release Test Report", signature=ONE_BIT_OFF), 1.0), BITS)
    manual = [group_of(page("pdf:m", f"Manual p{n}", url=f"https://files.example.org/m.pdf#page={n}"), 2.0 - n)
              for n in (1, 2)]
    assert not copies(*manual, BITS)  # a document's other page is never its copy
    assert not copies(original, group_of(page("d", "Travel Policy", signature="zz"), 1.0), BITS)  # damaged
