"""The contract as written (`openapi.yaml`) and as served (`/v1/openapi.json`).

The served document is the file itself, `$ref`s and named components kept, so a client
generated from either is the same client. Two things differ: the extensions that only bind
the server (handler modules, the bearer function) are removed, and the deployment's base URL
is named first in `servers`, absolute, so a generated client needs only the host.
"""
from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi.yaml"

# Extensions Connexion reads to bind handlers; they name our modules, not the contract.
SERVER_ONLY = frozenset({"x-openapi-router-controller", "x-bearerInfoFunc"})


# libyaml's parser when PyYAML has it: the pure-Python one takes ~0.3 s on this file.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=8)
def _parse(path: Path, mtime_ns: int) -> dict:
    return yaml.load(path.read_text(), Loader=_Loader)


def load(path: Path = SPEC) -> dict:
    """The parsed file (a fresh copy: callers may change it); parsed once while unchanged."""
    return copy.deepcopy(_parse(path, path.stat().st_mtime_ns))


def without_server_only(node):
    if isinstance(node, dict):
        return {k: without_server_only(v) for k, v in node.items() if k not in SERVER_ONLY}
    if isinstance(node, list):
        return [without_server_only(v) for v in node]
    return node


def published(spec: dict, base_url: str) -> dict:
    """The document clients read: `spec` for the deployment at `base_url`."""
    doc = without_server_only(copy.deepcopy(spec))
    here = {"url": base_url.rstrip("/") or "/", "description": "This deployment."}
    doc["servers"] = [here] + [s for s in doc.get("servers", []) if s.get("url") != here["url"]]
    return doc
