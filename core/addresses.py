"""Which network addresses a live source may fetch from: public ones, and the private hosts a setting names.

A site or Confluence URL is registered by an admin, and its redirects and links come from the server: either
could point the worker at the services beside it (OpenSearch, Redis, Flower, the API on 127.0.0.1) or at a
cloud's metadata address. So an address that is not public (loopback, link-local, private, shared, multicast,
reserved, unspecified; an IPv4-mapped IPv6 address is judged as the IPv4 address it maps) is refused unless
``sources.allowed_private_hosts`` names its host, its address or a network holding it.

What is judged is the address a name resolves to (``socket.getaddrinfo``, as the connection resolves it), never
the spelling of the URL: ``0x7f000001``, ``2130706433``, ``0177.0.0.1`` and ``localhost`` are all 127.0.0.1.
``workers.connectors.http`` checks every connection it opens; ``refused_url`` is the same check for a URL
given at registration.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from core.urls import redact

ALLOW_SETTING = "EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS"  # named in every refusal: how an intranet host is let in
SHARED = ipaddress.ip_network("100.64.0.0/10")  # RFC 6598 carrier-grade NAT: neither private nor global
HOST_NAME = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*\.?$")
DEFAULT_PORTS = {"http": 80, "https": 443}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def bare_host(host: str) -> str:
    """A host as compared: lower case, without IPv6 brackets or a trailing dot."""
    return host.strip().lower().removeprefix("[").removesuffix("]").rstrip(".")


@dataclass(frozen=True)
class AllowedHosts:
    """The private hosts a source may reach: host names (as the URL spells them) and networks (IPs as /32, /128)."""

    names: frozenset[str] = frozenset()
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, entries) -> AllowedHosts:
        """From the setting's entries; ``ValueError`` names an entry that is no host name, IP address or CIDR."""
        names, networks = set(), []
        for entry in entries:
            text = bare_host(entry)
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
                continue
            except ValueError:
                pass
            if not HOST_NAME.match(text):
                raise ValueError(f"allowed_private_hosts entry {entry!r}: not a host name, an IP address or a "
                                 f"network such as 10.0.0.0/8")
            names.add(text)
        return cls(frozenset(names), tuple(networks))

    def allows(self, host: str, address: Address) -> bool:
        return bare_host(host) in self.names or any(address in network for network in self.networks)


def judged(text: str) -> Address:
    """An address as ``getaddrinfo`` gives it, as judged: an IPv6 one's %zone dropped, an IPv4-mapped one as the
    IPv4 address it reaches."""
    address = ipaddress.ip_address(text.split("%", 1)[0])
    return getattr(address, "ipv4_mapped", None) or address


def non_public(address: Address) -> str | None:
    """What makes ``address`` no public one, as a phrase ("a loopback address"); None for a public address."""
    kinds = (("a loopback address", address.is_loopback), ("an unspecified address", address.is_unspecified),
             ("a link-local address", address.is_link_local), ("a multicast address", address.is_multicast),
             ("a reserved address", address.is_reserved), ("a private address", address.is_private),
             ("a shared (carrier-grade NAT) address", address in SHARED))
    for phrase, is_kind in kinds:
        if is_kind:
            return phrase
    return None if address.is_global else "a non-public address"


def resolve(host: str, port: int, family: int = socket.AF_UNSPEC) -> list[str]:
    """The addresses ``host`` resolves to, in the resolver's order, each once; ``socket.gaierror`` when none."""
    infos = socket.getaddrinfo(bare_host(host), port, family, socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def refusal(url: str, address: str, phrase: str) -> str:
    """The sentence a refused URL is recorded with."""
    return f"{redact(url)} resolves to {address}, {phrase}: not fetched (allow it with {ALLOW_SETTING})"


def refused_address(host: str, addresses: list[str], allowed: AllowedHosts) -> tuple[str, str] | None:
    """(address, phrase) of the first of ``addresses`` that ``host`` may not be reached at; None when all may."""
    for text in addresses:
        address = judged(text)
        phrase = non_public(address)
        if phrase and not allowed.allows(host, address):
            return text, phrase
    return None


def refused_url(url: str, allowed: AllowedHosts) -> str | None:
    """The refusal of an http(s) URL whose host resolves to an address not allowed, else None. A name that does
    not resolve here is not refused: the worker resolves it again at each request, and checks it then."""
    parts = urlsplit(url)
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower(), 80)
    except ValueError as exc:
        raise ValueError(f"{redact(url)!r}: not a URL ({exc})") from None
    if not parts.hostname:
        return None
    try:
        addresses = resolve(parts.hostname, port)
    except (OSError, UnicodeError):
        return None
    found = refused_address(parts.hostname, addresses, allowed)
    return refusal(url, *found) if found else None
