"""Which URLs and addresses the service may send requests to (docs/reliability.md#outbound-requests),
and where it may send a browser back to.

One rule for every outbound destination a client can choose (webhook endpoints, media
URLs): https only, no user info, and every address the host resolves to must be
public. The addresses resolved, not the host string, are what is checked, because
`0x7f.1`, `2130706433` and friends all resolve to loopback.

A connect flow's `redirect_url` is not called by the service but opened by the end user's
browser, with the new account's id in its query: any host will do, but only over https
(`parse_redirect_url`); `insecure` (FANOUT_INSECURE_URLS) adds http to a loopback host, for
a client developed on the same machine.
"""
from __future__ import annotations

import ipaddress
import socket
from typing import Callable, Iterable
from urllib.parse import SplitResult, urlsplit

Resolver = Callable[[str], list[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2048
SECURE_PORTS = (443, 8443)

# Ranges `is_global` lets through or that embed another address (CPython gh-113171 and
# friends): NAT64, 6to4, Teredo, ORCHIDv2, documentation, benchmarking, CGNAT, IETF protocol
# assignments, the 6to4 relay anycast, and the deprecated IPv6 site-local range fec0::/10
# (RFC 3879; still routed inside some networks, and `is_global` calls it global).
_BLOCKED = [
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
        "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/3",
        "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
        "2002::/16", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    )
]


def url_rule(insecure: bool = False) -> str:
    """The rule for a URL the service sends requests to, in words, as it is in force: the
    spec's `OutboundUrl` says it (fanout/spec.py `load` writes it there), so the API's 400
    quotes it, and the dashboard's hint shows it. `insecure`: FANOUT_INSECURE_URLS=1."""
    if insecure:
        return ("an absolute http or https URL on any port, without user info, whose host is a name or an IPv4 "
                "address, and without spaces, control characters or backslashes; any address, loopback included, "
                "is allowed (FANOUT_INSECURE_URLS=1, local development only)")
    return ("an absolute https URL on port 443 (the default) or 8443, without user info, whose host is a name or "
            "an IPv4 address resolving to public addresses only, and without spaces, control characters or "
            "backslashes")


class UnsafeURL(ValueError):
    """The URL may not be used as an outbound destination; the message says why."""


def is_public_address(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return is_public_address(ip.ipv4_mapped)
        if ip.scope_id:
            return False
    if any(ip in net for net in _BLOCKED if net.version == ip.version):
        return False
    return ip.is_global and not (
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
        or ip.is_reserved or ip.is_unspecified
    )


def resolve_host(host: str) -> list[str]:
    """Every address the system resolver gives for `host` (empty when it does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError):
        return []
    return list(dict.fromkeys(info[4][0] for info in infos))


def parse_url(url: str, *, insecure: bool = False) -> SplitResult:
    """Shape checks that need no network: scheme, host, user info, port, length."""
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeURL(f"must be at most {MAX_URL_LENGTH} characters")
    if any(c.isspace() or ord(c) < 0x20 or c == "\\" for c in url):
        raise UnsafeURL("must not contain spaces, control characters or backslashes")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UnsafeURL("is not a valid URL") from None
    allowed = ("https", "http") if insecure else ("https",)
    if parts.scheme not in allowed:
        raise UnsafeURL("must be an absolute http or https URL" if insecure else "must be an absolute https URL")
    if not parts.hostname:
        raise UnsafeURL("must name a host")
    if "@" in parts.netloc:
        raise UnsafeURL("must not contain user info (user:password@)")
    if port is not None and not insecure and port not in SECURE_PORTS:
        raise UnsafeURL(f"must use port {' or '.join(map(str, SECURE_PORTS))}")
    return parts


def parse_redirect_url(url: str, *, insecure: bool = False) -> SplitResult:
    """Where a connect flow may send the browser back to, or UnsafeURL: https, or http to
    `localhost` or a loopback address when `insecure`; a host, no user info (openapi.yaml,
    ConnectRequest)."""
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeURL(f"must be at most {MAX_URL_LENGTH} characters")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        raise UnsafeURL("must not contain control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not one)
    except ValueError:
        raise UnsafeURL("is not a valid URL") from None
    if not parts.hostname:
        raise UnsafeURL("must be an absolute https URL with a host")
    if "@" in parts.netloc:
        raise UnsafeURL("must not contain user info (user:password@)")
    if parts.scheme == "https" or (parts.scheme == "http" and insecure and is_loopback_host(parts.hostname)):
        return parts
    if insecure:
        raise UnsafeURL("must be an absolute https URL, or http to localhost or 127.0.0.0/8: "
                        "the redirect carries the account's id")
    raise UnsafeURL("must be an absolute https URL: the redirect carries the account's id "
                    "(http to a loopback host only on a server run with FANOUT_INSECURE_URLS=1)")


def is_loopback_host(host: str) -> bool:
    """`localhost`, or an address literal on loopback (what a browser reaches on its own machine)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def public_addresses(host: str, resolve: Resolver) -> list[IPAddress]:
    """The host's addresses, all of them public, or UnsafeURL."""
    addresses = addresses_of(host, resolve)
    if not addresses:
        raise UnsafeURL(f"host {host!r} does not resolve")
    for ip in addresses:
        if not is_public_address(ip):
            raise UnsafeURL(f"host {host!r} resolves to a non-public address")
    return addresses


def check_url(url: str, resolve: Resolver, *, insecure: bool = False) -> SplitResult:
    """A URL the service may send to, or UnsafeURL. `insecure` allows http and any address."""
    parts = parse_url(url, insecure=insecure)
    if not insecure:
        public_addresses(parts.hostname, resolve)
    return parts


def addresses_of(host: str, resolve: Resolver) -> list[IPAddress]:
    """The host's addresses: itself if it is an address literal, else one call to `resolve`."""
    literal = host.strip("[]")
    try:
        return [ipaddress.ip_address(literal)]
    except ValueError:
        pass
    return list(_parse_all(resolve(host)))


def _parse_all(values: Iterable[str]) -> Iterable[IPAddress]:
    for value in values:
        # getaddrinfo writes IPv6 scope ids as fe80::1%eth0.
        address, _, scope = value.partition("%")
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            continue  # not an address: as if the resolver had not answered it
        yield ipaddress.IPv6Address(f"{address}%{scope}") if scope else ip
