"""The modules of fanout/models import each other without a cycle, and in one direction: a
table module (fanout/models/tables/) imports only `db` and other tables, never the rules
that use it (caps, lifecycle, the operations that add rows), so each can be read, and
imported, on its own. No module of the package imports fanout/views.py: the bodies of the
events the rules record are shaped by the views the runtime carries (fanout/runtime.py
`event_bodies`)."""
from __future__ import annotations

import ast
from pathlib import Path

import fanout.models

PACKAGE = Path(fanout.models.__file__).parent
VIEWS = "fanout.views"


def dotted(path: Path) -> str:
    """`fanout.models.tables.post` for its file; a package's __init__ is the package."""
    parts = path.relative_to(PACKAGE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_names() -> dict[str, Path]:
    """`account`, `tables.webhook`, ... by their file; the package's __init__ files aside,
    as they only gather names for `fanout.models`."""
    return {".".join(p.relative_to(PACKAGE).with_suffix("").parts): p
            for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"}


def absolute_imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every name the source of `module` imports, made absolute (`fanout.views`,
    `fanout.models.db.BaseModel`, `fanout.models.caps`...), at module level or inside a function."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = here[:len(here) - (node.level - 1)] if node.level else []
            prefix = ".".join(base + ([node.module] if node.module else []))
            found |= {f"{prefix}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def imports_of_file(path: Path) -> set[str]:
    return absolute_imports(path.read_text(), dotted(path), path.name == "__init__.py")


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of the package that `name` imports."""
    found = set()
    for whole in imports_of_file(path):
        if not whole.startswith("fanout.models."):
            continue
        whole = whole.removeprefix("fanout.models.")
        parent = whole.rpartition(".")[0]
        if whole in modules:
            found.add(whole)
        elif parent in modules:
            found.add(parent)
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


def beyond_tables(imported: set[str]) -> set[str]:
    """What of fanout/models a table module may not import: anything but `db` and the tables
    (the package's __init__ included, which is neither)."""
    return {name for name in imported if (name == "fanout.models" or name.startswith("fanout.models."))
            and not (name == "fanout.models.db" or name.startswith(("fanout.models.db.", "fanout.models.tables.")))}


def views_imported(imported: set[str]) -> set[str]:
    return {name for name in imported if name == VIEWS or name.startswith(VIEWS + ".")}


def test_the_model_modules_import_each_other_without_a_cycle():
    cycle = find_cycle(model_imports())
    assert cycle is None, "import cycle in fanout/models: " + " -> ".join(cycle)


def test_the_walk_finds_a_cycle_where_there_is_one():
    graph = model_imports()
    graph["tables.workspace"] = graph["tables.workspace"] | {"caps"}
    assert find_cycle(graph) is not None


def test_a_table_module_imports_only_db_and_other_tables():
    for path in (PACKAGE / "tables").glob("*.py"):
        assert beyond_tables(imports_of_file(path)) == set(), path.name


def test_the_check_of_a_table_module_finds_a_rule_imported():
    imported = absolute_imports("from ..db import BaseModel\nfrom .post import Post\nfrom ..caps import check_post\n"
                                "from .. import lifecycle\nfrom ... import views\n", "fanout.models.tables.target")
    assert beyond_tables(imported) == {"fanout.models.caps.check_post", "fanout.models.lifecycle"}


def test_no_module_of_the_models_imports_the_views():
    for path in PACKAGE.rglob("*.py"):
        assert views_imported(imports_of_file(path)) == set(), path.relative_to(PACKAGE)


def test_the_check_of_the_views_finds_each_way_of_importing_them():
    for source, module, is_package in [
        ("from .. import views", "fanout.models.account", False),
        ("def f():\n    from ..views import account_event", "fanout.models.tokens", False),
        ("from ...views import target_event", "fanout.models.tables.target", False),
        ("from .. import views", "fanout.models", True),
        ("import fanout.views", "fanout.models.webhook", False),
        ("from fanout.views import registration_event", "fanout.models.webhook", False),
    ]:
        assert views_imported(absolute_imports(source, module, is_package)), source
    assert not views_imported(absolute_imports("from .. import content\nfrom . import caps", "fanout.models.upload"))
