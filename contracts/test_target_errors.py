"""One list of target error codes (fanout/target_errors.py): the spec's enums are it, and
no other module of the service spells a code."""
from __future__ import annotations

import ast
from pathlib import Path

import fanout
from fanout import target_errors
from fanout.spec import load

SCHEMAS = load()["components"]["schemas"]
PACKAGE = Path(fanout.__file__).parent
# The API error of an upload whose media the request alone shows a platform refuses
# (422 unsupported_media_for_platform, openapi.yaml ErrorCode) is the same word.
API_ERRORS = PACKAGE / "problems.py"


def test_the_target_error_codes_are_the_specs_target_error_code_enum():
    assert list(target_errors.CODES) == SCHEMAS["TargetErrorCode"]["enum"]


def test_the_codes_simulate_error_may_force_are_the_specs_simulated_error_enum():
    assert list(target_errors.SIMULATED) == SCHEMAS["SimulatedError"]["enum"]


def platform_words(tree: ast.AST) -> set[int]:
    """The constants a mapping row matches (`Rule(signal, values, code)`): the platform's
    own words, which may be a code's (TikTok answers `url_ownership_unverified`)."""
    return {id(value) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rule" and len(node.args) > 1
            for value in ast.walk(node.args[1])}


def test_no_other_module_spells_a_target_error_code():
    codes = set(target_errors.CODES)
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (Path(target_errors.__file__), API_ERRORS):
            continue
        tree = ast.parse(path.read_text())
        theirs = platform_words(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in codes and id(node) not in theirs:
                spelled.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value}")
    assert spelled == []
