"""The package's modules import each other without a cycle, lazy imports inside functions
counted too (an import only for type checking, under TYPE_CHECKING, aside): each module can
be read, and imported, before the ones that use it."""
from __future__ import annotations

import ast
from pathlib import Path

import fanout

from .test_model_imports import find_cycle

ROOT = Path(fanout.__file__).parent


def module_name(path: Path) -> str:
    parts = ("fanout", *path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_nodes(body: list[ast.stmt]):
    """The imports of `body`, in nested blocks and functions too, not under TYPE_CHECKING."""
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from import_nodes(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            yield from import_nodes([n for n in getattr(node, field, None) or () if isinstance(n, ast.AST)])


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules `path` imports (`from a import b` is a.b when b is a module)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in import_nodes(ast.parse(path.read_text()).body):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - (node.level - 1)] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                whole = f"{module}.{alias.name}"
                found.add(whole if whole in modules else module)
        else:
            found |= {alias.name for alias in node.names}
    return (found & modules) - {name}


def package_imports() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in ROOT.rglob("*.py")}
    return {name: imports_of(path, set(paths)) for name, path in paths.items()}


def test_the_package_imports_itself_without_a_cycle():
    cycle = find_cycle(package_imports())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_a_lazy_import_back_is_a_cycle():
    graph = package_imports()
    graph["fanout.platforms.rules"] = graph["fanout.platforms.rules"] | {"fanout.platforms"}
    assert find_cycle(graph) is not None
