"""The contract as written (`fanout/openapi.yaml`) and as served (`/v1/openapi.json`).

The served document is the file itself, `$ref`s and named components kept, so a client
generated from either is the same client. Two things differ: the extensions that only bind
the server (handler modules, the bearer function) are removed, and the deployment's base URL
is named first in `servers`, absolute, so a generated client needs only the host.

The one rule that depends on the server's settings is the shape of the URLs it sends
requests to: with FANOUT_INSECURE_URLS=1 a schema's `x-insecure-pattern` replaces its
`pattern` (`load`), so the server validates and serves the rule in force, and nothing else.
"""
from __future__ import annotations

import functools
import pickle
from pathlib import Path

import yaml

from .outbound.guard import url_rule

# Inside the package, so an installed wheel serves it; the repository's root
# `openapi.yaml` is a symbolic link to it, for readers and tools.
FOLDER = Path(__file__).resolve().parent
SPEC = FOLDER / "openapi.yaml"

# The pattern a URL schema has under FANOUT_INSECURE_URLS=1.
INSECURE_PATTERN = "x-insecure-pattern"
# Extensions Connexion reads to bind handlers name our modules, not the contract; the
# insecure pattern is settled by `load`, so a served document shows only the one in force.
SERVER_ONLY = frozenset({"x-openapi-router-controller", "x-bearerInfoFunc", INSECURE_PATTERN})


# libyaml's parser when PyYAML has it: the pure-Python one takes ~0.3 s on this file.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=8)
def _parse(path: Path, mtime_ns: int) -> dict:
    return yaml.load(path.read_text(), Loader=_Loader)


def load(path: Path = SPEC, insecure_urls: bool = False) -> dict:
    """The spec as this server enforces it: relaxed URL patterns when `insecure_urls`, each
    described by the rule in force (fanout/outbound/guard.py `url_rule`).

    A fresh copy each call (callers may change it); the file is parsed once while unchanged.
    """
    spec = fresh_copy(_parse(path, path.stat().st_mtime_ns))
    return with_insecure_patterns(spec) if insecure_urls else spec


def fresh_copy(spec: dict) -> dict:
    """A copy of `spec` sharing nothing with it: a pickle's round trip, some five times
    faster than `copy.deepcopy` on this document (an app copies it twice when it is made)."""
    return pickle.loads(pickle.dumps(spec, pickle.HIGHEST_PROTOCOL))


def with_insecure_patterns(node):
    if isinstance(node, dict):
        node = {k: with_insecure_patterns(v) for k, v in node.items()}
        if INSECURE_PATTERN in node:
            node["pattern"] = node[INSECURE_PATTERN]
            # Its first paragraph states the rule, which a broken pattern's 400 quotes.
            rest = node.get("description", "").split("\n\n", 1)[1:]
            node["description"] = "\n\n".join([f"Must be {url_rule(insecure=True)}.", *rest])
        return node
    if isinstance(node, list):
        return [with_insecure_patterns(v) for v in node]
    return node


def without_server_only(node):
    if isinstance(node, dict):
        return {k: without_server_only(v) for k, v in node.items() if k not in SERVER_ONLY}
    if isinstance(node, list):
        return [without_server_only(v) for v in node]
    return node


def published(spec: dict, base_url: str) -> dict:
    """The document clients read: `spec` for the deployment at `base_url`."""
    doc = without_server_only(spec)  # a new tree: it rebuilds every dict and list
    here = {"url": base_url.rstrip("/") or "/", "description": "This deployment."}
    doc["servers"] = [here] + [s for s in doc.get("servers", []) if s.get("url") != here["url"]]
    return doc
