"""The search blueprint on the real services: search JSON, conversation POST, errors, health, the page, the
search log."""
from __future__ import annotations

import dataclasses
import json
import logging
import socket
from datetime import datetime

import pytest

from api.app import create_app, public_address
from core.index import delete_documents, replace_document
from tests.api.conftest import signed
from tests.test_samples import facts_table

FACTS = facts_table()
PASSWORD = "hunter2-secret"
# Pages a faulty source or an older ingest wrote with links today's ingest refuses.
OLD_LINKS = {"old-js": "javascript:alert(document.domain)", "old-creds": f"http://ops:{PASSWORD}@wiki.example/rota",
             "old-token": f"https://wiki.example/rota?token={PASSWORD}"}
OLD_WORD = "wombatrota"


def test_search_returns_hits_with_what_the_search_box_shows(client, sample_corpus):
    fact = next(f for f in FACTS if f["Kind"] == "rare error code")
    response = client.get("/api/search", query_string={"q": fact["Query"], "k": 5})
    assert response.status_code == 200
    data = response.get_json()
    assert isinstance(data["took_ms"], int)
    hit = data["hits"][0]
    assert hit["url"] == fact["Expected URL"]
    assert {"url", "title", "heading_path", "kind", "snippet", "score"} <= set(hit)
    assert "<mark>" in hit["snippet"]
    assert len(data["hits"]) <= 5
    assert (hit["space"], hit["space_name"]) == ("OPS", "Operations") and data["space_names"]["OPS"] == "Operations"


def test_a_signed_identity_opens_restricted_pages(client, sample_corpus):
    fact = next(f for f in FACTS if f["Visible to"] != "everyone")
    outside = client.get("/api/search", query_string={"q": fact["Query"], "k": 50}).get_json()
    assert fact["Expected URL"] not in [h["url"] for h in outside["hits"]]
    inside = client.get("/api/search", query_string={"q": fact["Query"]},
                        headers=signed("ana", fact["Visible to"])).get_json()
    assert inside["hits"][0]["url"] == fact["Expected URL"]


@pytest.mark.parametrize("headers", [
    lambda groups: {"X-Evident-Groups": groups},                                        # unsigned
    lambda groups: signed("ana", groups, secret="guessed"),                             # forged
    lambda groups: {**signed("ana", "staff"), "X-Evident-Groups": groups},              # groups added
])
def test_a_forged_identity_sees_public_results_only(client, sample_corpus, headers):
    fact = next(f for f in FACTS if f["Visible to"] != "everyone")
    response = client.get("/api/search", query_string={"q": fact["Query"], "k": 50},
                          headers=headers(fact["Visible to"]))
    data = response.get_json()
    assert response.status_code == 200
    assert fact["Expected URL"] not in [h["url"] for h in data["hits"]]
    assert any("identity not accepted" in w for w in data["warnings"])


def test_post_with_conversation_resolves_a_follow_up(client, sample_corpus):
    runbook = next(f for f in FACTS if f["Kind"] == "rare error code")["Expected URL"]
    body = {"q": "and how do I fix it?",
            "history": [{"q": "What does the error TS-E4471 mean?", "results": [{"url": runbook}]}]}
    data = client.post("/api/search", json=body).get_json()
    assert data["hits"][0]["url"] == runbook


def test_newest_first_orders_the_pages_that_match_by_their_last_update(client, sample_corpus):
    """The same pages as by relevance, those that match the question first, newest first; those that match nothing
    after them in their ranked order; the answer stays the best match's."""
    asked = {"q": "TideSense buoy firmware", "k": 50}
    best = client.get("/api/search", query_string=asked).get_json()
    newest = client.get("/api/search", query_string={**asked, "sort": "updated"}).get_json()
    matching = [h for h in newest["hits"] if h["verdict"] != "none"]
    assert newest["hits"][:len(matching)] == matching and len(matching) >= 3, newest["hits"]
    dates = [datetime.fromisoformat(h["updated"]) for h in matching if h["updated"]]
    assert dates == sorted(dates, reverse=True) and len(set(dates)) >= 3
    assert sorted(h["url"] for h in newest["hits"]) == sorted(h["url"] for h in best["hits"])
    by_relevance = [h["url"] for h in best["hits"] if h["verdict"] != "none"]
    assert [h["url"] for h in matching] != by_relevance  # the order changed: the best match is not the newest
    assert [h["url"] for h in newest["hits"][len(matching):]] == [h["url"] for h in best["hits"]
                                                                   if h["verdict"] == "none"]
    assert newest["answer"] == best["answer"] and newest["verdict"] == best["verdict"]


