"""The models of a client generated from the spec are the spec's named components.

A user generates a client from `openapi.yaml` or from a server's `GET /v1/openapi.json`;
both give the same models, each one a named schema of components/schemas: none derived
from an inline schema (`..._type_1`) or named after a response (`..._response_200`), and
`Target.error_code` typed with the one TargetErrorCode enum. Generation fails on any
generator warning (contracts/sdk.py).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from contracts.sdk import generate, model_names

SPEC_PATH = Path(__file__).resolve().parent.parent / "openapi.yaml"
SCHEMAS = yaml.safe_load(SPEC_PATH.read_text())["components"]["schemas"]


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.fixture(scope="module")
def from_file(tmp_path_factory) -> Path:
    """The client package generated from openapi.yaml, once for the module."""
    return generate(SPEC_PATH, tmp_path_factory.mktemp("sdk") / "from-file")


def test_the_served_document_gives_the_same_models_as_the_file(from_file, servers, tmp_path):
    server = servers("api")
    from_server = generate(f"{server.url}/v1/openapi.json", tmp_path / "from-server")
    assert model_names(from_server) == model_names(from_file)


def test_every_model_is_a_named_object_or_enum_of_the_spec(from_file):
    # Plain strings (Timestamp, Text, OutboundUrl) are `str` in the client, not models.
    named = {snake(name) for name, schema in SCHEMAS.items() if schema.get("type") == "object" or "enum" in schema}
    assert model_names(from_file) == named


def test_no_model_is_named_after_a_response(from_file):
    assert not [name for name in model_names(from_file) if re.search(r"_response_\d{3}", name)]


def test_target_error_code_is_the_one_target_error_code_enum_or_none(from_file):
    assert sorted(name for name in model_names(from_file) if name.startswith("target_error_code")) == ["target_error_code"]
    target = (from_file / "models" / "target.py").read_text()
    assert re.search(r"^    error_code: None \| TargetErrorCode$", target, re.MULTILINE), target
