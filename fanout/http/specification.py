"""Connexion's view of the spec, built once per process for each document and shared by
every app made from it.

Building it (a deep copy, the document checked against the OpenAPI schema, every `$ref`
resolved) and compiling each schema's validators on first use cost some 40 ms an app. A
server makes one app, the test suite one a test. Connexion only reads a built
Specification (tests/http/test_specification.py holds a shared one unchanged after every
kind of request), so apps share it, and with it the validators compiled for its schemas
(fanout/http/validation.py keeps them by schema).
"""
from __future__ import annotations

import functools

from connexion.spec import Specification

from .. import spec as _spec

_load = Specification.load.__func__


def _load_or_pass(cls, specification, *, arguments=None):
    if isinstance(specification, Specification):
        return specification
    return _load(cls, specification, arguments=arguments)


def install() -> None:
    """Let `add_api` take a built Specification as it is (idempotent)."""
    Specification.load = classmethod(_load_or_pass)


def shared(insecure_urls: bool = False) -> Specification:
    """The Specification of fanout/openapi.yaml as `spec.load(insecure_urls)` gives it,
    built again only when the file changes."""
    return _built(_spec.SPEC, _spec.SPEC.stat().st_mtime_ns, insecure_urls)


@functools.lru_cache(maxsize=4)
def _built(path, mtime_ns: int, insecure_urls: bool) -> Specification:
    return Specification.from_dict(_spec.load(path, insecure_urls=insecure_urls))