def test_a_browser_can_add_the_search_page_as_a_search_engine(client):
    from xml.etree import ElementTree

    answer = client.get("/opensearch.xml", base_url="https://search.intranet.example")
    assert answer.status_code == 200 and answer.mimetype == "application/opensearchdescription+xml"
    url = ElementTree.fromstring(answer.data).find("{http://a9.com/-/spec/opensearch/1.1/}Url")
    assert url.get("template") == "https://search.intranet.example/?q={searchTerms}"
    assert b'rel="search" type="application/opensearchdescription+xml"' in client.get("/").data


def test_behind_a_proxy_the_search_engine_is_the_public_address(settings, searcher):
    from xml.etree import ElementTree

    public = dataclasses.replace(settings, api=dataclasses.replace(settings.api,
                                                                   public_url="https://intranet.example/search"))
    answer = create_app(public, searcher=searcher).test_client().get("/opensearch.xml",
                                                                    base_url="http://10.0.0.7:8800")
    url = ElementTree.fromstring(answer.data).find("{http://a9.com/-/spec/opensearch/1.1/}Url")
    assert url.get("template") == "https://intranet.example/search/?q={searchTerms}"


@pytest.mark.parametrize("setting", ["intranet.example/search", "ftp://intranet.example/", "https:///search",
                                     "https://intranet.example/?q=1", "https://[::1/search",
                                     "https://intranet.example:99999/"])
def test_a_public_url_that_is_no_address_is_refused_with_its_name(setting):
    with pytest.raises(ValueError, match=r"\[api\] public_url: .* is not the search page's address"):
        public_address(setting)


def test_titles_are_suggested_as_the_box_is_typed_in_among_the_pages_the_caller_may_read(client, sample_corpus):
    def titles(typed: str, headers: dict | None = None) -> list[dict]:
        answer = client.get("/api/suggest", query_string={"q": typed}, headers=headers or {})
        assert answer.status_code == 200
        return answer.get_json()["suggestions"]

    runbook = next(f for f in FACTS if f["Kind"] == "rare error code")["Expected URL"]
    assert titles("runbook tele") == [{"title": "Runbook: Telemetry Gateway Alarms", "url": runbook, "space": "OPS",
                                       "space_name": "Operations"}]  # every word, the last as a word's start
    assert "Urlaubsregelung" in [t["title"] for t in titles("urlaub")]
    manual = titles("tidesense field")
    assert [t["url"] for t in manual] == ["https://files.example.org/field-service-manual.pdf"]  # the file, once
    restricted = next(f for f in FACTS if f["Visible to"] != "everyone")
    assert titles("salary ba") == []
    assert [t["url"] for t in titles("salary ba", signed("ana", restricted["Visible to"]))] == [
        restricted["Expected URL"]]
    forged = client.get("/api/suggest", query_string={"q": "salary ba"},
                        headers=signed("ana", restricted["Visible to"], secret="not-the-proxy-secret"))
    assert forged.get_json()["suggestions"] == []  # a refused identity is offered public titles, and told why
    assert any("identity not accepted" in warning for warning in forged.get_json()["warnings"])
    assert client.get("/api/suggest", query_string={"q": "run"}).get_json()["warnings"] == []
    assert client.get("/api/suggest").status_code == 400
    refused = client.get("/api/suggest", query_string={"q": "run", "k": 0})
    assert refused.status_code == 400 and "k" in refused.get_json()["error"]


@pytest.mark.parametrize("query, needle", [
    ({}, "q"), ({"q": "x", "k": "ten"}, "k"), ({"q": "x", "k": "0"}, "k"), ({"q": "x", "mode": "magic"}, "mode"),
    ({"q": "x", "date_from": "abc"}, "date_from"), ({"q": "x", "date_from": "\x00"}, "date_from"),
    ({"q": "   "}, "q"), ({"q": "x" * 4001}, "q"), ({"q": "x", "page": "1001"}, "page"),
    ({"q": "x", "sort": "oldest"}, "sort"), ({"q": "x", "collapse": "maybe"}, "collapse"),
    ({"q": '-firmware -"service mode"'}, "q")])
def test_bad_requests_name_the_parameter(client, query, needle):
    response = client.get("/api/search", query_string=query)
    assert response.status_code == 400
    assert needle in response.get_json()["error"]


