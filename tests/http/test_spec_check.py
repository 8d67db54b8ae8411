"""fanout/http/spec_check.py: Connexion checks a document once per process, and only a
document that passed is let through unchecked."""
from __future__ import annotations

import copy

import pytest
from connexion.exceptions import InvalidSpecification
from connexion.spec import Specification

from fanout.http import spec_check

spec_check.install()

VALID = {
    "openapi": "3.0.3",
    "info": {"title": "t", "version": "1"},
    "paths": {"/things": {"get": {"operationId": "things.list", "responses": {"200": {"description": "ok"}}}}},
}


def spoiled(spec: dict) -> dict:
    spec = copy.deepcopy(spec)
    spec["paths"]["/things"]["get"]["responses"]["200"] = {"no": "description"}
    return spec


def test_a_document_that_passed_loads_again():
    Specification.from_dict(copy.deepcopy(VALID))
    assert Specification.from_dict(copy.deepcopy(VALID))["info"]["title"] == "t"


def test_an_invalid_document_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(InvalidSpecification):
            Specification.from_dict(spoiled(VALID))


def test_a_passed_document_changed_is_checked_again_and_refused():
    Specification.from_dict(copy.deepcopy(VALID))
    with pytest.raises(InvalidSpecification):
        Specification.from_dict(spoiled(VALID))


def test_a_check_once_passed_costs_only_the_digest(monkeypatch):
    # The check itself is not run again for the same document.
    checks = []
    monkeypatch.setattr(spec_check, "_check", lambda cls, spec: checks.append(spec))
    document = copy.deepcopy(VALID)
    document["info"]["title"] = "checked once"
    Specification.from_dict(copy.deepcopy(document))
    Specification.from_dict(copy.deepcopy(document))
    assert len(checks) == 1
