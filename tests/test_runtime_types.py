"""Every field of the Runtime (fanout/runtime.py) names its real type: none is `Any`, and
each name resolves to the class boot() puts there."""
from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

from fanout import runtime
from fanout.runtime import Runtime


def type_checking_names() -> dict:
    """The names runtime.py imports for annotations only (its `if TYPE_CHECKING:` block)."""
    tree = ast.parse(Path(runtime.__file__).read_text())
    namespace: dict = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for line in node.body:
                module = "fanout" + "." * (line.level > 0) + (line.module or "")
                imported = __import__(module, fromlist=[a.name for a in line.names])
                namespace.update({a.asname or a.name: getattr(imported, a.name) for a in line.names})
    return namespace


def test_every_runtime_field_is_typed_and_none_is_any():
    hints = typing.get_type_hints(Runtime, globalns={**vars(runtime), **type_checking_names()})
    assert {f.name for f in dataclasses.fields(Runtime)} <= set(hints)
    assert [name for name, hint in hints.items() if typing.Any in (hint, *typing.get_args(hint))] == []


def test_the_runtime_boot_builds_has_each_field_of_its_type(rt):
    hints = typing.get_type_hints(Runtime, globalns={**vars(runtime), **type_checking_names()})
    for name in ("tasks", "outbound", "media_outbound", "platform_http", "throttle", "lane", "metrics"):
        (declared,) = [t for t in typing.get_args(hints[name]) if t is not type(None)]
        assert isinstance(getattr(rt, name), declared), name