@pytest.mark.parametrize("body, needle", [
    ('"a JSON string"', "body"), ("[1, 2]", "body"), ('{"q": "x", "history": null}', "history"),
    ('{"q": "x", "collapse": 0.0}', "collapse"),
    ('{"q": "x", "history": [{"q": "a", "results": 1.5}]}', "history[0].results"),
    ('{"q": "x", "history": [{"q": "a", "results": [{"title": 3}]}]}', "history[0].results[0].title"),
    ('{"q": "\\ud800"}', "q"), ('{"q": "x", "history": [' + ", ".join(['{"q": "a"}'] * 51) + "]}", "history"),
    ('{"q": "x", "history": [{"q": "a", "opened": [' + ", ".join(['"https://wiki/p"'] * 11) + "]}]}",
     "history[0].opened")])
def test_bad_bodies_name_the_parameter(client, body, needle):
    response = client.post("/api/search", data=body, content_type="application/json")
    assert response.status_code == 400, response.get_data(as_text=True)
    assert needle in response.get_json()["error"]


def test_an_oversized_body_is_refused_before_it_is_read(client):
    response = client.post("/api/search", data=b"x" * (2 * 1024 * 1024), content_type="application/json")
    assert response.status_code == 413 and response.get_json()["error"]


def test_long_pasted_text_and_deep_pages_are_answered(client, sample_corpus):
    """A pasted paragraph (more terms than OpenSearch's clause limit allows in one naive query), German
    and English so translations multiply the terms, and a page far past the last result."""
    words = ("Wer genehmigt Urlaub Resturlaub verfällt Reisekosten Bahnticket erstattet Homeoffice Regelung "
             "release test report machine failed boot firmware version escalation matrix runbook postmortem "
             "timeline action items security contacts onboarding checklist glossary acronym office location "
             "tenant customer reimbursement train ticket vacation policy remote work sick leave salary band").split()
    for query in (" ".join(words * 2), "Wie viele Urlaubstage gibt es " * 12):
        response = client.get("/api/search", query_string={"q": query})
        assert response.status_code == 200, response.get_data(as_text=True)[:300]
        assert response.get_json()["hits"]
    deep = client.get("/api/search", query_string={"q": "release test report", "k": 100, "page": 1000})
    assert deep.status_code == 200 and deep.get_json()["hits"] == []


def test_the_openapi_document_covers_every_endpoint(client):
    document = client.get("/api/openapi.json").get_json()
    assert {"/api/search", "/api/health", "/api/ingest/jobs", "/api/ingest/jobs/{job_id}", "/api/ingest/errors",
            "/api/ingest/queue"} <= set(document["paths"])
    parameters = {p["name"] for p in document["paths"]["/api/search"]["get"]["parameters"]}
    assert {"q", "k", "page", "date_from", "labels"} <= parameters


def test_health_reports_every_service(client):
    response = client.get("/api/health")
    data = response.get_json()
    assert response.status_code == 200, data
    assert data["opensearch"] in ("green", "yellow") and data["redis"] == "ok" and data["workers"] >= 1


def test_a_search_before_the_index_exists_is_a_503_saying_how_to_create_it(settings, searcher):
    from evident.evaluation import searcher_on

    missing = searcher_on(searcher, f"{settings.opensearch.index_alias}-never-created")
    client = create_app(missing.settings, searcher=missing).test_client()
    for response in (client.get("/api/search", query_string={"q": "vacation policy"}),
                     client.post("/api/search", json={"q": "vacation policy"})):
        data = response.get_json()
        assert response.status_code == 503, data
        assert "-never-created" in data["error"] and "evident init" in data["error"]


def test_search_page_is_served_without_inline_script(client):
    response = client.get("/")
    assert response.status_code == 200 and b"/api/openapi.json" in response.data
    assert b"<script>" not in response.data and b"<style>" not in response.data
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    script = client.get("/static/search.js")
    assert script.status_code == 200 and b"/api/search" in script.data
    assert "safeUrl" in script.get_data(as_text=True)  # javascript: or relative links are never clickable
    assert client.get("/api/search", query_string={"q": "x"}).headers["Referrer-Policy"] == "same-origin"


def test_each_search_and_click_is_logged_for_the_search_dashboard(app, client, stores, sample_corpus):
    log_index = app.extensions["evident"]["settings"].opensearch.searchlog_index
    answer = client.get("/api/search", query_string={"q": "searchlog probe query", "session": "s-1"},
                        headers=signed("ana", "staff")).get_json()
    app.extensions["evident"]["searchlog"].flush()
    clicked = {"search_id": answer["search_id"], "url": "https://wiki.example.com/x", "rank": 2}
    assert client.post("/api/click", json=clicked).status_code == 204
    assert client.post("/api/click", json={**clicked, "rank": 1}).status_code == 204
    stores.indices.refresh(index=log_index)
    entry = stores.get(index=log_index, id=answer["search_id"])["_source"]
    assert entry["q"] == "searchlog probe query" and entry["took_ms"] >= 0 and entry["mode"] == "hybrid"
    assert entry["session"] == "s-1" and entry["caller"] and "ana" not in entry["caller"]
    assert entry["clicks"] == 2 and entry["first_click_rank"] == 2 and entry["clicked_url"] == clicked["url"]


