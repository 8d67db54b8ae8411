"""The emulators follow the platforms' documentation, not the service: no module under
tests/emulators imports `fanout`, so that a bug in the service's code is not also the
emulator's (tests/emulators/README.md)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

EMULATORS = Path(__file__).parent


def imported_modules(source: str) -> set[str]:
    """The absolute module names `source` imports (relative imports excluded)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def imports_the_service(source: str) -> bool:
    return any(name == "fanout" or name.startswith("fanout.") for name in imported_modules(source))


def test_no_file_under_tests_emulators_imports_the_service():
    files = sorted(EMULATORS.rglob("*.py"))
    assert len(files) > 30
    offenders = [str(f.relative_to(EMULATORS)) for f in files if imports_the_service(f.read_text(encoding="utf-8"))]
    assert offenders == []



@pytest.mark.parametrize("source,imports", [
    ("import fanout", True), ("import fanout.platforms.text as t", True), ("from fanout.platforms import text", True),
    ("def f():\n    from fanout.platforms.text import x_weighted_length", True), ("from fanout import app", True),
    ("from .text import links", False), ("import fanoutish", False), ("s = 'import fanout'", False),
])
def test_every_way_of_importing_the_service_is_seen(source, imports):
    assert imports_the_service(source) is imports
