"""Which addresses a source may fetch from (``core.addresses``): judged by what a URL's host resolves to, whatever
its spelling, with the private hosts the setting names let in."""
from __future__ import annotations

import pytest

from core.addresses import AllowedHosts, refused_url
from core.settings import load_settings

NOTHING_ALLOWED = AllowedHosts.parse(())


@pytest.mark.parametrize("url, address, phrase", [
    ("http://127.0.0.1:9200/", "127.0.0.1", "a loopback address"),
    ("http://0x7f000001:9200/", "127.0.0.1", "a loopback address"),  # hex
    ("http://2130706433:9200/", "127.0.0.1", "a loopback address"),  # decimal
    ("http://0177.0.0.1:9200/", "127.0.0.1", "a loopback address"),  # octal
    ("http://127.1:5555/", "127.0.0.1", "a loopback address"),  # short form
    ("http://[::1]:9200/", "::1", "a loopback address"),
    ("http://localhost:8800/", "127.0.0.1", "a loopback address"),  # a name that resolves to loopback
    ("http://[::ffff:127.0.0.1]:6379/", "::ffff:127.0.0.1", "a loopback address"),  # IPv4-mapped IPv6
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254", "a link-local address"),
    ("http://[fe80::1]/", "fe80::1", "a link-local address"),
    ("https://10.20.30.40/wiki", "10.20.30.40", "a private address"),
    ("https://192.168.1.1/", "192.168.1.1", "a private address"),
    ("http://[fd12:3456::1]/", "fd12:3456::1", "a private address"),  # ULA fc00::/7
    ("http://100.64.0.1/", "100.64.0.1", "a shared (carrier-grade NAT) address"),
    ("http://0.0.0.0:9200/", "0.0.0.0", "an unspecified address"),
    ("http://0.1.2.3/", "0.1.2.3", "a private address"),  # 0.0.0.0/8, "this network"
    ("http://224.0.0.1/", "224.0.0.1", "a multicast address"),
    ("http://240.0.0.1/", "240.0.0.1", "a reserved address"),
])
def test_a_url_reaching_a_non_public_address_is_refused_whatever_its_spelling(url, address, phrase):
    assert refused_url(url, NOTHING_ALLOWED) == (f"{url} resolves to {address}, {phrase}: not fetched "
                                                 f"(allow it with EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS)")


@pytest.mark.parametrize("url", ["https://8.8.8.8/", "http://[2001:4860:4860::8888]:8080/"])
def test_a_public_address_passes(url):
    assert refused_url(url, NOTHING_ALLOWED) is None


@pytest.mark.parametrize("allowed, url, refused", [
    (["localhost"], "http://localhost:8800/", False),  # by name: whatever it resolves to
    (["localhost"], "http://127.0.0.1:8800/", True),  # the name allows that name, not its address
    (["127.0.0.1"], "http://0x7f000001:8800/", False),  # by address: every spelling of it
    (["127.0.0.1"], "http://[::1]:8800/", True),
    (["10.0.0.0/8"], "https://10.20.30.40/wiki", False),  # by network
    (["10.0.0.0/8"], "https://192.168.1.1/", True),
    (["[::1]", "WIKI.corp."], "http://[::1]:8800/", False),  # brackets, case and a trailing dot do not matter
])
def test_the_setting_lets_named_private_hosts_in(allowed, url, refused):
    assert (refused_url(url, AllowedHosts.parse(allowed)) is not None) is refused


def test_the_setting_is_read_from_the_environment_and_a_bad_entry_is_named():
    settings = load_settings(environ={"EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS": "wiki.corp, 10.0.0.0/8,::1"})
    assert settings.sources.allowed_private_hosts == ("wiki.corp", "10.0.0.0/8", "::1")
    assert load_settings(environ={}).sources.allowed_private_hosts == ()
    with pytest.raises(ValueError, match=r"EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS.*'10\.0\.0\.0/33'"):
        load_settings(environ={"EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS": "10.0.0.0/33"})
