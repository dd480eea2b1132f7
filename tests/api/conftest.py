"""The Flask test client of an app on the real services, with a signing proxy's identities; one headless
Chromium for the session's page tests, a fresh tab and browser context for each test."""
from __future__ import annotations

import dataclasses
import time

import pytest

from api.identity import GROUPS_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, USER_HEADER, sign

PROXY_SECRET = "test-proxy-secret"
ADMIN_TOKEN = "test-admin-token"


def signed(user: str = "", groups: str = "", secret: str = PROXY_SECRET) -> dict:
    """Headers as the intranet's reverse proxy sends them for a signed-in user."""
    timestamp = str(int(time.time()))
    return {USER_HEADER: user, GROUPS_HEADER: groups, TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(secret, user, groups, timestamp)}


ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(scope="module")
def app(settings, searcher, worker):
    from api.app import create_app

    auth = dataclasses.replace(settings.auth, mode="signed-header", proxy_secret=PROXY_SECRET,
                               admin_token=ADMIN_TOKEN)
    return create_app(dataclasses.replace(settings, auth=auth), searcher=searcher)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def browser():
    """One Chromium for every page test of the session: a launch costs more than the test that needs it."""
    from tests.api.browser import Browser

    with Browser() as running:
        yield running


@pytest.fixture
def page(browser):
    """A tab of ``browser`` in a browser context of its own (no cookie or storage of another test's), closed
    after the test."""
    opened = browser.page()
    yield opened
    opened.close()
