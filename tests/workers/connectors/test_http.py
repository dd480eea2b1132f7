"""The session every connector uses, against loopback servers: a redirect hop to an address not allowed is
refused before it connects, and a server that trickles its answer is cut off at the whole-response deadline."""
from __future__ import annotations

import time

import pytest

from tests.conftest import StandIn, serving
from workers.connectors.http import AddressRefused, DeadlineExceeded, PacedSession, read_body

TRICKLE = b"<p>"  # bytes a trickling server sends ...
TRICKLE_EVERY = 0.2  # ... every this many seconds: each read comes well within the read timeout
TRICKLE_FOR = 10.0  # seconds a trickle would last, far past the deadline
DEADLINE = 1.0  # seconds a whole response may take in these tests
SLACK = 1.0  # seconds the cut-off may come after the deadline on a busy machine


class Misbehaving(StandIn):
    """Redirects ``/hop`` to ``target``, trickles ``/slow`` (without a length, so only the deadline can tell it
    was cut), answers the rest; records the paths asked for."""

    asked: list[str] = []
    target = ""

    def do_GET(self):
        self.asked.append(self.path)
        if self.path == "/hop":
            self.send_response(302)
            self.send_header("Location", self.target)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            started = time.monotonic()
            try:
                while time.monotonic() - started < TRICKLE_FOR:
                    self.wfile.write(TRICKLE)
                    self.wfile.flush()
                    time.sleep(TRICKLE_EVERY)
            except OSError:  # the client shut the connection
                pass
        else:
            self.answer(200, b"<p>behind the redirect</p>", "text/html")


@pytest.fixture
def served():
    Misbehaving.asked = []
    with serving(Misbehaving) as url:
        yield url


@pytest.mark.parametrize("target", ["http://127.0.0.1:{port}/secret", "http://169.254.169.254/latest/meta-data/"])
def test_a_redirect_to_an_address_not_allowed_is_refused_before_it_connects(served, target):
    port = served.rsplit(":", 1)[1]
    Misbehaving.target = target.format(port=port)
    start = f"http://localhost:{port}/hop"  # allowed by name; its redirect names an address instead
    session = PacedSession(timeout=5, allowed_private_hosts=("localhost",))
    with pytest.raises(AddressRefused) as refused:
        session.get(start)
    assert str(refused.value).startswith(f"{Misbehaving.target} resolves to ")
    assert str(refused.value).endswith(": not fetched (allow it with EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS)")
    assert Misbehaving.asked == ["/hop"]  # the hop itself was never asked
    assert session.get(f"http://localhost:{port}/secret").text == "<p>behind the redirect</p>"  # the name may


@pytest.mark.parametrize("stream", [False, True])
def test_a_trickling_server_is_cut_off_at_the_whole_response_deadline(served, stream):
    session = PacedSession(timeout=5, deadline=DEADLINE, allowed_private_hosts=("127.0.0.1",))
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded) as late:
        if stream:
            with session.get(served + "/slow", stream=True) as response:
                read_body(response, limit=1_000_000)
        else:
            session.get(served + "/slow")
    took = time.monotonic() - started
    assert DEADLINE <= took < DEADLINE + SLACK
    assert str(late.value) == (f"{served}/slow: no complete answer within 1 s, the deadline of one response "
                               f"(EVIDENT_SOURCES_REQUEST_DEADLINE): not read")
    assert Misbehaving.asked == ["/slow"]  # not retried: it would trickle again
    assert session.get(served + "/").text == "<p>behind the redirect</p>"  # the session goes on
