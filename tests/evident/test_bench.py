"""``evident bench`` on a tiny corpus, against the real OpenSearch and Redis, its own worker and API: every
figure is printed (their values are the machine's, so only their presence and sense are checked)."""
from __future__ import annotations

import re

from tests.conftest import SAMPLES, TEST_ALIAS, TEST_REDIS_DB
from evident.cli import main

# A Redis database of the bench's own: the session's worker consumes TEST_REDIS_DB's queue, the sync tests' worker
# TEST_REDIS_DB + 8's, and the bench refuses to share a queue with a worker it did not start.
BENCH_REDIS_DB = (TEST_REDIS_DB + 3) % 16
BENCH_ALIAS = f"{TEST_ALIAS}_bench"  # not "<alias>-...", which the test alias's index template would claim
TINY_CORPUS = [SAMPLES / "wiki" / "pages" / "4456449.json", SAMPLES / "wiki" / "pages" / "4522017.json",
               SAMPLES / "pdf" / "field-service-manual.pdf"]
SCALE = 150  # evidence in the throwaway index: a few copies of the tiny corpus
# One gunicorn worker per API the bench starts: each loads the models, and the figures need only one to answer.
API_WORKERS = 1
NUMBER = r"\d+(?:\.\d+)?"


def test_bench_prints_every_figure_and_cleans_up(stores, settings, monkeypatch, tmp_path, capsys):
    questions = tmp_path / "questions.txt"
    questions.write_text("buoy maintenance\nhow do I reset the sensor\n", encoding="utf-8")
    monkeypatch.setenv("EVIDENT_OPENSEARCH_INDEX_ALIAS", BENCH_ALIAS)
    monkeypatch.setenv("EVIDENT_REDIS_URL", f"redis://127.0.0.1:{settings.services.redis_port}/{BENCH_REDIS_DB}")
    monkeypatch.setenv("EVIDENT_SERVICES_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVIDENT_SERVICES_API_WORKERS", str(API_WORKERS))
    # the optional multilingual stage on, so its embedder's figure is printed from real work
    monkeypatch.setenv("EVIDENT_SEARCH_MULTILINGUAL", "true")
    try:
        code = main(["bench", "--corpus", *map(str, TINY_CORPUS), "--questions", str(questions),
                     "--searches", "6", "--scale", str(SCALE)])
        captured = capsys.readouterr()
        out = captured.out
        assert code == 0, out
        ingest = re.search(rf"ingest: 3 files, 5 pages, (\d+) evidence \(0 files failed\) in {NUMBER} s = "
                           rf"{NUMBER} evidence/s, {NUMBER} pages/s", out)
        assert ingest and int(ingest.group(1)) > 0, out
        assert re.search(rf"embedder: \d+ texts \(views context, sentences\) in {NUMBER} s = \d+% of the ingest",
                         out), out
        assert re.search(rf"ingest wall / the embedders' own time = {NUMBER}", out), out
        leaves = re.search(rf"multilingual embedder: (\d+) leaf evidence in {NUMBER} s = \d+% of the ingest", out)
        assert leaves and int(leaves.group(1)) > 0, out
        rows = re.findall(rf"^\| (bench|scale) +\| (\d+) +\| (bm25|hybrid) +\| ([14]) +\| 6 +\| 0 +\| "
                          rf"(\d+) +\| (\d+) +\| (\d+) +\| ({NUMBER}) +\| ({NUMBER}) +\| ({NUMBER}) +\|$", out, re.M)
        assert {(index, mode, clients) for index, _n, mode, clients, *_ in rows} == {
            (index, mode, clients) for index in ("bench", "scale") for mode in ("bm25", "hybrid") for clients in "14"}
        for index, evidence, _mode, _clients, p50, p95, p99, rate, node_cpu, api_cpu in rows:
            assert int(p50) <= int(p95) <= int(p99) and float(rate) > 0
            assert int(evidence) >= (SCALE if index == "scale" else 1)
        # each question's first asking is measured apart from the rows, per index and mode
        first = re.search(r"^each question asked once first, at 1 client \(the warm-up, not in the rows\): (.*)$",
                          out, re.M)
        assert first and len(re.findall(r"(?:bench|scale) (?:bm25|hybrid) p50 \d+ ms, p95 \d+ ms",
                                        first.group(1))) == 4, out
        # how long the node had run, which its first minutes' JIT makes matter
        assert re.search(r"^the OpenSearch node had run \d+ minutes when the searches began", out, re.M), out
        # a search costs CPU in both: the API's processes and the node, each read for the bench's own API
        assert all(float(api_cpu) > 0 for *_, api_cpu in rows), out
        assert sum(float(node_cpu) for *_, node_cpu, _api in rows) > 0, out
        # the searches met the corpus's index as it serves: the re-ingest's old evidence merged away, one segment
        segments = stores.cat.segments(index=BENCH_ALIAS, format="json")
        assert len({segment["segment"] for segment in segments}) == 1, ([
            {key: segment[key] for key in ("segment", "generation", "docs.count", "docs.deleted", "committed",
                                           "searchable")} for segment in segments], captured.err)
        assert not stores.indices.get(index=f"{BENCH_ALIAS}_scale-*", ignore_unavailable=True)
        assert not stores.indices.get(index="evident-searchlog-bench-*", ignore_unavailable=True)
    finally:
        stores.indices.delete(index=f"{BENCH_ALIAS}-*", ignore_unavailable=True)
        stores.indices.delete_index_template(name=BENCH_ALIAS, ignore=404)
