"""What a link may be, and secrets kept out of what is shown: pure functions over strings, no I/O.

``link_problem`` is the one check every path to the index goes through (folder ingest and its index
targets through ``workers.folder.require_web_url``, the live-source syncs through ``workers.sync.run``) and
the API holds results of an older index to: a result link is an absolute ``http``/``https`` URL with a host,
or a ``file:`` URL under a configured ``file:`` base (``[ingest] files_base_url``, a file share), and carries
no credential a searcher would be handed with it.

``redact`` is the one edge every text we show, log or record passes (job errors, search warnings, source
descriptions, the search log, LLM errors): the password of ``scheme://user:password@host``, the values of
secret query parameters (``token=``, ``api_key=``, ``access_token=``, ``sig=`` ...) and ``Authorization``
values are replaced by ``***``. Written here because no kept library redacts free text (``urllib.parse``
splits one URL, but the secrets sit inside exception messages and sentences).
"""
from __future__ import annotations

import functools
import re
import urllib.parse
from pathlib import PurePosixPath

WEB_SCHEMES = ("http", "https")  # what a reader's browser opens from a result list
FILE_SCHEME = "file"  # allowed only under a configured file: base (a file share the readers have mounted)
HIDDEN = "***"
SAFE_LINKS_KEPT = 4096  # checked result links kept per process: the pages a busy index's searches keep showing
URL_SHOWN_CHARS = 200  # of a refused URL in an error: enough to find it in the source, not a data: payload
# Query parameters whose value is a credential: bearer and OAuth tokens, API keys, signed-URL signatures
# (AWS, Azure SAS), passwords. "key" alone is left out: Confluence and wikis use it for space keys.
SECRET_PARAMETERS = ("token", "access_token", "refresh_token", "id_token", "auth_token", "api_key", "apikey",
                     "api-key", "sig", "signature", "x-amz-signature", "x-amz-credential",
                     "x-amz-security-token", "password", "passwd", "pwd", "secret", "client_secret")
_USERINFO = re.compile(r"(?P<scheme>\b[a-z][a-z0-9+.-]*://)(?P<userinfo>[^/\s?#@]*(?:@[^/\s?#@]*)*)@", re.I)
_SECRET_PARAMETER = re.compile(
    r"(?P<name>(?<![\w-])(?:" + "|".join(re.escape(p) for p in SECRET_PARAMETERS) + r"))=(?P<value>[^&\s#'\"<>,;:)]+)",
    re.I)
# "Authorization: Bearer abc", "'Authorization': 'Basic abc'", "authorization=abc", and a bare "Bearer abc…"
# (the HTTP spelling only, and eight characters or more: "bearer" in a sentence is left alone).
_AUTHORIZATION = re.compile(r"(?P<name>authorization['\"]?\s*[:=]\s*['\"]?)(?:(?:bearer|basic|token)\s+)?"
                            r"(?P<value>[^\s'\",;}]+)", re.I)
_BEARER = re.compile(r"(?P<name>\bBearer\s+)(?P<value>[A-Za-z0-9._~+/=-]{8,})")


def redact(text: str) -> str:
    """``text`` with every credential it carries replaced by ``***`` (see the module docstring)."""
    if not text:
        return text
    text = _USERINFO.sub(lambda m: m["scheme"] + _hidden_userinfo(m["userinfo"]) + "@", text)
    text = _SECRET_PARAMETER.sub(lambda m: f"{m['name']}={HIDDEN}", text)
    text = _AUTHORIZATION.sub(lambda m: m["name"] + HIDDEN, text)
    return _BEARER.sub(lambda m: m["name"] + HIDDEN, text)


def _hidden_userinfo(userinfo: str) -> str:
    """``user:***`` for a user and a password; ``***`` for a lone part (often a token given as the user)."""
    user, colon, _password = userinfo.partition(":")
    return f"{user}:{HIDDEN}" if colon and user else HIDDEN


def link_problem(url: str, files_base_url: str = "") -> str:
    """Why ``url`` may not be a result link, as the middle of a sentence ('' when it may be one).

    Refused: no URL; a relative or protocol-relative one; a scheme other than http(s) (``javascript:``,
    ``data:``, ``vbscript:`` ...) except ``file:`` under a ``file:`` ``files_base_url``; a URL with
    whitespace or control characters (browsers drop some of them, so what is checked is not what opens); a
    port that is no number; credentials in the URL or a secret query parameter (every searcher would get them).
    """
    if not url:
        return "it has no URL"
    shown = repr(redact(url)[:URL_SHOWN_CHARS] + ("…" if len(url) > URL_SHOWN_CHARS else ""))
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return f"its URL {shown} holds whitespace or control characters"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"its URL {shown} cannot be read as a URL ({exc})"
    scheme = parts.scheme.lower()
    if not scheme:
        kind = "protocol-relative" if url.startswith("//") else "relative"
        return f"its URL {shown} is {kind}, not an absolute http(s) link"
    if scheme == FILE_SCHEME:
        problem = _file_problem(url, files_base_url)
        if problem:
            return f"its URL {shown} {problem}"
    elif scheme not in WEB_SCHEMES:
        return f"its URL {shown} has the scheme {scheme!r}; only http and https links are indexed"
    elif not parts.hostname:
        return f"its URL {shown} has no host"
    if parts.username is not None or parts.password is not None:
        return f"its URL {shown} carries credentials (user:password@), which every searcher would be shown"
    secret = next((name for name, _value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
                   if name.lower() in SECRET_PARAMETERS), "")
    if secret:
        return f"its URL {shown} carries a secret in its query ({secret}=), which every searcher would be shown"
    return ""


def _file_problem(url: str, files_base_url: str) -> str:
    """Why a ``file:`` URL is refused ('' when it lies under the configured ``file:`` base)."""
    base_scheme = urllib.parse.urlsplit(files_base_url).scheme.lower() if files_base_url else ""
    if base_scheme != FILE_SCHEME:
        return "has the scheme 'file', allowed only under a file: [ingest] files_base_url (a file share)"
    if not url.startswith(files_base_url):
        return f"has the scheme 'file' but is not under the configured files_base_url {files_base_url!r}"
    rest = urllib.parse.unquote(url[len(files_base_url):])
    if ".." in PurePosixPath(rest).parts:
        return f"leaves the configured files_base_url {files_base_url!r} through '..'"
    return ""


@functools.lru_cache(maxsize=SAFE_LINKS_KEPT)
def safe_link(url: str, files_base_url: str = "") -> str:
    """``url`` when it may be a result link, else '' (a result of an older index shown without its link).
    Kept per process: the same pages come back search after search, and the check is a pure function."""
    return "" if link_problem(url, files_base_url) else url
