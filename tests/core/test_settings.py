"""The one settings object: defaults, then the TOML file, then EVIDENT_* environment variables."""
from __future__ import annotations

import pytest

from core.settings import Settings, load_settings


def _load(tmp_path, toml: str = "", **environ: str) -> Settings:
    path = tmp_path / "evident.toml"
    path.write_text(toml, encoding="utf-8")
    return load_settings(path, environ=environ)


def test_defaults_without_file_or_environment(tmp_path):
    assert load_settings(tmp_path / "missing.toml", environ={}) == Settings()


def test_the_file_overrides_the_defaults_and_the_environment_the_file(tmp_path):
    settings = _load(tmp_path, '[search]\nmode = "bm25"\nviews = ["context", "summary"]\nrrf_k = 30\n'
                               '[opensearch]\nurl = "http://file:9200"\n',
                     EVIDENT_OPENSEARCH_URL="http://env:9200")
    assert settings.search.mode == "bm25" and settings.search.rrf_k == 30
    assert settings.search.views == ("context", "summary")
    assert settings.opensearch.url == "http://env:9200"


def test_environment_strings_become_the_setting_types(tmp_path):
    settings = _load(tmp_path, EVIDENT_SEARCH_SERVER_SIDE="true", EVIDENT_LLM_REWRITE_QUERIES="0",
                     EVIDENT_INGEST_CHUNK_MAX_WORDS="120", EVIDENT_SEARCH_DENSE_WEIGHT="0.5",
                     EVIDENT_SEARCH_VIEWS="context, keywords", EVIDENT_SEARCH_PAGE_SUPPORT="0.5,0.25,")
    assert settings.search.server_side is True and settings.llm.rewrite_queries is False
    assert settings.ingest.chunk_max_words == 120 and settings.search.dense_weight == 0.5
    assert settings.search.views == ("context", "keywords") and settings.search.page_support == (0.5, 0.25)


@pytest.mark.parametrize("toml, environ, names", [
    ("", {"EVIDENT_SEARCH_NO_SUCH": "1"}, ["EVIDENT_SEARCH_NO_SUCH", "unknown setting", "rrf_k"]),
    ("[search]\nno_such = 1\n", {}, ["[search] no_such", "unknown setting"]),
    ("[nowhere]\nx = 1\n", {}, ["unknown section [nowhere]"]),
    # a setting of the earlier release names what replaced it
    ("", {"EVIDENT_SEARCH_CONTEXT_WEIGHT": "0.4"},
     ["EVIDENT_SEARCH_CONTEXT_WEIGHT", "no longer a setting", "dense_weight"]),
    ("[search]\nmultilingual_weight = 0.2\n", {}, ["[search] multilingual_weight", "now multilingual (true or false"]),
    ("", {"EVIDENT_SEARCH_CLOSEST_PAGES": "5"},
     ["EVIDENT_SEARCH_CLOSEST_PAGES", "no longer a setting", "page of results"]),
    ("", {"EVIDENT_INGEST_CHUNK_MAX_WORDS": "many"}, ["EVIDENT_INGEST_CHUNK_MAX_WORDS", "integer", "'many'"]),
    ("", {"EVIDENT_SEARCH_SERVER_SIDE": "maybe"}, ["EVIDENT_SEARCH_SERVER_SIDE", "boolean"]),
    ("[opensearch]\ntimeout = \"soon\"\n", {}, ["[opensearch] timeout", "integer"]),
    ("", {"EVIDENT_EMBEDDING_MAX_TOKENS": "-1"}, ["EVIDENT_EMBEDDING_MAX_TOKENS", "greater than or equal to 0"]),
])
def test_a_bad_setting_is_an_error_that_names_it(tmp_path, toml, environ, names):
    with pytest.raises(ValueError) as raised:
        _load(tmp_path, toml, **environ)
    for name in names:
        assert name in str(raised.value)


@pytest.mark.parametrize("toml, environ, names", [
    ("", {"EVIDENT_SEARCH_FUSION": "rff"}, ["EVIDENT_SEARCH_FUSION", "'rrf', 'minmax' or 'merge'", "'rff'"]),
    ("[search]\nmode = \"semantic\"\n", {}, ["[search] mode", "'bm25', 'dense', 'hybrid' or 'baseline'"]),
    ("", {"EVIDENT_SEARCH_GROUP": "document"}, ["EVIDENT_SEARCH_GROUP", "'page' or 'none'"]),
    ("[ingest]\ncontext_mode = \"full\"\n", {}, ["[ingest] context_mode", "'none', 'title' or 'all'"]),
    ("", {"EVIDENT_AUTH_MODE": "ldap"}, ["EVIDENT_AUTH_MODE", "'none', 'jwt' or 'signed-header'", "'ldap'"]),
])
def test_an_unknown_value_of_an_enum_like_setting_is_an_error_naming_it_and_the_allowed_values(
        tmp_path, toml, environ, names):
    with pytest.raises(ValueError) as raised:
        _load(tmp_path, toml, **environ)
    for name in names:
        assert name in str(raised.value)


def test_each_allowed_value_of_an_enum_like_setting_loads(tmp_path):
    settings = _load(tmp_path, '[search]\nfusion = "rrf"\n[ingest]\ncontext_mode = "title"\n',
                     EVIDENT_SEARCH_MODE="dense", EVIDENT_SEARCH_GROUP="none", EVIDENT_AUTH_MODE="jwt")
    assert (settings.search.fusion, settings.ingest.context_mode) == ("rrf", "title")
    assert (settings.search.mode, settings.search.group, settings.auth.mode) == ("dense", "none", "jwt")
