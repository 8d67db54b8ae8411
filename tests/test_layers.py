"""The API's handlers and the dashboard are neighbours, not layers of each other: what both
need lives below them (the pages' look in fanout/pages/, where a request runs in
fanout/http/execution.py, the upload in fanout/uploads.py, the connect flow's words in
fanout/connect_flow.py), so each reads, and changes, on its own."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fanout

ROOT = Path(fanout.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports, at module level or in a function."""
    package = ".".join(("fanout", *path.relative_to(ROOT).parent.parts))
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


@pytest.mark.parametrize("package, neighbour", [("handlers", "dashboard"), ("dashboard", "handlers")])
def test_the_handlers_and_the_dashboard_do_not_import_each_other(package, neighbour):
    reaching = {f"{path.relative_to(ROOT)}: {name}"
                for path in (ROOT / package).rglob("*.py")
                for name in imported_modules(path)
                if name == f"fanout.{neighbour}" or name.startswith(f"fanout.{neighbour}.")}
    assert not reaching


def test_an_import_of_the_neighbour_is_seen():
    """The check above reads relative imports as the interpreter does."""
    path = ROOT / "handlers" / "connect_pages.py"
    assert "fanout.pages.render" in imported_modules(path)
    assert "fanout.connect_flow" in imported_modules(path)
