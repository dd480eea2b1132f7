"""Scale-out on one machine (issue 16): two OpenSearch nodes as one cluster and two workers, run by
``evident services up`` under supervisord on the test's own ports and state dir (tests/evident/stack/conftest.py
``own``), never the session's services; and the refusal to start data formed by another number of nodes."""
from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from api.app import create_app as create_api
from evident import cli
from evident.stack import ServiceError, launcher, opensearch
from evident.stack.supervisor import Supervisor
from tests.evident.stack.conftest import request_json
from workers.app import create_app

SAMPLE_WIKI = Path(__file__).resolve().parents[3] / "samples" / "wiki"
WORKER_PING_WAIT = 300  # seconds two fresh workers may take to import Celery and torch and reach the broker
PING_TIMEOUT = 2.0  # seconds each ping waits for replies: a live worker answers in milliseconds
REPLICA_CATCH_UP_WAIT = 60  # seconds for the replica to copy the primary's new segments: ms to s on loopback


def _worker_names(settings) -> set[str]:
    """The Celery node names that answer a ping, once both answer or the wait is over."""
    app, deadline, names = create_app(settings), time.monotonic() + WORKER_PING_WAIT, set()
    while len(names) < 2 and time.monotonic() < deadline:
        names = {name for reply in app.control.ping(timeout=PING_TIMEOUT) for name in reply}
    return names


@pytest.mark.services
def test_two_nodes_and_two_workers(own, monkeypatch, capsys):
    own.services.opensearch_nodes, own.services.workers = 2, 2
    own.services.worker_concurrency = 1  # one model-loading child per worker spares the shared machine
    own.opensearch.index_alias = f"evident-test-cluster-{uuid.uuid4().hex[:8]}"
    assert launcher.up(own, ("opensearch", "redis", "worker")) == \
        ["opensearch", "opensearch-2", "redis", "worker", "worker-2"]
    base = own.opensearch.url
    health = request_json(base, "GET", "/_cluster/health?wait_for_status=green&timeout=50s")
    assert (health["status"], health["number_of_nodes"]) == ("green", 2)
    report = launcher.status(own)
    assert "nodes 2" in report["opensearch"][1] and "health green" in report["opensearch-2"][1]
    assert report["worker"][0] and report["worker-2"][0]
    assert len({name.split("@")[0] for name in _worker_names(own)}) == 2  # two node names, both consuming

    # A folder ingested through both workers lands every evidence `evident parse` gives, in a primary and
    # its replica on the other node.
    for key, value in {"EVIDENT_OPENSEARCH_URL": base, "EVIDENT_REDIS_URL": own.redis.url,
                       "EVIDENT_OPENSEARCH_INDEX_ALIAS": own.opensearch.index_alias}.items():
        monkeypatch.setenv(key, value)
    assert cli.main(["parse", "--json", str(SAMPLE_WIKI)]) == 0
    expected = len([line for line in capsys.readouterr().out.splitlines() if line.startswith("{")])
    assert cli.main(["ingest", str(SAMPLE_WIKI)]) == 0
    alias = own.opensearch.index_alias
    request_json(base, "POST", f"/{alias}/_refresh")
    assert request_json(base, "GET", f"/{alias}/_count?preference=_primary")["count"] == expected > 0
    request_json(base, "GET", "/_cluster/health?wait_for_status=green&timeout=50s")
    deadline = time.monotonic() + REPLICA_CATCH_UP_WAIT
    while True:  # segment replication: the replica holds the primary's segments once they are copied
        shards = request_json(base, "GET", f"/_cat/shards/{alias}?format=json&h=prirep,state,node,docs")
        if len({s["docs"] for s in shards}) == 1 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert sorted((s["prirep"], s["state"]) for s in shards) == [("p", "STARTED"), ("r", "STARTED")]
    # Made on two nodes, the index copies its primary's segments: both copies rank alike.
    assert {index["settings"]["index"]["replication"]["type"]
            for index in request_json(base, "GET", f"/{alias}/_settings").values()} == {"SEGMENT"}
    assert len({s["node"] for s in shards}) == 2 and len({s["docs"] for s in shards}) == 1
    health = create_api(own).test_client().get("/api/health").get_json()  # what an admin's monitor reads
    assert (health["opensearch"], health["opensearch_nodes"], health["workers"]) == ("green", 2, 2)

    pids = [info["pid"] for info in Supervisor(Path(own.services.state_dir)).all_info().values()]
    launcher.down(own)
    assert not any(launcher.status(own)[name][0] for name in ("opensearch", "opensearch-2", "worker", "worker-2"))
    assert all(not Path(f"/proc/{pid}").exists() for pid in pids)


def test_data_of_one_node_is_not_started_as_two(own, state):
    # Data a single node formed (before the count was recorded, too) stays a single node's: a clear refusal
    # that says what to do, before anything is fetched or started.
    (state / "opensearch" / "data" / "nodes").mkdir(parents=True)
    own.services.opensearch_nodes = 2
    with pytest.raises(ServiceError, match=r"formed by 1 node\(s\) and cannot be started as 2.*fresh state dir"):
        launcher.up(own, ("opensearch",))
    assert not (state / "supervisord.conf").exists() and not (state / "opensearch-2").exists()


def test_cluster_config_bootstraps_once(state):
    assert opensearch.check_node_count(state, 2)  # no data yet: the first start, recorded
    (state / "opensearch-2" / "data" / "nodes").mkdir(parents=True)
    assert not opensearch.check_node_count(state, 2)  # formed by two: a restart
    with pytest.raises(ServiceError, match="formed by 2 node"):
        opensearch.check_node_count(state, 1)
    assert not opensearch.check_node_count(state, 3)  # a cluster may grow: the third node joins it
    with pytest.raises(ServiceError, match="formed by 3 node"):
        opensearch.check_node_count(state, 2)
    first = opensearch.cluster_config(0, 2, 9200, bootstrap=True)
    again = opensearch.cluster_config(1, 2, 9200, bootstrap=False)
    assert "transport.port: 9300" in first and "transport.port: 9301" in again
    assert "discovery.seed_hosts: [127.0.0.1:9300, 127.0.0.1:9301]" in again
    assert "cluster.initial_cluster_manager_nodes: [evident-local, evident-local-2]" in first
    assert "initial_cluster_manager_nodes" not in again and "single-node" not in first
    assert opensearch.cluster_config(0, 1, 9200, bootstrap=True) == "node.name: evident-local\ndiscovery.type: single-node\n"
