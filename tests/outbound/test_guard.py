"""Outbound URL guard (fanout/outbound/guard.py) against SSRF: docs/reliability.md#outbound-requests.

No test touches the network: the resolver is always a fake, except the loopback check of
the real `resolve_host("localhost")`.
"""
from __future__ import annotations

import ipaddress

import pytest

from fanout.outbound.guard import (
    MAX_URL_LENGTH,
    UnsafeURL,
    check_url,
    is_public_address,
    parse_url,
    public_addresses,
    resolve_host,
    url_rule,
)

from fanout.spec import load

from ..conftest import PUBLIC_IP as PUBLIC_V4
from ..conftest import FakeResolver

PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946"

# The encodings of 127.0.0.1 that getaddrinfo accepts and ipaddress does not
# (docs/reliability.md#outbound-requests). They reach check_url as host names.
LOOPBACK_ENCODINGS = ["0x7f.1", "2130706433", "127.1", "0177.0.0.1", "017700000001", "0x7f000001"]

NON_PUBLIC_ADDRESSES = [
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "192.168.255.255",
    "169.254.169.254",
    "169.254.0.1",
    "100.64.0.1",
    "100.127.255.254",
    "100.100.100.200",
    "192.0.0.8",
    "192.0.2.1",
    "198.18.0.1",
    "198.51.100.1",
    "203.0.113.1",
    "192.88.99.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd12:3456:789a::1",
    "fec0::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::7f00:1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::808:808",
    "64:ff9b:1::1",
    "2002:7f00:1::",
    "2002:808:808::1",
    "2001::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:20::1",
    "2001:db8::1",
    "100::1",
    "3fff::1",
    "5f00::1",
]

PUBLIC_ADDRESSES = [
    PUBLIC_V4,
    "8.8.8.8",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "192.167.255.255",
    "223.255.255.254",
    PUBLIC_V6,
    "2001:4860:4860::8888",
    "2a00:1450:4001:82b::200e",
    "::ffff:93.184.216.34",
]


def nothing_resolves(host: str) -> list[str]:
    return []


def resolves_to(*addresses: str):
    return lambda host: list(addresses)


def must_not_resolve(host: str) -> list[str]:
    raise AssertionError(f"the resolver was asked about {host!r}")


# --- is_public_address -------------------------------------------------------------------


@pytest.mark.parametrize("address", NON_PUBLIC_ADDRESSES)
def test_non_public_address_is_not_public(address):
    assert is_public_address(ipaddress.ip_address(address)) is False


@pytest.mark.parametrize("address", PUBLIC_ADDRESSES)
def test_public_address_is_public(address):
    assert is_public_address(ipaddress.ip_address(address)) is True


def test_global_address_with_a_scope_id_is_not_public():
    assert is_public_address(ipaddress.ip_address(f"{PUBLIC_V6}%eth0")) is False


# --- check_url: addresses in the host --------------------------------------------------


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "0.0.0.0", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254",
     "100.64.0.1", "100.100.100.200", "224.0.0.1"],
)
def test_url_with_a_non_public_ipv4_literal_is_refused(address):
    with pytest.raises(UnsafeURL, match="non-public"):
        check_url(f"https://{address}/hook", must_not_resolve)


@pytest.mark.parametrize(
    "address",
    ["::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::",
     "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fec0::1"],
)
def test_url_with_a_non_public_ipv6_literal_in_brackets_is_refused(address):
    with pytest.raises(UnsafeURL, match="non-public"):
        check_url(f"https://[{address}]/hook", must_not_resolve)


def test_url_with_an_ipv6_literal_with_a_zone_id_is_refused():
    with pytest.raises(UnsafeURL):
        check_url("https://[fe80::1%25eth0]/", must_not_resolve)


def test_url_with_a_public_ip_literal_is_accepted_without_resolving():
    assert check_url(f"https://{PUBLIC_V4}/hook", must_not_resolve).hostname == PUBLIC_V4


def test_url_with_a_public_ipv6_literal_is_accepted_without_resolving():
    assert check_url(f"https://[{PUBLIC_V6}]/hook", must_not_resolve).hostname == PUBLIC_V6


@pytest.mark.parametrize("host", LOOPBACK_ENCODINGS)
def test_loopback_encoding_that_resolves_to_loopback_is_refused(host):
    resolve = FakeResolver({host: ["127.0.0.1"]})
    with pytest.raises(UnsafeURL, match="non-public"):
        check_url(f"https://{host}/", resolve)
    assert resolve.calls == [host]


