"""The HTTP session every connector uses: requests with urllib3's ``Retry``, a pace between requests, and two
guards on every connection it opens: the address it reaches, and how long one response may take.

Retries (urllib3): 429 and 503 wait what ``Retry-After`` says; other 5xx, connection resets and read
timeouts back off exponentially with jitter. Only idempotent GET/HEAD are retried. The pace is ours to
write: neither requests nor urllib3 spaces requests out, and a source's request-rate setting must hold
across every call a sync makes, so ``PacedSession`` waits before a request until ``1 / rate`` seconds
have passed since the previous one.

Addresses (``core.addresses``): a connection resolves its host itself, refuses it when an address it resolves
to is not public and not allowed (``sources.allowed_private_hosts``), and connects to an address it checked,
so a name that answers otherwise between check and connect (DNS rebinding) reaches nothing unchecked. A
redirect is a new request through the same adapter: every hop is checked. urllib3 has no resolver hook, so
its ``HTTPConnection._new_conn`` is rewritten here (``GuardedConnection._new_conn``) for that one reason.
Through a proxy the proxy connects, so the target is checked as it resolves here before the request is sent.

Deadline: ``timeout`` bounds each read only; ``deadline`` bounds one exchange, from connecting (or sending
the request on a kept-alive connection) to the last byte of the body, so a server trickling bytes cannot hold
a worker. A blocked read cannot be interrupted but by its socket, so a timer shuts the socket when the
deadline passes (as urllib3's ``HTTPResponse.shutdown`` does from another thread); what fails then ends in
``DeadlineExceeded`` naming the URL and the deadline, and is not retried: the server would trickle again. A
TLS handshake is bounded by ``timeout`` per read only (the socket is not ours to shut until it is wrapped).
Bodies are read through ``read_body``, which also holds a body to a byte limit.
"""
from __future__ import annotations

import contextlib
import functools
import socket
import sys
import threading
import time

import requests
import urllib3
from requests.adapters import HTTPAdapter
from requests.utils import select_proxy
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util import connection
from urllib3.util.retry import Retry

from core.addresses import AllowedHosts, refusal, refused_address, refused_url, resolve
from core.settings import SourcesConfig
from core.urls import redact

RETRY_STATUSES = (429, 500, 502, 503, 504)  # rate limited, or a server that may answer on the next try
RETRIES = 8  # with backoff 1, 2, 4 … s capped at BACKOFF_MAX: a minute of trouble is ridden out
BACKOFF_FACTOR = 1.0  # seconds of the first backoff; doubles each retry
BACKOFF_MAX = 30.0  # no single wait longer than this, whatever the doubling says
BACKOFF_JITTER = 1.0  # up to this many seconds added at random, so workers do not retry in step
RETRY_AFTER_MAX = 120.0  # a Retry-After longer than this is an outage, not a rate limit: fail and record
USER_AGENT = "Evident/1 (+intranet search connector)"
CHUNK_BYTES = 65536  # read size while holding a body to its size limit
DEADLINE_SETTING = "EVIDENT_SOURCES_REQUEST_DEADLINE"  # named in the deadline's error


class CappedRetry(Retry):
    """urllib3's Retry, refusing a Retry-After above ``RETRY_AFTER_MAX`` instead of sleeping for hours."""

    def get_retry_after(self, response):
        seconds = super().get_retry_after(response)
        if seconds is not None and seconds > RETRY_AFTER_MAX:
            return None
        return seconds


def retry_policy() -> Retry:
    return CappedRetry(total=RETRIES, connect=RETRIES, read=RETRIES, status=RETRIES,
                       status_forcelist=RETRY_STATUSES, allowed_methods=frozenset({"GET", "HEAD"}),
                       backoff_factor=BACKOFF_FACTOR, backoff_max=BACKOFF_MAX, backoff_jitter=BACKOFF_JITTER,
                       respect_retry_after_header=True, raise_on_status=False)


# ---------------------------------------------------------------------------------------------- errors

class Refused(urllib3.exceptions.HTTPError):
    """A connection's address is not allowed. Not an OSError: urllib3 retries those, and a refusal is final."""

    def __init__(self, address: str, phrase: str):
        super().__init__(f"{address}, {phrase}")
        self.address, self.phrase = address, phrase


class Expired(urllib3.exceptions.HTTPError):
    """An exchange outlived its deadline (not an OSError either, so urllib3 does not retry it)."""


class GuardError(requests.RequestException):
    """A request the session ended itself; the message is the whole sentence, naming the URL."""


