"""Caller identity: signed proxy headers and SSO tokens are verified; anything forged is refused; groups and
users never stand for each other, through the API on pages ingested by the real worker.

The single sign-on is a stand-in served on loopback that publishes a real JWKS document (and can fail
with a 500), since no SSO provider runs here; the tokens are real RS256 JWTs.
"""
from __future__ import annotations

import dataclasses
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from api.identity import (ANONYMOUS, GROUPS_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, USER_HEADER,
                          Authenticator, sign)
from core.settings import AuthConfig
from tests.api.conftest import signed
from tests.conftest import StandIn, serving

SECRET = "proxy-shared-secret"
ISSUER = "https://sso.example.com/realms/intranet"


def signed_headers(user="ana", groups="hr-team,staff", age=0, secret=SECRET) -> dict:
    timestamp = str(int(time.time()) - age)
    return {USER_HEADER: user, GROUPS_HEADER: groups, TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(secret, user, groups, timestamp)}


@pytest.fixture(scope="module")
def keys():
    return {"good": rsa.generate_private_key(public_exponent=65537, key_size=2048),
            "other": rsa.generate_private_key(public_exponent=65537, key_size=2048)}


@pytest.fixture
def sso(keys):
    """A JWKS endpoint on loopback; ``state["status"]`` makes it fail."""
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(keys["good"].public_key()))
    jwk.update(kid="k1", use="sig", alg="RS256")
    state = {"status": 200, "requests": 0}

    class Handler(StandIn):
        def do_GET(self):
            state["requests"] += 1
            body = json.dumps({"keys": [jwk]}).encode() if state["status"] == 200 else b"upstream error"
            self.answer(state["status"], body)

    with serving(Handler) as url:
        yield f"{url}/protocol/openid-connect/certs", state


def token(key, kid="k1", **claims) -> str:
    payload = {"sub": "ana", "groups": ["hr-team"], "iss": ISSUER, "aud": "evident",
               "exp": int(time.time()) + 300, **claims}
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": kid})


def bearer(value: str) -> dict:
    return {"Authorization": f"Bearer {value}"}


def test_without_auth_every_caller_is_anonymous_whatever_it_claims():
    auth = Authenticator(AuthConfig())
    caller = auth.caller({GROUPS_HEADER: "hr-team"})
    assert caller.principals() == [] and caller.refused
    assert auth.caller({}) == ANONYMOUS


def test_signed_header_identity_is_accepted():
    caller = Authenticator(AuthConfig(mode="signed-header", proxy_secret=SECRET)).caller(signed_headers())
    assert caller.refused is None
    assert caller.principals() == ["hr-team", "staff", "user:ana"]


@pytest.mark.parametrize("make, reason", [
    (lambda: {GROUPS_HEADER: "hr-team"}, "without"),                                    # unsigned
    (lambda: {**signed_headers(), GROUPS_HEADER: "hr-team,security"}, "does not match"),  # groups added later
    (lambda: signed_headers(secret="guessed"), "does not match"),                        # forged
    (lambda: signed_headers(age=3600), "stale"),                                         # replayed
    (lambda: {**signed_headers(), TIMESTAMP_HEADER: "yesterday"}, "Unix seconds"),
])
def test_forged_or_stale_signed_headers_are_refused(make, reason):
    caller = Authenticator(AuthConfig(mode="signed-header", proxy_secret=SECRET)).caller(make())
    assert caller.principals() == [] and reason in caller.refused


def test_sso_token_verified_against_the_jwks(sso, keys):
    url, state = sso
    auth = Authenticator(AuthConfig(mode="jwt", jwks_url=url, jwt_issuer=ISSUER, jwt_audience="evident"))
    caller = auth.caller(bearer(token(keys["good"])))
    assert caller.refused is None and caller.principals() == ["hr-team", "user:ana"]
    auth.caller(bearer(token(keys["good"], sub="ben")))
    assert state["requests"] == 1  # keys are cached, not fetched per request


@pytest.mark.parametrize("make, reason", [
    (lambda k: token(k["other"]), "Signature verification failed"),
    (lambda k: token(k["good"], exp=int(time.time()) - 3600), "expired"),
    (lambda k: token(k["good"], iss="https://evil.example.com"), "issuer"),
    (lambda k: token(k["good"], aud="another-app"), "audience"),
    (lambda k: jwt.encode({"sub": "ana", "groups": ["hr-team"], "exp": int(time.time()) + 60}, None,
                          algorithm="none", headers={"kid": "k1"}), "alg"),
    (lambda k: "not-a-token", "refused"),
])
def test_bad_sso_tokens_are_refused(sso, keys, make, reason):
    url, _ = sso
    auth = Authenticator(AuthConfig(mode="jwt", jwks_url=url, jwt_issuer=ISSUER, jwt_audience="evident"))
    caller = auth.caller(bearer(make(keys)))
    assert caller.principals() == []
    assert reason.lower() in caller.refused.lower()


def test_an_sso_that_fails_refuses_the_token_instead_of_failing_the_request(sso, keys):
    url, state = sso
    state["status"] = 500
    caller = Authenticator(AuthConfig(mode="jwt", jwks_url=url)).caller(bearer(token(keys["good"])))
    assert caller.principals() == [] and "refused" in caller.refused


def public_pem(key) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def test_static_key_and_groups_claim(keys):
    auth = Authenticator(AuthConfig(mode="jwt", jwt_key=public_pem(keys["good"]), groups_claim="roles",
                                    user_claim="email"))
    caller = auth.caller(bearer(token(keys["good"], roles=["evident-admins"], email="ana@example.com")))
    assert caller.principals() == ["evident-admins", "user:ana@example.com"]
    assert auth.is_admin(caller)