@pytest.mark.parametrize("host", LOOPBACK_ENCODINGS)
def test_loopback_encoding_that_does_not_resolve_is_refused(host):
    with pytest.raises(UnsafeURL, match="does not resolve"):
        check_url(f"https://{host}/", nothing_resolves)


def test_host_zero_resolving_to_the_unspecified_address_is_refused():
    with pytest.raises(UnsafeURL):
        check_url("https://0/", FakeResolver({"0": ["0.0.0.0"]}))


@pytest.mark.parametrize("address", NON_PUBLIC_ADDRESSES)
def test_name_resolving_to_a_non_public_address_is_refused(address):
    with pytest.raises(UnsafeURL, match="non-public"):
        check_url("https://hooks.example.com/in", FakeResolver({"hooks.example.com": [address]}))


@pytest.mark.parametrize("private", ["127.0.0.1", "10.0.0.5", "169.254.169.254", "::1", "fd00::1"])
@pytest.mark.parametrize("position", ["first", "last"])
def test_name_resolving_to_several_addresses_with_any_one_private_is_refused(private, position):
    public = [PUBLIC_V4, PUBLIC_V6]
    addresses = [private, *public] if position == "first" else [*public, private]
    with pytest.raises(UnsafeURL, match="non-public"):
        check_url("https://rebind.example.com/", FakeResolver({"rebind.example.com": addresses}))


def test_name_that_does_not_resolve_is_refused():
    with pytest.raises(UnsafeURL, match="does not resolve"):
        check_url("https://nowhere.invalid/", FakeResolver({}))


def test_name_resolving_to_a_public_address_is_accepted():
    parts = check_url("https://hooks.example.com/in?x=1", FakeResolver({"hooks.example.com": [PUBLIC_V4]}))
    assert parts.hostname == "hooks.example.com"
    assert parts.path == "/in"


def test_name_resolving_to_public_ipv4_and_ipv6_is_accepted():
    resolve = FakeResolver({"hooks.example.com": [PUBLIC_V4, PUBLIC_V6]})
    assert check_url("https://hooks.example.com/", resolve).hostname == "hooks.example.com"


def test_resolver_is_asked_about_the_host_name_only():
    resolve = FakeResolver({"hooks.example.com": [PUBLIC_V4]})
    check_url("https://hooks.example.com:8443/a/b?c=d", resolve)
    assert resolve.calls == ["hooks.example.com"]


def test_resolved_ipv6_address_with_a_scope_id_is_refused():
    with pytest.raises(UnsafeURL, match="non-public"):
        check_url("https://hooks.example.com/", FakeResolver({"hooks.example.com": ["fe80::1%eth0"]}))


# --- check_url: user info, fragments and backslashes ------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.com@127.0.0.1/",
        "https://127.0.0.1#@evil.com/",
        "https://evil.com\\@127.0.0.1/",
        "https://user:pass@hooks.example.com/",
        "https://@hooks.example.com/",
        f"https://hooks.example.com@{PUBLIC_V4}/",
    ],
)
def test_url_with_user_info_tricks_is_refused(url):
    everything_public = FakeResolver({"evil.com": [PUBLIC_V4], "hooks.example.com": [PUBLIC_V4]})
    with pytest.raises(UnsafeURL):
        check_url(url, everything_public)


@pytest.mark.parametrize("url", ["https://hooks.example.com/a b", "https://hooks.example.com/\t", "https://hooks.example.com/\x00"])
def test_url_with_spaces_or_control_characters_is_refused(url):
    with pytest.raises(UnsafeURL, match="spaces, control characters or backslashes"):
        check_url(url, FakeResolver({"hooks.example.com": [PUBLIC_V4]}))


# --- check_url: shape ----------------------------------------------------------------


def test_http_url_is_refused():
    with pytest.raises(UnsafeURL, match="https"):
        check_url("http://hooks.example.com/", FakeResolver({"hooks.example.com": [PUBLIC_V4]}))


@pytest.mark.parametrize(
    "url",
    ["ftp://hooks.example.com/", "file:///etc/passwd", "gopher://hooks.example.com:70/_x",
     "ws://hooks.example.com/", "wss://hooks.example.com/", "data:text/plain,hi", "//hooks.example.com/",
     "hooks.example.com/in", ""],
)
def test_url_with_a_scheme_other_than_https_is_refused(url):
    with pytest.raises(UnsafeURL, match="https"):
        check_url(url, FakeResolver({"hooks.example.com": [PUBLIC_V4]}))