class AddressRefused(GuardError, requests.ConnectionError):
    pass


class DeadlineExceeded(GuardError, requests.Timeout):
    pass


class BodyTooLarge(Exception):
    """A body past its byte limit: the rest is not read."""


def deadline_sentence(url: str, seconds: float) -> str:
    return (f"{redact(url)}: no complete answer within {seconds:g} s, the deadline of one response "
            f"({DEADLINE_SETTING}): not read")


# ---------------------------------------------------------------------------------------------- connections

class Exchange:
    """One request and its response on a connection, under a deadline: when ``seconds`` pass before ``end``,
    a timer marks it ``expired`` and shuts the socket it watches, so a read blocked on that socket returns."""

    def __init__(self, seconds: float, sock: socket.socket | None):
        self.seconds = seconds
        self.expired = False
        self._sock = sock
        self._ended = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.expired:
                self._shut()

    def end(self) -> None:
        with self._lock:
            self._ended = True
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            if not self._ended:
                self.expired = True
                self._shut()

    def _shut(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):  # closed meanwhile: nothing left to stop
                # The plain socket's shutdown, for TLS too: SSLSocket.shutdown would unwrap its TLS state under
                # the thread that is reading.
                socket.socket.shutdown(self._sock, socket.SHUT_RDWR)


class GuardedConnection:
    """Mixed into urllib3's connections: every address checked before connecting (``allowed``; None for a
    proxy's connection, which the operator chose), and each exchange under the ``deadline``."""

    def __init__(self, *args, allowed: AllowedHosts | None, deadline: float, **kwargs):
        self.allowed = allowed
        self.deadline = deadline
        self.exchange: Exchange | None = None
        self._connected_ahead = False  # connect() began the exchange the next request() belongs to (HTTPS)
        self._requesting = False
        self._answering = False
        super().__init__(*args, **kwargs)

    def _new_conn(self) -> socket.socket:
        """urllib3's ``_new_conn`` with the name resolved here, every address checked, and the socket connected
        to a checked address by number; connection errors are urllib3's own, so its retries treat them alike."""
        try:
            addresses = resolve(self.host, self.port, connection.allowed_gai_family())
        except socket.gaierror as exc:
            raise NameResolutionError(self.host, self, exc) from exc
        if self.allowed is not None and (found := refused_address(self.host, addresses, self.allowed)):
            raise Refused(*found)
        sys.audit("http.client.connect", self, self.host, self.port)
        error: OSError | None = None
        for address in addresses:
            try:
                sock = connection.create_connection((address, self.port), self.timeout,
                                                    source_address=self.source_address,
                                                    socket_options=self.socket_options)
            except OSError as exc:
                error = exc
                continue
            if self.exchange:
                self.exchange.watch(sock)
            return sock
        if isinstance(error, TimeoutError):
            raise ConnectTimeoutError(self, f"Connection to {self.host} timed out. (connect timeout="
                                            f"{self.timeout})") from error
        raise NewConnectionError(self, f"Failed to establish a new connection: {error}") from error

    def connect(self) -> None:
        if not self._requesting:  # HTTPS connects before the request; plain HTTP inside it
            self._begin()
            self._connected_ahead = True
        with self._within_deadline():
            super().connect()
            self.exchange.watch(self.sock)

    def request(self, *args, **kwargs) -> None:
        if not self._connected_ahead:
            self._begin()
        self._connected_ahead, self._requesting = False, True
        try:
            with self._within_deadline():
                super().request(*args, **kwargs)
        finally:
            self._requesting = False

    def getresponse(self):
        self._answering = True
        try:
            with self._within_deadline():
                return super().getresponse()
        finally:
            self._answering = False

    def close(self) -> None:
        # http.client closes a "Connection: close" answer's connection inside getresponse, handing the socket to
        # the response: its body is still to be read under the deadline.
        if self.exchange and not self._answering:
            self.exchange.end()
        super().close()

    def _begin(self) -> None:
        if self.exchange:
            self.exchange.end()
        self.exchange = Exchange(self.deadline, self.sock)

    @contextlib.contextmanager
    def _within_deadline(self):
        """Whatever fails once the deadline has passed (the shut socket's error) is the deadline."""
        try:
            yield
        except Exception as exc:
            if self.exchange.expired:
                raise Expired(f"no complete answer within {self.deadline:g} s") from exc
            raise
        if self.exchange.expired:
            raise Expired(f"no complete answer within {self.deadline:g} s")


class GuardedHTTPConnection(GuardedConnection, HTTPConnection):
    pass


