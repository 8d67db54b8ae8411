"""Connexion's check of the spec against the OpenAPI schema, once per process for each spec.

Connexion validates the whole document (and every schema's defaults) each time an app is
made, some 0.3 s for openapi.yaml, which is 90% of `create_app`. A server makes one app, but
the test suite makes one a test; the same document passes or fails the same way every time,
so a document that passed is not checked again. One that fails is checked (and refused)
every time. `tests/http/test_spec_check.py` pins both.
"""
from __future__ import annotations

import hashlib
import json

from connexion.spec import OpenAPISpecification

_passed: set[bytes] = set()  # a set's add is atomic: no lock
_check = OpenAPISpecification._validate_spec.__func__


def _digest(spec: dict) -> bytes:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, default=repr).encode()).digest()


def _validate_once(cls, spec: dict) -> None:
    digest = _digest(spec)
    if digest in _passed:
        return
    _check(cls, spec)  # raises InvalidSpecification
    _passed.add(digest)


def install() -> None:
    """Make OpenAPI 3 specs checked once per process (idempotent)."""
    OpenAPISpecification._validate_spec = classmethod(_validate_once)
