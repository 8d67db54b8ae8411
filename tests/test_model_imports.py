"""The modules of fanout/models import each other without a cycle: tables never import the
rules that use them (caps, lifecycle, the operations that add rows), so each can be read,
and imported, on its own."""
from __future__ import annotations

import ast
from pathlib import Path

import fanout.models

PACKAGE = Path(fanout.models.__file__).parent


def module_names() -> dict[str, Path]:
    """`account`, `tables.webhook`, ... by their file; the package's __init__ files aside,
    as they only gather names for `fanout.models`."""
    return {".".join(p.relative_to(PACKAGE).with_suffix("").parts): p
            for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"}


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of the package that `name` imports, at module level or inside a function."""
    here = name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)] if node.level > 1 else here
                prefix = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("fanout.models"):
                prefix = node.module.removeprefix("fanout.models").lstrip(".")
            else:
                continue
            for alias in node.names:
                whole = f"{prefix}.{alias.name}".lstrip(".")
                if whole in modules:
                    found.add(whole)
                elif prefix in modules:
                    found.add(prefix)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                whole = alias.name.removeprefix("fanout.models.")
                if alias.name.startswith("fanout.models.") and whole in modules:
                    found.add(whole)
    return found - {name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` as the modules along it, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def model_imports() -> dict[str, set[str]]:
    modules = module_names()
    return {name: imports_of(name, path, set(modules)) for name, path in modules.items()}


def test_the_model_modules_import_each_other_without_a_cycle():
    cycle = find_cycle(model_imports())
    assert cycle is None, "import cycle in fanout/models: " + " -> ".join(cycle)


def test_the_walk_finds_a_cycle_where_there_is_one():
    graph = model_imports()
    graph["workspace"] = graph["workspace"] | {"caps"}
    assert find_cycle(graph) is not None
