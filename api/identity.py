"""Who is calling: an identity the API can verify, or nobody.

The mode comes from settings (``[auth] mode``, ``EVIDENT_AUTH_MODE``), never from the request:

- ``none`` (the default): every caller is anonymous and sees public evidence only.
- ``jwt``: ``Authorization: Bearer <token>`` from the intranet's single sign-on (OIDC), verified with
  PyJWT: signature against the JWKS URL (``jwks_url``, keys cached) or a static key (``jwt_key``: a PEM
  public key, or a shared secret for HS256), ``exp``/``nbf``, issuer and audience. Groups come from the
  claim ``groups_claim``, the user from ``user_claim``.
- ``signed-header``: the intranet's reverse proxy signs what it asserts. It sends ``X-Evident-User``,
  ``X-Evident-Groups`` (comma separated), ``X-Evident-Timestamp`` (Unix seconds) and
  ``X-Evident-Signature``: hex HMAC-SHA256 with the shared ``proxy_secret`` over
  ``"{user}\\n{groups}\\n{timestamp}"``. The HMAC is the standard library's; the three-line message is
  ours, since this contract between our API and the proxy is ours to define.

A claim that fails verification (no or wrong signature, stale, expired, wrong issuer) is refused: the
caller is served as anonymous and ``Caller.refused`` says why, so search answers with public results
and a warning, and admin endpoints answer 401. Users are principals beside groups, each in its own namespace
(``ingest.principals``): the user asserted (the token's ``user_claim``, ``X-Evident-User``) is ``user:<id>``,
and every name in the groups claim or header is a group, whatever it spells, so a group claim of ``user:abc``
is the group ``group:user:abc`` and never reads what is restricted to user abc.
"""
from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, field
from typing import Mapping, get_args

import jwt

from core.settings import AuthConfig, AuthMode
from ingest.principals import principals as principals_of

USER_HEADER = "X-Evident-User"
GROUPS_HEADER = "X-Evident-Groups"
TIMESTAMP_HEADER = "X-Evident-Timestamp"
SIGNATURE_HEADER = "X-Evident-Signature"
MODES = get_args(AuthMode)


@dataclass(frozen=True)
class Caller:
    """The verified caller: a user id, its groups; anonymous when ``user`` is None and no groups."""

    user: str | None = None
    groups: tuple[str, ...] = ()
    refused: str | None = None  # why a presented identity was not accepted
    by_admin_token: bool = False  # authenticated with the separate admin token

    @property
    def anonymous(self) -> bool:
        return self.user is None and not self.groups and not self.by_admin_token

    def principals(self) -> list[str]:
        """What an evidence ACL is matched against: the groups and the user, each in its namespace (the kind
        from the claim it came in, never from the name)."""
        return principals_of(self.groups, [self.user] if self.user else [])


ANONYMOUS = Caller()


def sign(secret: str, user: str, groups: str, timestamp: str) -> str:
    """The proxy's signature over what it asserts (used by the proxy's side in tests and docs)."""
    message = f"{user}\n{groups}\n{timestamp}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def split_groups(raw: str | list | tuple | None) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, (list, tuple)):
        return ()
    return tuple(dict.fromkeys(g.strip() for g in raw if isinstance(g, str) and g.strip()))


@dataclass
class Authenticator:
    """Turns request headers into a ``Caller`` under the configured mode; ``admin`` checks the role."""

    config: AuthConfig
    _jwks: jwt.PyJWKClient | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.config.mode not in MODES:
            raise ValueError(f"auth mode must be one of {', '.join(MODES)}, got {self.config.mode!r}")
        if self.config.mode == "signed-header" and not self.config.proxy_secret:
            raise ValueError("auth mode signed-header needs a proxy secret (EVIDENT_AUTH_PROXY_SECRET)")
        if self.config.mode == "jwt" and not (self.config.jwks_url or self.config.jwt_key):
            raise ValueError("auth mode jwt needs EVIDENT_AUTH_JWKS_URL or EVIDENT_AUTH_JWT_KEY")

    def caller(self, headers: Mapping[str, str]) -> Caller:
        token = bearer_token(headers)
        if token and self.config.admin_token and hmac.compare_digest(token, self.config.admin_token):
            return Caller(by_admin_token=True)
        if self.config.mode == "jwt":
            return self._from_jwt(token) if token else ANONYMOUS
        if self.config.mode == "signed-header":
            return self._from_signed_headers(headers)
        if headers.get(GROUPS_HEADER) or headers.get(USER_HEADER):
            return Caller(refused="identity headers are ignored: the API is configured without authentication")
        return ANONYMOUS

    def is_admin(self, caller: Caller) -> bool:
        return caller.by_admin_token or (bool(self.config.admin_group) and self.config.admin_group in caller.groups)

    def _from_signed_headers(self, headers: Mapping[str, str]) -> Caller:
        user, groups = headers.get(USER_HEADER, ""), headers.get(GROUPS_HEADER, "")
        if not (user or groups):
            return ANONYMOUS
        timestamp, signature = headers.get(TIMESTAMP_HEADER, ""), headers.get(SIGNATURE_HEADER, "")
        if not signature:
            return Caller(refused=f"{GROUPS_HEADER}/{USER_HEADER} without {SIGNATURE_HEADER}")
        try:
            age = time.time() - int(timestamp)
        except ValueError:
            return Caller(refused=f"{TIMESTAMP_HEADER} must be Unix seconds, got {timestamp[:40]!r}")
        if abs(age) > self.config.proxy_max_age_seconds:
            return Caller(refused=f"signed identity is stale ({int(age)} s old, at most "
                                  f"{self.config.proxy_max_age_seconds} s)")
        if not hmac.compare_digest(signature, sign(self.config.proxy_secret, user, groups, timestamp)):
            return Caller(refused=f"{SIGNATURE_HEADER} does not match")
        return Caller(user=user or None, groups=split_groups(groups))

    def _from_jwt(self, token: str) -> Caller:
        try:
            claims = jwt.decode(token, self._key(token), algorithms=self._algorithms(),
                                audience=self.config.jwt_audience or None, issuer=self.config.jwt_issuer or None,
                                leeway=self.config.jwt_leeway_seconds,
                                options={"require": ["exp"], "verify_aud": bool(self.config.jwt_audience)})
        except (jwt.PyJWTError, ValueError) as exc:
            return Caller(refused=f"bearer token refused: {exc}")
        user = claims.get(self.config.user_claim)
        return Caller(user=str(user) if user else None, groups=split_groups(claims.get(self.config.groups_claim)))

    def _algorithms(self) -> list[str]:
        return [a.strip() for a in self.config.jwt_algorithms.split(",") if a.strip()]

    def _key(self, token: str):
        if self.config.jwt_key:
            return self.config.jwt_key
        if self._jwks is None:
            self._jwks = jwt.PyJWKClient(self.config.jwks_url, cache_keys=True,
                                         lifespan=self.config.jwks_cache_seconds,
                                         timeout=self.config.jwks_timeout_seconds)
        return self._jwks.get_signing_key_from_jwt(token).key


def bearer_token(headers: Mapping[str, str]) -> str:
    scheme, _, token = headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
