"""Calls to a platform's own API: real URLs, hosts rewritten by FANOUT_PLATFORM_HOSTS.

Platform hosts are fixed by the adapters, not chosen by clients, so these calls do not go
through the guard of fanout/outbound/client.py (media URLs do). Two rules keep them honest:
- every URL must be https on its real host, unless that host is listed in
  FANOUT_PLATFORM_HOSTS, which rewrites scheme, host and port (path and query kept); only
  listed hosts may become http or loopback, which is how tests reach the emulators;
- a failure says whether the request may have reached the platform: `sent=False`
  (connection refused, DNS, connect timeout) is safe to send again; `sent=True` (a read
  timeout, a reset after sending) is ambiguous, and the adapter reads back before
  sending anything that creates.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

import requests
import urllib3.exceptions

USER_AGENT = "Fanout/1"
_CONNECTING = (urllib3.exceptions.NewConnectionError, urllib3.exceptions.NameResolutionError, ConnectionRefusedError)


class PlatformUnreachable(Exception):
    """No answer came back. `sent` tells whether the request may have been received."""

    def __init__(self, message: str, *, sent: bool):
        super().__init__(message)
        self.message = message
        self.sent = sent


@dataclass(frozen=True)
class PlatformResponse:
    status: int
    headers: Mapping[str, str]
    body: bytes = field(repr=False)

    def json(self) -> Any:
        """The body as JSON, or {} when it is not JSON (a proxy's HTML error page)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return {}

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def parse_hosts(value: str) -> dict[str, str]:
    """`host=base_url,...` -> {host: base_url}; ValueError with a readable message."""
    hosts: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in value.split(","))):
        host, sep, base = pair.partition("=")
        host, base = host.strip().lower(), base.strip().rstrip("/")
        parts = urlsplit(base)
        if not sep or not host or parts.scheme not in ("http", "https") or not parts.hostname \
                or parts.path or parts.query or parts.fragment:
            raise ValueError(f"{pair!r} is not host=scheme://host[:port] (e.g. graph.threads.net=http://127.0.0.1:9200)")
        hosts[host] = base
    return hosts


class PlatformHttp:
    """`requests` for platform APIs with the host map applied; one instance serves all threads."""

    def __init__(self, hosts: Mapping[str, str] | None = None, *, timeout: tuple[float, float] = (5.0, 30.0)):
        self.hosts = dict(hosts or {})
        self.timeout = timeout

    def url(self, url: str) -> str:
        """The URL as it is called (or shown to a browser): rewritten if its host is listed."""
        parts = urlsplit(url)
        base = self.hosts.get((parts.hostname or "").lower())
        if base is None:
            if parts.scheme != "https":
                raise ValueError(f"platform URLs are https unless their host is in FANOUT_PLATFORM_HOSTS: {parts.hostname}")
            return url
        to = urlsplit(base)
        return urlunsplit((to.scheme, to.netloc, parts.path, parts.query, parts.fragment))

    def request(self, method: str, url: str, *, params=None, data=None, json_body=None, headers=None,
                files=None) -> PlatformResponse:
        target = self.url(url)
        try:
            # A session per call: a pooled keep-alive connection the platform has closed
            # would fail as "maybe sent", and every such failure costs a read-back.
            with requests.Session() as session:
                session.trust_env = False  # no proxy or netrc from the environment
                answer = session.request(
                    method, target, params=params, data=data, json=json_body, files=files,
                    headers={"User-Agent": USER_AGENT, **(headers or {})},
                    timeout=self.timeout, allow_redirects=False,
                )
                return PlatformResponse(answer.status_code, dict(answer.headers), answer.content)
        except (requests.exceptions.ConnectTimeout, requests.exceptions.InvalidURL) as e:
            raise PlatformUnreachable(f"{_host(url)}: {type(e).__name__}", sent=False) from None
        except requests.exceptions.ConnectionError as e:
            # A refused or unresolvable connection sent nothing; a reset or a closed socket
            # after the request was written may have been acted upon.
            sent = not _before_sending(e)
            raise PlatformUnreachable(f"{_host(url)}: connection {'lost' if sent else 'failed'}", sent=sent) from None
        except requests.exceptions.RequestException as e:  # read timeout, chunked errors...
            raise PlatformUnreachable(f"{_host(url)}: {type(e).__name__}", sent=True) from None

    def get(self, url: str, **kwargs) -> PlatformResponse:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs) -> PlatformResponse:
        return self.request("POST", url, **kwargs)


def _host(url: str) -> str:
    return urlsplit(url).hostname or "?"


def _before_sending(error: BaseException) -> bool:
    """Whether a ConnectionError happened while connecting (nothing sent): a refused
    connection or a name that did not resolve, anywhere in its chain of causes."""
    seen: set[int] = set()
    node: BaseException | None = error
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        if isinstance(node, _CONNECTING):
            return True
        reason = getattr(node, "reason", None)
        if isinstance(reason, BaseException):
            node = reason
        elif node.args and isinstance(node.args[0], BaseException):
            node = node.args[0]
        else:
            node = node.__cause__ or node.__context__
    return False