def test_admin_role_and_admin_token():
    auth = Authenticator(AuthConfig(mode="signed-header", proxy_secret=SECRET, admin_token="s3cret-admin"))
    assert not auth.is_admin(auth.caller(signed_headers()))
    assert auth.is_admin(auth.caller(signed_headers(groups="evident-admins")))
    assert auth.is_admin(auth.caller(bearer("s3cret-admin")))
    assert not auth.is_admin(auth.caller(bearer("s3cret-admim")))
    assert not auth.is_admin(ANONYMOUS)


@pytest.mark.parametrize("config, needs", [
    (AuthConfig(mode="signed-header"), "PROXY_SECRET"),
    (AuthConfig(mode="jwt"), "JWKS_URL"),
    (AuthConfig(mode="ldap"), "one of"),
])
def test_incomplete_auth_settings_are_a_clear_error(config, needs):
    with pytest.raises(ValueError, match=needs):
        Authenticator(config)


# Pages restricted to user abc and to groups named like that user, each found by the words they share.
WIKI = "https://wiki.example.com"
USER_PAGE, GROUP_PAGE, HTML_GROUP_PAGE = f"{WIKI}/pages/91001", f"{WIKI}/pages/91002", f"{WIKI}/files/pay.html"
SHARED_WORDS = "narwhal stipend ledger"


def restricted_page(page_id: str, text: str, restrictions: dict) -> dict:
    """A Confluence page as the REST API returns it, with its own read restriction."""
    return {"id": page_id, "type": "page", "title": f"Narwhal stipend {page_id}",
            "body": {"storage": {"value": f"<p>The {SHARED_WORDS}: {text}</p>"}},
            "restrictions": {"read": {"restrictions": {"user": {"results": []}, "group": {"results": []},
                                                       **restrictions}}},
            "_links": {"base": WIKI, "webui": f"/pages/{page_id}"}}


@pytest.fixture(scope="module")
def restricted_to_abc(ingest, jobs, stores, settings, tmp_path_factory):
    """Ingested by the worker: a page restricted to user abc, a wiki page restricted to a group named
    ``user:abc``, and an HTML page whose ``<meta name="acl">`` names that group."""
    from workers.submit import prune

    folder = tmp_path_factory.mktemp("namespaces") / "restricted"
    folder.mkdir()
    pages = {"91001": ("abc's own bonus is paid in March.", {"user": {"results": [{"accountId": "abc"}]}}),
             "91002": ("the team rota moves to Fridays.", {"group": {"results": [{"name": "user:abc"}]}})}
    for page_id, (text, restrictions) in pages.items():
        (folder / f"{page_id}.json").write_text(json.dumps(restricted_page(page_id, text, restrictions)),
                                                encoding="utf-8")
    (folder / "pay.html").write_text(f'<html><head><title>Narwhal pay</title><meta name="acl" content="user:abc">'
                                     f'</head><body><p>The {SHARED_WORDS} of the exported site lists every grade '
                                     f'and its allowance.</p></body></html>', encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps({"base": f"{WIKI}/files/"}), encoding="utf-8")
    status = ingest(folder)
    assert (status.done, status.failed) == (3, 0), status.errors
    stores.indices.refresh(index=settings.opensearch.index_alias)
    yield
    prune(jobs, stores, settings, [str(folder)], [])


@pytest.fixture(scope="module")
def jwt_client(settings, searcher, worker, keys):
    from api.app import create_app

    auth = dataclasses.replace(settings.auth, mode="jwt", jwt_key=public_pem(keys["good"]))
    return create_app(dataclasses.replace(settings, auth=auth), searcher=searcher).test_client()


@pytest.fixture(params=["jwt", "signed-header"])
def pages_read_by(request, restricted_to_abc, keys):
    """The restricted pages a caller finds through the API, asserted by an SSO token or the signing proxy."""
    if request.param == "jwt":
        client = request.getfixturevalue("jwt_client")
        claims = lambda user, groups: bearer(token(keys["good"], sub=user, groups=groups))  # noqa: E731
    else:
        client = request.getfixturevalue("client")
        claims = lambda user, groups: signed(user, ",".join(groups))  # noqa: E731

    def read(user: str, groups: list[str]) -> set[str]:
        response = client.get("/api/search", query_string={"q": SHARED_WORDS, "k": 50}, headers=claims(user, groups))
        assert response.status_code == 200
        assert not [w for w in response.get_json()["warnings"] if "identity" in w], response.get_json()["warnings"]
        return {hit["url"] for hit in response.get_json()["hits"]} & {USER_PAGE, GROUP_PAGE, HTML_GROUP_PAGE}

    return read


def test_a_group_claim_spelled_like_a_user_does_not_read_that_users_pages(pages_read_by):
    assert pages_read_by("mallory", ["user:abc"]) == {GROUP_PAGE, HTML_GROUP_PAGE}  # the group's, not abc's
    assert pages_read_by("", ["user:abc", "staff"]) == {GROUP_PAGE, HTML_GROUP_PAGE}
    assert pages_read_by("abc", []) == {USER_PAGE}


def test_a_group_named_like_a_user_does_not_open_to_that_user(pages_read_by):
    assert GROUP_PAGE not in pages_read_by("abc", ["staff"])
    assert pages_read_by("user:abc", []) == set()  # a user named like the group's stored form is a user
    assert pages_read_by("mallory", ["group:user:abc", "abc"]) == set()  # nor is a group named like it
