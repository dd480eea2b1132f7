"""The bundled sample corpus (samples/) is well-formed and says what samples/README.md claims.

No services needed: this reads the files only (lxml for the storage bodies and the HTML page,
PyMuPDF for the PDF).
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from urllib.parse import quote_plus

import pymupdf
import pytest
from lxml import etree
from lxml import html as lxml_html

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PAGES_DIR = SAMPLES / "wiki" / "pages"
USERS_FILE = SAMPLES / "wiki" / "users.json"
HTML_FILE = SAMPLES / "site" / "handbook" / "onboarding.html"
PDF_DIR = SAMPLES / "pdf"
PDF_FILE = PDF_DIR / "field-service-manual.pdf"
README = SAMPLES / "README.md"

WIKI_BASE = "https://wiki.example.org"
AC = "http://atlassian.com/content"
RI = "http://atlassian.com/resource/identifier"
ROOT_OPEN = f'<root xmlns:ac="{AC}" xmlns:ri="{RI}">'
PDF_PHRASE = ("To recalibrate the salinity probe, immerse it in the 35 PSU reference solution "
              "for twelve minutes")
RARE_CODE = "TS-E4471"


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _load_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


PAGES = {p.stem: _load_json(p) for p in sorted(PAGES_DIR.glob("*.json"))}
USERS = _load_json(USERS_FILE)


def storage_root(page: dict) -> etree._Element:
    return etree.fromstring((ROOT_OPEN + page["body"]["storage"]["value"] + "</root>").encode("utf-8"))


def q(prefix: str, name: str) -> str:
    return "{%s}%s" % ({"ac": AC, "ri": RI}[prefix], name)


def page_url(page: dict) -> str:
    return page["_links"]["base"] + page["_links"]["webui"]


def page_text(page: dict) -> str:
    """Storage body without markup: text nodes joined by a space (the README's evidence rule)."""
    return squash(" ".join(storage_root(page).itertext()))


def read_groups(page: dict) -> list[str]:
    return [g["name"] for g in page["restrictions"]["read"]["restrictions"]["group"]["results"]]


def macros(page: dict, name: str) -> list[etree._Element]:
    return [m for m in storage_root(page).iter(q("ac", "structured-macro")) if m.get(q("ac", "name")) == name]


def macro_param(macro, name: str) -> str | None:
    for p in macro.iter(q("ac", "parameter")):
        if p.get(q("ac", "name")) == name:
            return "".join(p.itertext())
    return None


def manifest_urls(folder: Path) -> dict[str, str]:
    data = _load_json(folder / "manifest.json")
    return {e["file"]: e.get("url") or data["base"] + e["file"] for e in data["files"]}


def pdf_pages(path: Path = PDF_FILE) -> list[str]:
    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


def html_main_text() -> str:
    tree = lxml_html.fromstring(HTML_FILE.read_bytes())
    return squash(" ".join(tree.find(".//main").itertext()))


# -- Confluence pages ------------------------------------------------------------------------------
def test_five_pages_in_two_spaces():
    assert len(PAGES) == 5
    assert {p["space"]["key"] for p in PAGES.values()} == {"OPS", "HR"}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_has_rest_v1_shape(name):
    page = PAGES[name]
    assert page["id"] == name and page["type"] == "page" and page["status"] == "current"
    assert page["title"].strip()
    space = page["space"]
    assert isinstance(space["id"], int) and space["key"] and space["name"] and space["type"] == "global"
    assert space["_links"]["webui"] == f"/spaces/{space['key']}"
    for ancestor in page["ancestors"]:
        assert set(ancestor) >= {"id", "type", "status", "title"} and ancestor["type"] == "page"
    version = page["version"]
    assert isinstance(version["number"], int) and version["number"] >= 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", version["when"])
    assert version["by"]["type"] == "known" and version["by"]["accountId"] and version["by"]["displayName"]
    labels = page["metadata"]["labels"]
    assert labels["size"] == len(labels["results"]) > 0
    for label in labels["results"]:
        assert label["prefix"] == "global" and label["name"] and label["id"]
    read = page["restrictions"]["read"]
    assert read["operation"] == "read"
    for kind in ("user", "group"):
        assert read["restrictions"][kind]["size"] == len(read["restrictions"][kind]["results"])
    assert page["body"]["storage"]["representation"] == "storage"
    assert isinstance(page["body"]["storage"]["value"], str)
    links = page["_links"]
    assert links["base"] == WIKI_BASE
    assert links["webui"] == f"/spaces/{space['key']}/pages/{name}/{quote_plus(page['title'])}"
    assert links["self"] == f"{WIKI_BASE}/rest/api/content/{name}"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_storage_body_is_well_formed_xml(name):
    root = storage_root(PAGES[name])  # raises XMLSyntaxError when it is not
    assert len(root) > 0


def test_ancestors_form_a_tree_with_one_home_per_space():
    by_id = PAGES
    for space in ("OPS", "HR"):
        homes = [p for p in by_id.values() if p["space"]["key"] == space and not p["ancestors"]]
        assert len(homes) == 1, f"{space} needs exactly one home page"
        children = [p for p in by_id.values() if p["space"]["key"] == space and p["ancestors"]]
        assert children, f"{space} home has no children"
    for page in by_id.values():
        for depth, ancestor in enumerate(page["ancestors"]):
            parent = by_id[ancestor["id"]]  # every ancestor is in the corpus
            assert parent["title"] == ancestor["title"]
            assert parent["space"]["key"] == page["space"]["key"]
            assert [a["id"] for a in parent["ancestors"]] == [a["id"] for a in page["ancestors"][:depth]]


def test_users_json_shape():
    assert USERS["results"]
    for user in USERS["results"]:
        assert user["type"] == "known" and user["accountId"] and user["displayName"]
    ids = [u["accountId"] for u in USERS["results"]]
    assert len(ids) == len(set(ids))


def test_every_account_id_is_in_users_json():
    known = {u["accountId"]: u["displayName"] for u in USERS["results"]}
    mentioned = set()
    for page in PAGES.values():
        by = page["version"]["by"]
        assert known.get(by["accountId"]) == by["displayName"]
        for user in storage_root(page).iter(q("ri", "user")):
            mentioned.add(user.get(q("ri", "account-id")))
    assert mentioned, "no user mention in the corpus"
    assert mentioned <= set(known), f"unknown account ids: {mentioned - set(known)}"


def test_page_links_resolve_inside_the_corpus():
    titles = {(p["space"]["key"], p["title"]) for p in PAGES.values()}
    links = 0
    for page in PAGES.values():
        for target in storage_root(page).iter(q("ri", "page")):
            space = target.get(q("ri", "space-key")) or page["space"]["key"]
            assert (space, target.get(q("ri", "content-title"))) in titles
            links += 1
    assert links >= 2


def test_corpus_covers_the_storage_features():
    def has(predicate) -> list[str]:
        return [p["title"] for p in PAGES.values() if predicate(p)]

    def tags(page) -> set[str]:
        return {el.tag for el in storage_root(page).iter() if isinstance(el.tag, str)}

    def header_row_with_status(page) -> bool:
        for table in storage_root(page).iter("table"):
            rows = list(table.iter("tr"))
            if rows and rows[0].findall("th") and len(rows[0].findall("th")) == len(rows[0]):
                titles = {macro_param(m, "title") for m in table.iter(q("ac", "structured-macro"))
                          if m.get(q("ac", "name")) == "status"}
                if {"PASS", "FAIL"} <= titles:
                    return True
        return False

    def header_column(page) -> bool:
        for table in storage_root(page).iter("table"):
            rows = list(table.iter("tr"))
            if rows and all(len(r) >= 2 and r[0].tag == "th" and r[1].tag == "td" for r in rows):
                return True
        return False

    def nested_list(page) -> bool:
        return any(li.find("ul") is not None or li.find("ol") is not None
                   for li in storage_root(page).iter("li"))

    assert has(lambda p: {"h2", "h3", "p"} <= tags(p))
    assert has(nested_list)
    assert has(header_row_with_status)
    assert has(header_column)
    assert has(lambda p: any(macro_param(m, "language") for m in macros(p, "code")))
    assert has(lambda p: macros(p, "info"))
    assert has(lambda p: q("ac", "task-list") in tags(p))
    assert has(lambda p: any(macro_param(m, "key") for m in macros(p, "jira")))
    assert has(lambda p: q("ri", "user") in tags(p))
    assert has(lambda p: q("ri", "page") in tags(p))


def test_one_page_is_restricted_to_hr_team():
    restricted = {name: read_groups(p) for name, p in PAGES.items() if read_groups(p)}
    assert list(restricted.values()) == [["hr-team"]]
    page = PAGES[next(iter(restricted))]
    assert page["restrictions"]["read"]["restrictions"]["group"]["results"] == [
        {"type": "group", "name": "hr-team"}]


def test_one_page_is_german():
    german = {"der", "die", "das", "und", "nicht", "wird", "f\u00fcr", "eines", "bei", "den"}

    def share(page) -> float:
        words = re.findall(r"\w+", page_text(page).lower())
        return sum(w in german for w in words) / max(len(words), 1)

    assert sorted(p["title"] for p in PAGES.values() if share(p) > 0.08) == ["Urlaubsregelung"]


def test_rare_error_code_appears_in_one_place_only():
    places = [page_url(p) for p in PAGES.values() for _ in range(page_text(p).count(RARE_CODE))]
    places += ["html"] * html_main_text().count(RARE_CODE)
    places += [f"pdf page {n}" for n, text in enumerate(pdf_pages(), 1) for _ in range(text.count(RARE_CODE))]
    assert len(places) == 1 and "Runbook" in places[0]


# -- HTML page -------------------------------------------------------------------------------------
def test_html_page_has_site_boilerplate_around_main():
    tree = lxml_html.fromstring(HTML_FILE.read_bytes())
    assert tree.get("lang") == "en"
    assert tree.findtext(".//title").strip()
    crumbs = tree.xpath('//nav[@aria-label="breadcrumb"]/ol/li')
    assert [squash(li.text_content()) for li in crumbs] == ["Home", "Employee Handbook", "Your first week"]
    assert tree.find(".//header") is not None and tree.find(".//script") is not None
    footer = squash(tree.find(".//footer").text_content())
    assert "\u00a9" in footer and "Cookie settings" in footer
    main = tree.find(".//main")
    for tag in ("h1", "h2", "h3", "p", "ul", "table"):
        assert main.find(f".//{tag}") is not None, tag
    assert main.find(".//table/thead/tr/th") is not None
    assert "onboarding.html" in manifest_urls(HTML_FILE.parent)


# -- PDF -------------------------------------------------------------------------------------------
def test_pdf_has_three_pages_with_a_text_layer():
    pages = pdf_pages()
    assert len(pages) == 3
    for number, text in enumerate(pages, 1):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        assert len(squash(text)) > 300, f"page {number} has no real text layer"
        assert lines[0] == "Lumen Harbor \u2014 Field Service Manual"
        assert lines[-1] == f"Page {number} of 3"


def test_pdf_phrase_is_on_page_two_only():
    pages = [squash(t) for t in pdf_pages()]
    assert [PDF_PHRASE in t for t in pages] == [False, True, False]


def test_pdf_headings_are_larger_and_bold():
    with pymupdf.open(PDF_FILE) as doc:
        spans = [s for b in doc[0].get_text("dict")["blocks"] for line in b.get("lines", [])
                 for s in line["spans"]]
    title = next(s for s in spans if s["text"].strip() == "TideSense Field Service Manual")
    body_size = max(s["size"] for s in spans if "two people" in s["text"])
    chapter = next(s for s in spans if "Safety and preparation" in s["text"])
    assert title["size"] > chapter["size"] > body_size
    assert chapter["flags"] & pymupdf.TEXT_FONT_BOLD and "Bold" in chapter["font"]


def test_pdf_matches_its_build_script(tmp_path):
    spec = importlib.util.spec_from_file_location("samples_build_pdf", SAMPLES / "build_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rebuilt = module.build(tmp_path / "rebuilt.pdf")
    assert pdf_pages(rebuilt) == pdf_pages()
    with pymupdf.open(rebuilt) as doc:
        assert doc.metadata["creationDate"] == module.FIXED_DATE


def test_manifest_lists_every_pdf():
    data = _load_json(PDF_DIR / "manifest.json")
    assert data["base"] == "https://files.example.org/"
    listed = {e["file"] for e in data["files"]}
    assert listed == {p.name for p in PDF_DIR.glob("*.pdf")}
    for entry in data["files"]:
        assert (PDF_DIR / entry["file"]).is_file() and entry["title"] and entry["lang"] == "en"


# -- README facts table ----------------------------------------------------------------------------
def facts_table() -> list[dict[str, str]]:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index("## Facts the tests rely on")
    rows = [line for line in lines[start:] if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    assert set(rows[1].replace("|", "").strip()) <= {"-", " "}
    return [dict(zip(header, (c.strip() for c in row.strip("|").split("|")), strict=True)) for row in rows[2:]]


def corpus_targets() -> dict[str, tuple[str, list[str]]]:
    """Every URL a search may return for the corpus -> (its text, its read groups)."""
    targets = {page_url(p): (page_text(p), read_groups(p)) for p in PAGES.values()}
    for name, url in manifest_urls(HTML_FILE.parent).items():
        targets[url] = (html_main_text(), [])
    for name, url in manifest_urls(PDF_DIR).items():
        for number, text in enumerate(pdf_pages(PDF_DIR / name), 1):
            targets[f"{url}#page={number}"] = (squash(text), [])
    return targets


def test_readme_facts_point_into_the_corpus():
    facts = facts_table()
    assert len(facts) >= 6
    kinds = {f["Kind"] for f in facts}
    assert {"rare error code", "paraphrase", "PDF phrase", "restricted fact", "German page"} <= kinds
    targets = corpus_targets()
    for fact in facts:
        url = fact["Expected URL"]
        assert url in targets, f"{fact['Kind']}: {url} is not a page of the corpus"
        text, groups = targets[url]
        assert fact["Evidence"] in text, f"{fact['Kind']}: evidence not found on {url}"
        assert fact["Visible to"] == (", ".join(groups) if groups else "everyone"), fact["Kind"]
    rare = next(f for f in facts if f["Kind"] == "rare error code")
    assert rare["Query"] == RARE_CODE
    pdf = next(f for f in facts if f["Kind"] == "PDF phrase")
    assert pdf["Expected URL"].endswith("#page=2") and PDF_PHRASE in pdf["Evidence"]