class GuardedHTTPSConnection(GuardedConnection, HTTPSConnection):
    pass


class GuardedHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = GuardedHTTPConnection


class GuardedHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = GuardedHTTPSConnection


def guarded_pools(allowed: AllowedHosts | None, deadline: float) -> dict:
    """Pool classes by scheme for a urllib3 pool manager; the keywords reach each connection (``conn_kw``)."""
    return {"http": functools.partial(GuardedHTTPConnectionPool, allowed=allowed, deadline=deadline),
            "https": functools.partial(GuardedHTTPSConnectionPool, allowed=allowed, deadline=deadline)}


class GuardedAdapter(HTTPAdapter):
    """requests' adapter on guarded connections; their refusals become requests errors naming the URL."""

    def __init__(self, allowed: AllowedHosts, deadline: float, **kwargs):
        self.allowed = allowed
        self.deadline = deadline
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = guarded_pools(self.allowed, self.deadline)

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if isinstance(manager, urllib3.ProxyManager):  # a SOCKS manager keeps its own connections
            manager.pool_classes_by_scheme = guarded_pools(None, self.deadline)
        return manager

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        if select_proxy(request.url, proxies) and (refused := refused_url(request.url, self.allowed)):
            raise AddressRefused(refused, request=request)
        try:
            return super().send(request, stream=stream, timeout=timeout, verify=verify, cert=cert, proxies=proxies)
        except Refused as exc:
            raise AddressRefused(refusal(request.url, exc.address, exc.phrase), request=request) from None
        except Expired:
            raise DeadlineExceeded(deadline_sentence(request.url, self.deadline), request=request) from None


# ---------------------------------------------------------------------------------------------- session

class PacedSession(requests.Session):
    """A requests session with the retry policy mounted, at most ``rate`` requests per second (0: no pace),
    private addresses refused but those ``allowed_private_hosts`` names, and ``deadline`` seconds per response.

    ``timeout`` is applied to every request that does not set its own. ``requests_made`` counts the
    requests sent (retries included, as urllib3 sends them below this count: one per call here). A request
    without ``stream=True`` has its body read (``read_body``) before it returns, as requests does.
    """

    def __init__(self, rate: float = 0.0, timeout: float = 30.0, deadline: float = SourcesConfig.request_deadline,
                 allowed_private_hosts: tuple[str, ...] = ()):
        super().__init__()
        adapter = GuardedAdapter(AllowedHosts.parse(allowed_private_hosts), deadline, max_retries=retry_policy())
        self.mount("http://", adapter)
        self.mount("https://", adapter)
        self.headers["User-Agent"] = USER_AGENT
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.timeout = timeout
        self.requests_made = 0
        self._next_slot = 0.0
        self._lock = threading.Lock()

    def request(self, method, url, **kwargs):
        stream = kwargs.pop("stream", False)
        if self.interval:
            with self._lock:
                now = time.monotonic()
                wait = self._next_slot - now
                self._next_slot = max(now, self._next_slot) + self.interval
            if wait > 0:
                time.sleep(wait)
        kwargs.setdefault("timeout", self.timeout)
        self.requests_made += 1
        response = super().request(method, url, stream=True, **kwargs)
        if not stream:
            try:
                read_body(response)
            except BaseException:
                response.close()
                raise
        return response


def read_body(response: requests.Response, limit: int | None = None) -> bytes:
    """The body of a response, read under its deadline (``DeadlineExceeded`` naming the URL and the deadline).
    With ``limit``, ``BodyTooLarge`` past that many bytes, whatever Content-Length claims; without one the body
    is also ``response.content``."""
    exchange = getattr(getattr(response.raw, "connection", None), "exchange", None)
    try:
        data = response.content if limit is None else _limited(response, limit)
    except Exception as exc:
        if exchange and exchange.expired and not isinstance(exc, BodyTooLarge):
            raise DeadlineExceeded(deadline_sentence(response.url, exchange.seconds), response=response) from exc
        raise
    finally:
        if exchange:
            exchange.end()
    if exchange and exchange.expired:  # a body without a length ends at the shut socket as if it were whole
        raise DeadlineExceeded(deadline_sentence(response.url, exchange.seconds), response=response)
    return data


def _limited(response: requests.Response, limit: int) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"{declared} bytes, over the limit of {limit}")
    data = bytearray()
    for chunk in response.iter_content(CHUNK_BYTES):
        data += chunk
        if len(data) > limit:
            raise BodyTooLarge(f"over the limit of {limit} bytes")
    return bytes(data)
