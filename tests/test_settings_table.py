"""The settings are declared once (fanout/core_settings.py `CORE`, each platform's
`SETTINGS`): `Settings` takes its defaults from the declarations, and the README's settings
table lists every variable the service reads with its declared default and range, and no
variable it does not read."""
from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import pytest

from fanout.core_settings import CORE
from fanout.platforms import REGISTRY
from fanout.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
# The platforms' apps: one row for every FANOUT_<P>_ pair, whose platform list
# contracts/test_platform_registry.py holds to the registry.
APP_ROW = ("FANOUT_<P>_CLIENT_ID", "FANOUT_<P>_CLIENT_SECRET")
PLATFORM_SETTINGS = [s for p in REGISTRY.values() for s in p.settings]
# Settings fields no variable of its own fills: tests turn response validation on; the apps
# and each platform's settings object are read from the registry's declarations.
NOT_FROM_A_VARIABLE = {"validate_responses", "platform_apps", "platform_settings"}


def settings_table(readme: str) -> dict[str, tuple[str, str]]:
    """{variable: (its Default cell, its Meaning cell)} of the table under "## Settings"."""
    section = readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `FANOUT_"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            assert len(cells) == 3, f"not a row of three cells: {line}"
            rows.update({name: (cells[1], cells[2]) for name in re.findall(r"`(FANOUT_[A-Z0-9_<>]+)`", cells[0])})
    return rows


@functools.cache
def table() -> dict[str, tuple[str, str]]:
    return settings_table((ROOT / "README.md").read_text())


@pytest.mark.parametrize("setting", CORE, ids=lambda s: s.name)
def test_the_readme_lists_each_core_setting_with_its_declared_default(setting):
    assert setting.name in table(), f"{setting.name} has no row in the README's settings table"
    default, _ = table()[setting.name]
    assert default.startswith(setting.shown_default), f"{setting.name}: README says {default!r}"


# The settings whose parser has bounds worth stating (fanout/setting_parsers.py).
BOUNDED = [s for s in CORE + tuple(PLATFORM_SETTINGS) if getattr(s.parse, "range", None)]


@pytest.mark.parametrize("setting", BOUNDED, ids=lambda s: s.name)
def test_the_readme_states_each_bounded_settings_range(setting):
    bounds = setting.parse.range
    _, meaning = table()[setting.name]
    assert re.search(rf"\({re.escape(bounds)}[,)]", meaning), f"{setting.name}: README does not say ({bounds})"


def test_the_readme_lists_no_variable_the_service_does_not_read():
    assert set(APP_ROW) <= set(table())
    read = {s.name for s in CORE} | {s.name for s in PLATFORM_SETTINGS} | set(APP_ROW)
    assert set(table()) - read == set()


def test_a_default_in_words_names_the_declared_default_it_stands_for():
    """Where the README says more than the text (FANOUT_BASE_URL's default depends on the
    command), the declared default is among its words."""
    for setting in CORE:
        if setting.default and setting.unset:
            assert f"`{setting.default}`" in setting.unset, setting.name


def test_each_declared_default_is_what_the_settings_apply():
    declared = {s.name: s.default for s in CORE if s.default}
    assert Settings.from_env(declared) == Settings.from_env({})


def test_the_settings_defaults_are_the_declarations():
    read = Settings.from_env({})
    for field in dataclasses.fields(Settings):
        if field.name in NOT_FROM_A_VARIABLE:
            continue
        if field.default is not dataclasses.MISSING:
            assert field.default == getattr(read, field.name), f"{field.name}: not the declared default"
        elif field.default_factory is not dataclasses.MISSING:
            assert field.default_factory() == getattr(read, field.name), f"{field.name}: not the declared default"


def test_every_field_a_variable_fills_is_declared_once():
    fields = [s.field for s in CORE]
    assert len(fields) == len(set(fields)) and len(CORE) == len({s.name for s in CORE})
    assert set(fields) == {f.name for f in dataclasses.fields(Settings)} - NOT_FROM_A_VARIABLE
