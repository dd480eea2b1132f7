"""The HTTP session every connector uses: requests with urllib3's ``Retry``, plus a pace between requests.

Retries (urllib3): 429 and 503 wait what ``Retry-After`` says; other 5xx, connection resets and read
timeouts back off exponentially with jitter. Only idempotent GET/HEAD are retried. The pace is ours to
write: neither requests nor urllib3 spaces requests out, and a source's request-rate setting must hold
across every call a sync makes, so ``PacedSession`` waits before a request until ``1 / rate`` seconds
have passed since the previous one.
"""
from __future__ import annotations

import threading
import time

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

RETRY_STATUSES = (429, 500, 502, 503, 504)  # rate limited, or a server that may answer on the next try
RETRIES = 8  # with backoff 1, 2, 4 … s capped at BACKOFF_MAX: a minute of trouble is ridden out
BACKOFF_FACTOR = 1.0  # seconds of the first backoff; doubles each retry
BACKOFF_MAX = 30.0  # no single wait longer than this, whatever the doubling says
BACKOFF_JITTER = 1.0  # up to this many seconds added at random, so workers do not retry in step
RETRY_AFTER_MAX = 120.0  # a Retry-After longer than this is an outage, not a rate limit: fail and record
USER_AGENT = "Evident/1 (+intranet search connector)"


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


class PacedSession(requests.Session):
    """A requests session with the retry policy mounted and at most ``rate`` requests per second (0: no pace).

    ``timeout`` is applied to every request that does not set its own. ``requests_made`` counts the
    requests sent (retries included, as urllib3 sends them below this count: one per call here).
    """

    def __init__(self, rate: float = 0.0, timeout: float = 30.0):
        super().__init__()
        adapter = HTTPAdapter(max_retries=retry_policy())
        self.mount("http://", adapter)
        self.mount("https://", adapter)
        self.headers["User-Agent"] = USER_AGENT
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.timeout = timeout
        self.requests_made = 0
        self._next_slot = 0.0
        self._lock = threading.Lock()

    def request(self, method, url, **kwargs):
        if self.interval:
            with self._lock:
                now = time.monotonic()
                wait = self._next_slot - now
                self._next_slot = max(now, self._next_slot) + self.interval
            if wait > 0:
                time.sleep(wait)
        kwargs.setdefault("timeout", self.timeout)
        self.requests_made += 1
        return super().request(method, url, **kwargs)
