"""What the stack tests share: a stack of the test's own (temporary state dir, free ports) and a JSON request
to an OpenSearch node. Imported by name from the test modules beside it for the two helpers."""
from __future__ import annotations

import json
import random
import shutil
import socket
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from core.settings import load_settings
from evident.stack import launcher
from evident.stack.opensearch import TRANSPORT_PORT_OFFSET
from evident.stack.supervisor import Supervisor

OPENSEARCH_REQUEST_TIMEOUT = 60  # seconds: a wait_for_status request on a node that is still allocating
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")  # the ports Linux gives outgoing connections
FIRST_TEST_PORT = 20000  # test ports start here: above the services' defaults (5555, 6379, 8000, 9200, 9300)


def request_json(base: str, method: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=OPENSEARCH_REQUEST_TIMEOUT) as resp:
            return json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{method} {path} -> HTTP {exc.code}: {exc.read().decode(errors='replace')}")


def free_port() -> int:
    """A free loopback port below the kernel's ephemeral range. A port taken there (port 0) and let go is handed out
    again to outgoing connections, and a server that binds it a minute later (a JVM still loading) finds it taken."""
    below = int(EPHEMERAL_RANGE.read_text().split()[0]) - max(CLUSTER_OFFSETS)
    while True:
        port = random.randrange(FIRST_TEST_PORT, below)
        if port_free(port):
            return port


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


# The ports a two-node stack takes beside the first node's HTTP port: the second node's HTTP port and both transport
# ports (``evident.stack.opensearch``: node i answers on the port plus i, its transport TRANSPORT_PORT_OFFSET above).
CLUSTER_OFFSETS = (1, TRANSPORT_PORT_OFFSET, TRANSPORT_PORT_OFFSET + 1)


def free_cluster_port(taken: set[int]) -> int:
    """A free port whose cluster neighbours (``CLUSTER_OFFSETS``) are free too and none of ``taken``: two ports
    picked one after the other can be neighbours, and a second node on the other's port never starts."""
    while True:
        port = free_port()
        others = {port + offset for offset in CLUSTER_OFFSETS}
        if port not in taken and not others & taken and all(map(port_free, others)):
            return port


@pytest.fixture
def state():
    """A state dir of its own; the service user must be able to enter it when we run as root."""
    path = Path(tempfile.mkdtemp(prefix="evident-t-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def own(state):
    """Settings for a stack of the test's own: its state dir, free ports; whatever it started is downed."""
    settings = load_settings(environ={})
    s = settings.services
    s.state_dir, s.redis_port, s.api_port, s.flower_port = str(state), free_port(), free_port(), free_port()
    s.opensearch_port = free_cluster_port({s.redis_port, s.api_port, s.flower_port})
    s.opensearch_heap = "512m"  # a test node needs little; spares the shared machine
    settings.redis.url = f"redis://127.0.0.1:{s.redis_port}/0"
    settings.opensearch.url = f"http://127.0.0.1:{s.opensearch_port}"
    yield settings
    launcher.down(settings)
    assert not Supervisor(state).running()
