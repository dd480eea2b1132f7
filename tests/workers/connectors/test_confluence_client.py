"""The Confluence client against the Confluence stand-in, Cloud and Data Center: listings (full, since a time,
resumed), page JSON that ingests like the exported files, restrictions, attachments, users, and the failures
a real wiki throws (wrong token, 429 storms, 500s, deleted pages, unsupported CQL)."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from tests.standins import STANDIN_HOSTS
from tests.standins.confluence import ConfluenceStandIn
from tests.standins.wiki import ESCALATION, HR_HOME, RELEASE_REPORT, RESTRICTED, SMALL_PDF, wiki_folder

from ingest.config import IngestConfig
from ingest.pipeline import evidence_for
from ingest.sources import SourceFile
from text.lemmas import Lemmatizer
from workers.connectors.confluence.connector import (AuthError, ConfluenceClient, PageGone, SourceError,
                                                     TooLarge)
from workers.connectors.confluence.models import ConfluenceConfig

WIKI = wiki_folder()
PDF = WIKI / "pdf"
WIKI_PAGES = {page["id"]: page for page in (json.loads(path.read_text(encoding="utf-8"))
                                              for path in (WIKI / "pages").glob("*.json"))}
SMALL_PAGES = 10  # results per listing answer in these tests: the wiki's 29 pages take three answers
AFTER_EDITS = "2025-03-22T00:00:00Z"  # later than every page's edit by more than the client's time-zone margin


@pytest.fixture(params=["cloud", "data-center"])
def wiki(request):
    with ConfluenceStandIn(WIKI / "pages", WIKI / "users.json", pdf_dir=PDF, deployment=request.param,
                           attach={HR_HOME: [SMALL_PDF, "manifest.json"]}) as standin:
        yield standin


def config_for(wiki: ConfluenceStandIn, **changes) -> ConfluenceConfig:
    """A config that signs in to the stand-in, unpaced (the pace is the session's, tested with it)."""
    values = dict(url=wiki.url, deployment=wiki.deployment, token=wiki.token,
                  user=wiki.user if wiki.deployment == "cloud" else "", page_size=SMALL_PAGES,
                  requests_per_second=0, attachments=["pdf"], allowed_private_hosts=STANDIN_HOSTS)
    return ConfluenceConfig(**{**values, **changes})


@pytest.fixture
def client(wiki):
    return ConfluenceClient(config_for(wiki))


def listed(client: ConfluenceClient, **kwargs) -> list:
    return [ref for answer in client.list_pages(**kwargs) for ref in answer.items]


def test_a_full_listing_returns_every_page_with_version_ancestors_and_restrictions(client, wiki):
    answers = list(client.list_pages())
    refs = [ref for answer in answers for ref in answer.items]
    assert len(answers) == 3 and answers[-1].next_link is None and all(a.next_link for a in answers[:-1])
    assert sorted(ref.id for ref in refs) == sorted(WIKI_PAGES)
    for ref in refs:
        page = WIKI_PAGES[ref.id]
        restrictions = page["restrictions"]["read"]["restrictions"]
        assert (ref.title, ref.version, ref.when, ref.space, ref.status) == (
            page["title"], page["version"]["number"], page["version"]["when"], page["space"]["key"], "current")
        assert ref.ancestors == [a["id"] for a in page["ancestors"]]
        assert ref.read_groups == [g["name"] for g in restrictions["group"]["results"]]
    assert [int(r.id) for r in refs] == sorted(int(r.id) for r in refs), "listed in creation order"
    assert client.requests_made == 3 and wiki.bodies_fetched() == []
    assert wiki.count("/rest/api/content/search") == 3


def test_a_space_scope_lists_only_those_spaces(wiki):
    refs = listed(ConfluenceClient(config_for(wiki, spaces=["HR", "KB"])))
    assert {r.space for r in refs} == {"HR", "KB"}
    assert len(refs) == sum(1 for p in WIKI_PAGES.values() if p["space"]["key"] in ("HR", "KB"))


def test_since_lists_only_pages_edited_after_it(client, wiki):
    wiki.edit(RELEASE_REPORT, body="<p>Retested: UEFI boot passes now.</p>")
    wiki.edit(HR_HOME, title="People and HR")
    refs = listed(client, since=AFTER_EDITS)
    assert sorted(r.id for r in refs) == sorted([RELEASE_REPORT, HR_HOME])
    assert {r.id: r.version for r in refs} == {RELEASE_REPORT: WIKI_PAGES[RELEASE_REPORT]["version"]["number"] + 1,
                                               HR_HOME: WIKI_PAGES[HR_HOME]["version"]["number"] + 1}
    assert listed(client, since="2099-01-01T00:00:00+02:00") == []


def test_resume_from_a_saved_next_link_continues_without_repeats(client, wiki):
    listing = client.list_pages()
    first = next(listing)
    listing.close()  # the worker is killed here; a checkpoint holds first.next_link
    resumed = ConfluenceClient(config_for(wiki))  # a new worker
    rest = [ref.id for answer in resumed.list_pages(resume=first.next_link) for ref in answer.items]
    seen = [ref.id for ref in first.items]
    assert len(seen) == SMALL_PAGES and len(rest) == len(WIKI_PAGES) - SMALL_PAGES
    assert sorted(seen + rest) == sorted(WIKI_PAGES)
    assert wiki.count("/rest/api/content/search") == 1 + resumed.requests_made


def test_a_link_naming_another_host_is_followed_on_the_configured_wiki_so_the_token_stays_there(client, wiki):
    listing = client.list_pages()
    first = next(listing)
    listing.close()
    elsewhere = "http://intruder.invalid:9" + first.next_link  # an answer that names some other server
    rest = [ref.id for answer in client.list_pages(resume=elsewhere) for ref in answer.items]
    assert sorted([ref.id for ref in first.items] + rest) == sorted(WIKI_PAGES)


def test_pages_edited_during_a_listing_hide_no_other_page(client, wiki):
    listing = client.list_pages()
    first = next(listing)
    for ref in first.items[:3]:  # each edit would move the page to the end of a listing by lastmodified
        wiki.edit(ref.id, title=ref.title + " (edited)")
    ids = [ref.id for ref in first.items] + [ref.id for answer in listing for ref in answer.items]
    assert sorted(ids) == sorted(WIKI_PAGES)


def test_page_json_ingests_like_the_exported_file_with_the_page_url_and_mention_names(client):
    data = client.page_json(ESCALATION)
    body = json.loads(data)["body"]["storage"]["value"]
    users = client.users(re.findall(r'ri:account-id="([^"]+)"', body))
    assert users == {"5c5e03957236228c9f6073b5": "Niels Oudshoorn"}
    config, lemmatizer = IngestConfig(), Lemmatizer()
    parsed, evidence = evidence_for(SourceFile(name=f"{ESCALATION}.json", data=data, users=users), config, lemmatizer)
    exported = (WIKI / "pages" / f"{ESCALATION}.json").read_bytes()
    _, from_file = evidence_for(SourceFile(name=f"{ESCALATION}.json", data=exported, users=users), config, lemmatizer)
    assert parsed.document.url == "https://wiki.harborlane.example" + WIKI_PAGES[ESCALATION]["_links"]["webui"]
    assert parsed.document.breadcrumb == ["Operations Home"]
    assert [e.text for e in evidence] == [e.text for e in from_file] and evidence
    assert any("Niels Oudshoorn" in e.text for e in evidence)


def test_users_are_asked_for_once_and_unknown_ids_are_left_out(client, wiki):
    assert client.users(["5cc8978499c5c136f8ffc728", "nobody-knows-me"]) == {
        "5cc8978499c5c136f8ffc728": "Katrin Ahlers"}
    before = wiki.count("/rest/api/user")
    assert client.users(["nobody-knows-me", "5cc8978499c5c136f8ffc728"]) == {
        "5cc8978499c5c136f8ffc728": "Katrin Ahlers"}
    assert wiki.count("/rest/api/user") == before == 2


def test_a_wrong_token_is_an_auth_error_that_never_shows_the_token(wiki):
    secret = "wrong-token-7731-do-not-print"
    client = ConfluenceClient(config_for(wiki, token=secret))
    with pytest.raises(AuthError) as caught:
        client.page_json(RELEASE_REPORT)
    message = str(caught.value)
    assert secret not in message and wiki.token not in message and "401" in message
    assert ("API token" in message) if wiki.deployment == "cloud" else ("personal access token" in message)


def test_a_429_every_second_request_still_yields_every_page(client, wiki):
    wiki.fail_every(2, status=429, retry_after=0)  # asking for no wait: the retries, not the waits, are shown
    refs = listed(client)
    assert sorted(r.id for r in refs) == sorted(WIKI_PAGES)
    throttled = [e for e in wiki.log if e.status == 429]
    assert len(throttled) >= 2 and len(wiki.log) == client.requests_made + len(throttled)


def test_a_429_is_retried_only_after_the_wait_its_retry_after_asks(client, wiki):
    wiki.fail_every(2, status=429, retry_after=1)
    for page_id in (RELEASE_REPORT, ESCALATION):
        assert json.loads(client.page_json(page_id))["id"] == page_id
    assert [e.status for e in wiki.log] == [200, 429, 200]
    throttled, retried = wiki.log[1], wiki.log[2]
    assert retried.at - throttled.at >= 1.0  # the client waited as asked, not at once


def test_500s_are_retried(client, wiki):
    wiki.fail_every(2, status=500)
    for page_id in (RELEASE_REPORT, ESCALATION, HR_HOME):
        assert json.loads(client.page_json(page_id))["id"] == page_id
    assert [e.status for e in wiki.log] == [200, 500, 200, 500, 200] and client.requests_made == 3


def test_a_deleted_page_is_gone_and_an_archived_one_leaves_the_listing(client, wiki):
    wiki.delete(RELEASE_REPORT)
    wiki.archive(ESCALATION)
    with pytest.raises(PageGone) as caught:
        client.page_json(RELEASE_REPORT)
    assert caught.value.page_id == RELEASE_REPORT and RELEASE_REPORT in str(caught.value)
    assert json.loads(client.page_json(ESCALATION))["status"] == "archived"
    ids = {r.id for r in listed(client)}
    assert RELEASE_REPORT not in ids and ESCALATION not in ids and len(ids) == len(WIKI_PAGES) - 2


def test_a_moved_page_lists_its_new_ancestors_and_space(client, wiki):
    wiki.move("7340271", parent=HR_HOME)  # "TraceLane API Overview", from ENG/Engineering Home
    ref = next(r for r in listed(client) if r.id == "7340271")
    assert (ref.ancestors, ref.space, ref.version) == ([HR_HOME], "HR", WIKI_PAGES["7340271"]["version"]["number"])


def test_attachments_are_listed_by_extension_and_downloaded(client, wiki):
    attachments = client.attachments(HR_HOME)
    assert [(a.title, a.media_type, a.version, a.page_id) for a in attachments] == [
        (SMALL_PDF, "application/pdf", 1, HR_HOME)]
    manual = (PDF / SMALL_PDF).read_bytes()
    assert attachments[0].size == len(manual) and client.download(attachments[0]) == manual
    wiki.add_attachment(HR_HOME, PDF / SMALL_PDF)
    assert [a.version for a in client.attachments(HR_HOME)] == [2]
    assert client.attachments(RELEASE_REPORT) == []


def test_an_attachment_over_the_limit_is_too_large_without_being_read(wiki):
    client = ConfluenceClient(config_for(wiki, max_attachment_bytes=10_000))
    manual = client.attachments(HR_HOME)[0]
    with pytest.raises(TooLarge) as caught:
        client.download(manual)
    assert caught.value.att == manual and "10000" in str(caught.value)
    assert wiki.count("/download/") == 0, "the listed size was enough to refuse it"
    with pytest.raises(TooLarge):
        client.download(dataclasses.replace(manual, size=0))  # a server that does not report the size
    assert [e.status for e in wiki.log if e.path.startswith("/download/")] == [200]


def test_restrictions_show_in_the_listing_without_a_version_change(client, wiki):
    wiki.restrict(RESTRICTED, groups=["hr-team", "payroll"], users=["5cc8978499c5c136f8ffc728"])
    ref = next(r for r in listed(client) if r.id == RESTRICTED)
    assert (ref.read_groups, ref.read_users) == (["hr-team", "payroll"], ["5cc8978499c5c136f8ffc728"])
    assert (ref.version, ref.when) == (WIKI_PAGES[RESTRICTED]["version"]["number"],
                                       WIKI_PAGES[RESTRICTED]["version"]["when"])
    assert client.read_restrictions(RESTRICTED) == (["hr-team", "payroll"], ["5cc8978499c5c136f8ffc728"])
    assert listed(client, since=AFTER_EDITS) == []
    wiki.unrestrict(RESTRICTED)
    ref = next(r for r in listed(client) if r.id == RESTRICTED)
    assert (ref.read_groups, ref.read_users, ref.version) == ([], [], WIKI_PAGES[RESTRICTED]["version"]["number"])


def test_an_unsupported_cql_is_a_source_error_with_confluences_reason(wiki):
    client = ConfluenceClient(config_for(wiki, cql='title ~ "runbook" OR label = "ops"'))
    with pytest.raises(SourceError) as caught:
        listed(client)
    assert "400" in str(caught.value) and "Could not parse cql" in str(caught.value)


def test_a_config_names_what_is_wrong_with_it():
    with pytest.raises(ValueError, match="deployment 'server'"):
        ConfluenceConfig(url="https://wiki.example.com", deployment="server", token="t")
    with pytest.raises(ValueError, match="account e-mail"):
        ConfluenceConfig(url="https://x.atlassian.net/wiki", deployment="cloud", token="t")
    with pytest.raises(ValueError, match="not an ISO date"):
        ConfluenceClient(ConfluenceConfig(url="https://wiki.example.com", deployment="data-center",
                                          token="t")).scope_cql(since="last tuesday")