def test_the_asker_can_say_whether_the_answer_card_answered(app, client, stores, sample_corpus, caplog):
    """A search with a card takes the asker's word on it, kept on its log line; one without a card refuses it with a
    404 saying so, as does a search id the log never saw, each refusal recorded; a body without the word is a 400
    naming it."""
    log_index = app.extensions["evident"]["settings"].opensearch.searchlog_index
    answered = client.get("/api/search", query_string={"q": "Wann verfällt der Resturlaub?"}).get_json()
    assert answered["answer"] is not None
    said = client.post("/api/feedback", json={"search_id": answered["search_id"], "helpful": False})
    assert said.status_code == 204
    entry = stores.get(index=log_index, id=answered["search_id"])["_source"]
    assert entry["feedback"] == "not_helpful" and entry["answer_id"] == answered["answer"]["evidence_id"]
    assert entry["answer_title"] == answered["answer"]["title"]
    nothing = client.get("/api/search", query_string={"q": "xyzzyplugh"}).get_json()
    with caplog.at_level(logging.INFO):
        refused = client.post("/api/feedback", json={"search_id": nothing["search_id"], "helpful": True})
    assert refused.status_code == 404 and "showed no answer card" in refused.get_json()["error"]
    assert any("/api/feedback refused with 404" in r.getMessage() for r in caplog.records)
    unknown = client.post("/api/feedback", json={"search_id": "0" * 32, "helpful": True})
    assert unknown.status_code == 404 and "no search" in unknown.get_json()["error"]
    wordless = client.post("/api/feedback", json={"search_id": answered["search_id"]})
    assert wordless.status_code == 400 and "helpful" in str(wordless.get_json())


@pytest.mark.parametrize("body, status", [
    ({"search_id": "0" * 32, "url": "https://wiki.example.com/x", "rank": 1}, 404),  # no such search
    ({"search_id": "../../_delete", "url": "u", "rank": 1}, 400),
    ({"search_id": "abc", "url": "u", "rank": 0}, 400),
])
def test_a_click_on_no_known_search_is_refused(client, sample_corpus, caplog, body, status):
    with caplog.at_level(logging.INFO):
        response = client.post("/api/click", json=body)
    assert response.status_code == status and response.get_json()["error"]
    assert any(f"/api/click refused with {status}" in r.getMessage() for r in caplog.records)  # recorded


@pytest.fixture
def old_links(stores, settings, sample_corpus):
    alias = settings.opensearch.index_alias
    like = stores.search(index=alias, body={"size": 1, "query": {"match": {"text": "TS-E4471"}}})["hits"]["hits"][0]
    for doc_id, url in OLD_LINKS.items():
        text = f"The {OLD_WORD} escalation rota, as an older ingest kept it ({doc_id})."
        source = like["_source"] | {
            "id": f"{doc_id}-evidence", "doc_id": doc_id, "url": url, "page_url": url, "title": f"Rota {doc_id}",
            "text": text, "context": text, "lemmas": f"{OLD_WORD} escalation rota", "keywords": [OLD_WORD],
            "prev_text": "", "next_text": "", "heading_path": [], "breadcrumb": [],
            "page_simhash": ""}  # an older ingest kept no signature: not folded as copies of each other
        assert not replace_document(stores, settings, doc_id, [source])["errors"]
    stores.indices.refresh(index=alias)
    yield
    delete_documents(stores, settings, list(OLD_LINKS))


def test_a_result_whose_link_ingest_now_refuses_is_listed_without_it(client, old_links):
    answer = client.get("/api/search", query_string={"q": f"{OLD_WORD} escalation rota", "k": 20})
    assert answer.status_code == 200
    shown = {h["title"]: h["url"] for h in answer.get_json()["hits"] if h["title"].startswith("Rota old-")}
    assert shown == {f"Rota {doc_id}": "" for doc_id in OLD_LINKS}
    assert PASSWORD not in answer.get_data(as_text=True)


