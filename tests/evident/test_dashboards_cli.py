"""``evident dashboards import`` against a Dashboards stand-in on loopback: the saved objects arrive with their
index patterns following the configured alias and search-log index, and every refusal is one line naming the
Dashboards and its reason."""
from __future__ import annotations

import socket

from tests.standins.dashboards import DashboardsStandIn

from evident.cli import main

ALIAS_ENV = {"EVIDENT_OPENSEARCH_INDEX_ALIAS": "intranet-b", "EVIDENT_OPENSEARCH_SEARCHLOG_INDEX": "searchlog-b"}


def run(capsys, monkeypatch, *args: str, env: dict | None = None) -> tuple[int, str, str]:
    for name, value in {**ALIAS_ENV, **(env or {})}.items():
        monkeypatch.setenv(name, value)
    code = main(["dashboards", "import", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_objects_arrive_with_index_patterns_of_the_configured_alias(capsys, monkeypatch):
    with DashboardsStandIn() as dashboards:
        code, out, err = run(capsys, monkeypatch, "--url", dashboards.url)
    assert (code, err) == (0, "")
    patterns = {obj["id"]: obj["attributes"]["title"] for (kind, _), obj in dashboards.objects.items()
                if kind == "index-pattern"}
    assert patterns == {"evident-evidence": "intranet-b*", "evident-searchlog": "searchlog-b*"}
    assert {"Evident ingest", "Evident search"} <= {obj["attributes"]["title"] for obj in dashboards.objects.values()}
    assert f"imported {len(dashboards.objects)} saved objects" in out and "intranet-b*" in out


def test_a_dashboards_with_a_user_asks_for_it_and_takes_it(capsys, monkeypatch):
    with DashboardsStandIn(user="admin", password="s3cret") as dashboards:
        code, _, err = run(capsys, monkeypatch, "--url", dashboards.url)
        assert code == 1 and "refused the import with 401: Authentication required" in err and "--user" in err
        code, _, err = run(capsys, monkeypatch, "--url", dashboards.url, "--user", "admin",
                           "--password-env", "DASHBOARDS_PASSWORD", env={"DASHBOARDS_PASSWORD": "s3cret"})
    assert (code, err) == (0, "") and dashboards.objects


def test_a_failing_or_absent_dashboards_is_one_line(capsys, monkeypatch):
    with DashboardsStandIn() as dashboards:
        dashboards.fail_with = 503
        code, _, err = run(capsys, monkeypatch, "--url", dashboards.url)
    assert code == 1 and err.count("\n") == 1 and "503: An internal server error occurred." in err
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, _, err = run(capsys, monkeypatch, "--url", f"http://127.0.0.1:{port}")
    assert code == 1 and f"OpenSearch Dashboards at http://127.0.0.1:{port} did not answer" in err
