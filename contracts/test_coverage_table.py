"""contracts/SPEC_COVERAGE.md names only tests that exist."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "contracts" / "SPEC_COVERAGE.md"


def referenced() -> list[tuple[str, str]]:
    """(file, test name) pairs; `::name` alone refers to the last file named before it."""
    pairs, current = [], None
    for token in re.findall(r"`([^`]+)`", TABLE.read_text()):
        match = re.fullmatch(r"((?:tests|contracts)/[\w/]+\.py)?(?:::(\w+))?", token)
        if not match or not any(match.groups()):
            continue
        current = match.group(1) or current
        if match.group(2):
            pairs.append((current, match.group(2)))
    return pairs


@functools.cache  # a file is named by hundreds of rows: parse it once
def defined(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text())
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))


def test_every_referenced_file_exists():
    files = set(re.findall(r"`((?:tests|contracts|bench)/[\w/]+\.py)", TABLE.read_text()))
    assert files and not [f for f in files if not (ROOT / f).exists()]


def test_every_referenced_test_exists():
    pairs = referenced()
    missing = [f"{path}::{name}" for path, name in pairs if name not in defined(path)]
    assert pairs and not missing, missing
