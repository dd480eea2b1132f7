"""What a result link may be and what a shown text may carry (``core.urls``), and the check applied to what
each source makes of its URL: a manifest entry, a folder's base, a Confluence page's ``_links``."""
from __future__ import annotations

import json

import pytest

from core.urls import link_problem, redact, safe_link
from ingest.config import IngestConfig
from ingest.pipeline import parse_file
from workers.folder import CorpusFile, load, require_web_url

SHARE = "file:///srv/share/"


@pytest.mark.parametrize("text, secret, shown", [
    ("chat completion at http://user:secret@127.0.0.1:9/v1 failed", "secret", "http://user:***@127.0.0.1:9/v1"),
    ("https://ghp_s3cr3tT0ken@git.example/x", "ghp_s3cr3tT0ken", "https://***@git.example/x"),
    ("http://me:p@ss@host/x", "p@ss", "http://me:***@host/x"),
    ("GET https://x.example/a?page=2&token=abc123#top", "abc123", "?page=2&token=***#top"),
    ("https://x.example/a?api_key=k1&access_token=k2&sig=k3&X-Amz-Signature=k4",
     "k1", "?api_key=***&access_token=***&sig=***&X-Amz-Signature=***"),
    ("headers {'Authorization': 'Bearer eyJhbGciOi.x.y'}", "eyJhbGciOi", "'Authorization': '***'"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "Authorization: ***"),
    ("sent Bearer 0123456789abcdef to the proxy", "0123456789abcdef", "sent Bearer *** to the proxy"),
])
def test_redact_hides_credentials_tokens_and_authorization_values(text, secret, shown):
    redacted = redact(text)
    assert secret not in redacted and shown in redacted


@pytest.mark.parametrize("text", [
    "page 12 of https://wiki.example/display/ENG/Build?key=ENG failed: HTTP 500",
    "mail ops@example.org about http://intra.example/a",
    "the bearer of this note; basic information; csrf_token=1 is a form field",
])
def test_redact_leaves_ordinary_text_alone(text):
    assert redact(text) == text


@pytest.mark.parametrize("url, named", [
    ("javascript:alert(document.domain)", "scheme 'javascript'"),
    ("JavaScript:alert(1)", "scheme 'javascript'"),
    ("data:text/html;base64,PHNjcmlwdD4=", "scheme 'data'"),
    ("vbscript:msgbox(1)", "scheme 'vbscript'"),
    ("ftp://files.example/a.pdf", "scheme 'ftp'"),
    ("//evil.example/a.html", "protocol-relative"),
    ("/spaces/HR/pages/1", "relative"),
    ("docs/a.html", "relative"),
    ("https:///no-host", "no host"),
    ("http://intra.example:port/a", "cannot be read as a URL"),
    ("java\tscript:alert(1)", "whitespace or control characters"),
    ("http://user:secret@intra.example/a", "carries credentials"),
    ("https://intra.example/a.pdf?token=abc", "secret in its query (token=)"),
    ("file:///etc/passwd", "allowed only under a file: [ingest] files_base_url"),
    ("", "has no URL"),
])
def test_only_http_links_with_a_host_and_no_secret_may_be_result_links(url, named):
    problem = link_problem(url)
    assert named in problem, problem
    assert "secret" not in problem.replace("secret in its query", "") and "abc" not in problem
    assert safe_link(url) == ""


def test_file_links_only_under_a_configured_file_share():
    assert link_problem(SHARE + "hr/leave%20policy.pdf", SHARE) == ""
    assert "not under the configured" in link_problem("file:///etc/passwd", SHARE)
    assert "through '..'" in link_problem(SHARE + "hr/%2e%2e/../../etc/passwd", SHARE)
    assert "allowed only under a file:" in link_problem(SHARE + "a.pdf", "https://files.example/")
    assert link_problem("https://intra.example/a.html", SHARE) == ""
    assert safe_link("http://intra.example:8080/a.html") == "http://intra.example:8080/a.html"


def _page(base: str) -> bytes:
    return json.dumps({"id": "9001", "type": "page", "title": "Escalation rota",
                       "body": {"storage": {"value": "<p>Call the duty engineer first.</p>"}},
                       "_links": {"base": base, "webui": "/spaces/OPS/pages/9001"}}).encode()


PAGE_HTML = "<html><body><h1>Rota</h1><p>Call the duty engineer.</p></body></html>"
# (file written, its manifest.json or None, what the refusal names): a page's own link, an entry's, a base.
BAD_LINKS = {
    "confluence _links.base": ("rota.json", _page("javascript:alert(1)//"), None, "'javascript'"),
    "manifest entry url": ("rota.html", PAGE_HTML.encode(),
                           {"files": [{"file": "rota.html", "url": "data:text/html,<script>x</script>"}]}, "'data'"),
    "manifest base": ("rota.html", PAGE_HTML.encode(), {"base": "//intra.example/ops/"}, "protocol-relative"),
}


@pytest.mark.parametrize("case", BAD_LINKS)
def test_a_bad_link_from_a_page_or_its_manifest_is_refused_naming_the_file_and_the_scheme(tmp_path, case):
    name, data, manifest, named = BAD_LINKS[case]
    (tmp_path / name).write_bytes(data)
    if manifest:
        (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    file = load(CorpusFile(tmp_path / name, name))
    parsed = parse_file(file, IngestConfig())
    with pytest.raises(ValueError) as refused:
        require_web_url(file.name, parsed.document.url)
    assert str(refused.value).startswith(f"{file.name}: its URL ") and name in file.name
    assert named in str(refused.value) and "not indexed" in str(refused.value)


def test_a_confluence_page_with_a_web_base_keeps_its_link(tmp_path):
    (tmp_path / "rota.json").write_bytes(_page("https://wiki.example/wiki"))
    parsed = parse_file(load(CorpusFile(tmp_path / "rota.json", "ops/rota.json")), IngestConfig())
    require_web_url("ops/rota.json", parsed.document.url)
    assert parsed.document.url == "https://wiki.example/wiki/spaces/OPS/pages/9001"


def test_a_recorded_error_keeps_no_secret(jobs):
    job_id = jobs.create(1)
    jobs.record_error(job_id, "https://intra.example/r.html?token=abc123",
                      "HTTPConnectionPool(host='llm', port=80): url http://user:secret@llm/v1 refused")
    recorded = jobs.status(job_id).errors[0]
    assert "abc123" not in json.dumps(recorded) and "secret" not in json.dumps(recorded)
    assert recorded["file"] == "https://intra.example/r.html?token=***"
    assert "http://user:***@llm/v1 refused" in recorded["reason"]