def test_a_clicked_url_and_a_pasted_token_reach_the_search_log_redacted(app, client, stores, sample_corpus):
    log_index = app.extensions["evident"]["settings"].opensearch.searchlog_index
    answer = client.get("/api/search", query_string={"q": f"vpn https://vpn.example/setup?token={PASSWORD}"}).get_json()
    app.extensions["evident"]["searchlog"].flush()
    clicked = {"search_id": answer["search_id"], "url": f"https://wiki.example.com/x?sig={PASSWORD}", "rank": 1}
    assert client.post("/api/click", json=clicked).status_code == 204
    stores.indices.refresh(index=log_index)
    entry = stores.get(index=log_index, id=answer["search_id"])["_source"]
    assert PASSWORD not in json.dumps(entry)
    assert entry["q"] == "vpn https://vpn.example/setup?token=***" and entry["clicked_url"].endswith("?sig=***")


def closed_port() -> int:
    """A loopback port nothing listens on (taken and let go): an endpoint that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_llm_endpoint_with_a_password_is_named_in_warnings_without_it(settings, searcher, worker, sample_corpus):
    from search.rewrite import load_rewriter
    from search.searcher import Searcher

    endpoint = f"http://evident:{PASSWORD}@127.0.0.1:{closed_port()}/v1"
    configured = dataclasses.replace(settings, llm=dataclasses.replace(
        settings.llm, base_url=endpoint, model="tiny", rewrite_queries=True))
    rewriting = Searcher(configured, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon,
                         searcher.reranker, load_rewriter(configured))
    client = create_app(configured, searcher=rewriting).test_client()
    history = [{"q": "How do I reset the VPN token?", "results": [{"url": "https://wiki.example/vpn", "title": "VPN"}]}]
    answer = client.post("/api/search", json={"q": "and on a phone?", "history": history})
    assert answer.status_code == 200
    (warning,) = [w for w in answer.get_json()["warnings"] if "rewriting failed" in w]
    assert f"http://evident:***@127.0.0.1:{endpoint.rsplit(':', 1)[1].split('/')[0]}/v1" in warning
    assert PASSWORD not in answer.get_data(as_text=True)


def test_a_search_answers_with_its_stages_times_in_a_server_timing_header(client, sample_corpus):
    from core.profile import TOTAL, parse_server_timing

    response = client.get("/api/search", query_string={"q": FACTS[0]["Query"], "mode": "hybrid"})
    assert response.status_code == 200
    stages = parse_server_timing(response.headers["Server-Timing"])
    assert {"spelling", "embed", "retrieve", "fuse", "verdict", "present"} <= set(stages)
    assert list(stages)[-1] == TOTAL and stages[TOTAL].ms >= stages["retrieve"].ms > 0
    assert stages["retrieve"].round_trips >= 1 and stages[TOTAL].round_trips >= stages["retrieve"].round_trips


def test_an_anonymous_search_names_no_folder_of_the_server(client, ingest, jobs, stores, settings, sample_corpus,
                                                           tmp_path):
    from workers.submit import prune

    folder = tmp_path / "intranet"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"base": "https://files.example.org/"}), encoding="utf-8")
    (folder / "kiwi.html").write_text("<html><head><title>Kiwi rota</title></head><body><h1>Kiwi rota</h1>"
                                      "<p>The kiwi rota for the harbour office changes each Monday.</p></body></html>",
                                      encoding="utf-8")
    try:
        assert ingest(folder).done == 1
        stores.indices.refresh(index=settings.opensearch.index_alias)
        answer = client.get("/api/search", query_string={"q": "kiwi rota harbour office", "k": 5})
        assert answer.status_code == 200
        [hit] = [h for h in answer.get_json()["hits"] if h["title"] == "Kiwi rota"]
        assert hit["doc_id"] == "html:intranet:intranet/kiwi.html"  # its source's name, never its folder's path
        shown = answer.get_data(as_text=True)
        assert str(tmp_path) not in shown and str(tmp_path.resolve()) not in shown
    finally:
        prune(jobs, stores, settings, [str(folder)], [])


def test_the_answer_card_is_the_sentence_that_answers_and_absent_when_the_samples_do_not_answer(client, sample_corpus):
    answered = client.get("/api/search", query_string={"q": "Wann verfällt der Resturlaub?"}).get_json()
    card = answered["answer"]
    assert card["kind"] == "sentence" and "verfällt am 31. März" in card["text"]
    assert card["url"] == answered["hits"][0]["url"] and card["title"] == "Urlaubsregelung"
    assert card["confidence"] == answered["confidence"] and card["evidence_id"]
    unanswered = client.get("/api/search", query_string={"q": "how do I reset my vpn token"}).get_json()
    assert unanswered["answer"] is None