@pytest.mark.parametrize("url", ["https://", "https:///path", "https:hooks.example.com", "https://:443/"])
def test_url_without_a_host_is_refused(url):
    with pytest.raises(UnsafeURL, match="host"):
        check_url(url, must_not_resolve)


@pytest.mark.parametrize("port", [80, 8080, 22, 25, 6379, 8000, 1, 65535, 0])
def test_url_with_a_port_other_than_443_or_8443_is_refused(port):
    with pytest.raises(UnsafeURL, match="port"):
        check_url(f"https://hooks.example.com:{port}/", FakeResolver({"hooks.example.com": [PUBLIC_V4]}))


@pytest.mark.parametrize("netloc", ["hooks.example.com:99999", "hooks.example.com:http", "[::1"])
def test_url_with_an_unparseable_port_or_host_is_refused(netloc):
    with pytest.raises(UnsafeURL, match="not a valid URL"):
        check_url(f"https://{netloc}/", must_not_resolve)


@pytest.mark.parametrize("port", [443, 8443])
def test_url_with_port_443_or_8443_is_accepted(port):
    parts = check_url(f"https://hooks.example.com:{port}/", FakeResolver({"hooks.example.com": [PUBLIC_V4]}))
    assert parts.port == port


def test_url_over_2048_characters_is_refused():
    url = "https://hooks.example.com/" + "a" * (MAX_URL_LENGTH - len("https://hooks.example.com/") + 1)
    assert len(url) == MAX_URL_LENGTH + 1
    with pytest.raises(UnsafeURL, match="2048"):
        check_url(url, FakeResolver({"hooks.example.com": [PUBLIC_V4]}))


def test_url_of_exactly_2048_characters_is_accepted():
    url = "https://hooks.example.com/" + "a" * (MAX_URL_LENGTH - len("https://hooks.example.com/"))
    assert len(url) == MAX_URL_LENGTH
    check_url(url, FakeResolver({"hooks.example.com": [PUBLIC_V4]}))


def test_upper_case_scheme_and_host_are_accepted_and_host_is_lowered():
    parts = check_url("HTTPS://Hooks.Example.COM/In", FakeResolver({"hooks.example.com": [PUBLIC_V4]}))
    assert parts.hostname == "hooks.example.com"


def test_shape_checks_run_before_any_resolution():
    with pytest.raises(UnsafeURL):
        check_url("http://hooks.example.com/", must_not_resolve)


# --- insecure mode ------------------------------------------------------------------------


def test_insecure_mode_allows_http():
    assert check_url("http://hooks.example.com/", must_not_resolve, insecure=True).scheme == "http"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8123/hook", "https://[::1]:9000/", "http://localhost:5000/"])
def test_insecure_mode_allows_loopback_and_any_port(url):
    check_url(url, must_not_resolve, insecure=True)


@pytest.mark.parametrize(
    "url",
    ["ftp://127.0.0.1/", "https://user@127.0.0.1/", "http://", "http://a\\@127.0.0.1/",
     "http://127.0.0.1/" + "a" * MAX_URL_LENGTH],
)
def test_insecure_mode_still_refuses_other_schemes_user_info_and_bad_shapes(url):
    with pytest.raises(UnsafeURL):
        check_url(url, must_not_resolve, insecure=True)


# --- parse_url and public_addresses on their own ---------------------------------------


def test_parse_url_never_resolves():
    assert parse_url("https://127.0.0.1/").hostname == "127.0.0.1"


def test_public_addresses_returns_every_resolved_address():
    addresses = public_addresses("hooks.example.com", FakeResolver({"hooks.example.com": [PUBLIC_V4, PUBLIC_V6]}))
    assert addresses == [ipaddress.ip_address(PUBLIC_V4), ipaddress.ip_address(PUBLIC_V6)]


def test_unsafe_url_is_a_value_error():
    assert issubclass(UnsafeURL, ValueError)


# --- the real resolver, loopback only ----------------------------------------------------


def test_resolve_host_resolves_a_loopback_literal_to_itself():
    assert resolve_host("127.0.0.1") == ["127.0.0.1"]


def test_resolve_host_gives_nothing_for_a_name_that_cannot_be_encoded():
    # A label over 63 characters fails IDNA encoding before any query is sent.
    assert resolve_host("a" * 64 + ".example") == []


def test_localhost_is_refused_with_the_real_resolver():
    with pytest.raises(UnsafeURL):
        check_url("https://localhost/", resolve_host)


def test_the_spec_states_the_url_rule_the_guard_gives():
    description = load()["components"]["schemas"]["OutboundUrl"]["description"]
    assert description.split("\n\n")[0] == f"Must be {url_rule(insecure=False)}."
