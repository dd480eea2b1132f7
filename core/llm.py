"""One call to an OpenAI-compatible chat endpoint (``POST {base_url}/v1/chat/completions``), for the summary
view and the follow-up rewriter.

A base URL may carry credentials (``http://user:password@host/v1``, a proxy in front of the model): they go
in an ``Authorization: Basic`` header (the API key, when one is set, as ``Bearer`` instead), never in the
URL urllib opens, and every message names the endpoint redacted (``core.urls.redact``): an error becomes a
job warning or a search warning, both shown to people who must not learn the password.
"""
from __future__ import annotations

import base64
import http.client
import json
import re
import urllib.parse
import urllib.request

from core.urls import redact


class LLMError(RuntimeError):
    """A chat completion that failed; the message names the endpoint and the reason."""


def chat_endpoint(base_url: str) -> str:
    """The chat-completions URL of a base URL given with or without ``/v1`` (or already complete)."""
    base = base_url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if not base.endswith("/v1"):
        base += "/v1"
    return base + "/chat/completions"


def without_credentials(url: str) -> tuple[str, str]:
    """(``url`` without its ``user:password@``, ``"user:password"`` unquoted, '' when it has none)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url, ""
    host = parts.netloc.rpartition("@")[2]
    credentials = urllib.parse.unquote(parts.username) + ":" + urllib.parse.unquote(parts.password or "")
    return urllib.parse.urlunsplit(parts._replace(netloc=host)), credentials


def chat_completion(base_url: str, model: str, api_key: str, messages: list[dict[str, str]], timeout: float,
                    **options) -> str:
    """The text of the model's answer to ``messages``, without reasoning (``<think>``) blocks.

    ``options`` go into the request as they are (``temperature``, ``max_tokens``...). Raises LLMError when
    the endpoint cannot be reached, answers with an error, or the answer has no message.
    """
    endpoint, credentials = without_credentials(chat_endpoint(base_url))
    shown = redact(chat_endpoint(base_url))
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    elif credentials:
        headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
    body = json.dumps({"model": model, "messages": messages, **options}).encode()
    request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")
    # URLError, HTTPError and timeouts are OSErrors, a cut-off answer an HTTPException, bad JSON a ValueError
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            content = json.loads(response.read())["choices"][0]["message"]["content"]
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise LLMError(f"chat completion at {shown} failed: {redact(str(exc))}") from exc
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"chat completion at {shown} failed: the answer has no message") from exc
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    # An unclosed block is a reasoning model cut off by max_tokens before it answered.
    return re.sub(r"<think>.*?(?:</think>|$)", "", content or "", flags=re.S).strip()
