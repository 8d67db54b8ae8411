"""Everything that names the platforms comes from the registry (fanout/platforms/__init__.py)
or equals it: openapi.yaml, the event schemas, the settings and their documentation, the
connect pages, the rules, the emulators and the tests' parametrisation
(docs/adding-a-platform.md). A half-added platform fails here, not with a 500."""
from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml

from fanout.core_settings import CORE
from fanout.platforms import NAMES, PLATFORMS, REGISTRY
from fanout.platforms import RULES
from fanout.settings import Settings

from .platform_enums import SPEC as SPEC_PATH, render_event_schema, render_spec

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text())
SCHEMAS = SPEC["components"]["schemas"]
EVENTS = sorted((ROOT / "contracts" / "events").glob("*.schema.json"))


def enums(node, path=()):
    """(path, enum) for every enum in a JSON document."""
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield path, node["enum"]
        for key, value in node.items():
            yield from enums(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from enums(value, path + (i,))


def platform_enums(document):
    return [(path, enum) for path, enum in enums(document) if set(enum) & set(PLATFORMS) or "platform" in path]


def test_the_specs_platform_schema_is_the_registry():
    assert SCHEMAS["Platform"]["enum"] == list(PLATFORMS)


def test_every_platform_parameter_of_the_spec_is_the_platform_schema():
    parameters = [p for item in SPEC["paths"].values() for op in item.values() if isinstance(op, dict)
                  for p in op.get("parameters", []) if p.get("name") == "platform"]
    assert parameters
    assert all(p["schema"] == {"$ref": "#/components/schemas/Platform"} for p in parameters)


def test_every_enum_of_the_spec_that_lists_platforms_lists_the_registry():
    found = platform_enums(SPEC)
    assert found and all(enum == list(PLATFORMS) for _, enum in found), found


def test_no_rule_of_the_upload_request_names_a_platform():
    """The platforms `accounts` and `overrides` name are checked by the service
    (fanout/models/upload.py): a schema rule per platform outgrows the tools that combine
    rules (Schemathesis), and one more platform must not make the spec unusable to them."""
    rules = json.dumps(SCHEMAS["UploadRequest"]["allOf"])
    assert not [p for p in PLATFORMS if re.search(rf"\b{p}\b", rules)], rules


def test_the_platform_lists_are_what_the_generator_writes_from_the_registry():
    # After adding a package: `python -m contracts.platform_enums` (docs/adding-a-platform.md).
    assert render_spec(SPEC_PATH.read_text()) == SPEC_PATH.read_text()
    for path in EVENTS:
        assert render_event_schema(path.read_text()) == path.read_text(), path.name


def test_the_accounts_by_platform_schema_has_one_property_per_platform():
    assert sorted(SCHEMAS["AccountsByPlatform"]["properties"]) == sorted(PLATFORMS)


def test_the_overrides_schema_has_one_named_schema_per_platform():
    """Hand-written with each package (docs/adding-a-platform.md): a platform's override is
    a schema of what that platform can do, which no generator knows."""
    properties = SCHEMAS["Overrides"]["properties"]
    assert sorted(properties) == sorted(PLATFORMS)
    for name, schema in properties.items():
        (named,) = [s for s in SCHEMAS if s.lower() == f"{name}override"]
        assert schema == {"$ref": f"#/components/schemas/{named}"}, name


# The event schemas whose subject is on a platform (a target, an account); a registration's
# events (webhook_event.schema.json) name none.
ON_A_PLATFORM = ("post_event.schema.json", "account_event.schema.json")


@pytest.mark.parametrize("schema", EVENTS, ids=lambda p: p.name)
def test_the_event_schemas_platform_enums_are_the_registry(schema):
    found = platform_enums(json.loads(schema.read_text()))
    assert all(enum == list(PLATFORMS) for _, enum in found), found
    assert bool(found) == (schema.name in ON_A_PLATFORM), found


def test_the_rules_are_the_registrys():
    assert sorted(RULES) == sorted(PLATFORMS)
    assert all(p.rules is RULES[name] and p.rules.platform == name for name, p in REGISTRY.items())


def test_a_platforms_own_settings_are_read_by_its_package_alone():
    read = {setting.name for setting in CORE}  # the service's own (fanout/core_settings.py)
    for name, platform in REGISTRY.items():
        assert not {s.name for s in platform.settings} & read, name
        assert not {n for n in read if n.startswith(platform.env_prefix)}, name


def test_each_setting_fills_one_field_of_its_platforms_settings():
    for name, platform in REGISTRY.items():
        fields = sorted(f.name for f in dataclasses.fields(platform.config))
        assert sorted(s.field for s in platform.settings) == fields, name


def test_each_declared_default_is_the_default_the_settings_apply():
    declared = {s.name: s.default for p in REGISTRY.values() for s in p.settings}
    assert Settings.from_env(declared) == Settings.from_env({})


# The platforms that connect through an app registered with them (the OAuth redirect).
APP_PLATFORMS = tuple(name for name in PLATFORMS if REGISTRY[name].uses_app)


@pytest.mark.parametrize("platform", APP_PLATFORMS)
def test_each_platforms_app_is_read_from_its_own_settings(platform):
    prefix = REGISTRY[platform].env_prefix
    settings = Settings.from_env({prefix + "CLIENT_ID": "id", prefix + "CLIENT_SECRET": "secret",
                                  **{s.name: s.default for s in REGISTRY[platform].settings}})
    assert sorted(settings.platform_apps) == [platform]


def test_the_readme_documents_each_platform_setting_with_its_default():
    readme = (ROOT / "README.md").read_text()
    for platform in REGISTRY.values():
        for s in platform.settings:
            default = f"`{s.default}`" if s.default else "(unset|empty)"
            assert re.search(rf"^\| `{s.name}` \| {default} \|", readme, re.M), s.name
    assert f"(`{'`, `'.join(p.upper() for p in APP_PLATFORMS)}`)" in readme


def test_the_connect_pages_know_every_platform_and_only_those(client):
    for name in PLATFORMS:
        assert "Unknown platform" not in client.get(f"/connect/{name}?session=abc").text
    unknown = client.get("/connect/myspace?session=abc")
    assert unknown.status_code == 404
    assert all(title in unknown.text for title in NAMES.values())


@pytest.mark.parametrize("platform", PLATFORMS)
def test_each_live_platform_has_hosts_an_error_table_and_an_emulator(platform):
    entry = REGISTRY[platform]
    assert entry.adapter is not None and entry.hosts and entry.errors
    assert (ROOT / "tests" / "emulators" / platform / "__init__.py").exists()


def literal_platform_lists(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            if [e.value for e in node.elts] == list(PLATFORMS):
                yield node.lineno


def test_the_tests_parametrise_over_the_registry_not_a_list_of_their_own():
    """"Every platform" is PLATFORMS; a list in another order is a sequence a test chose."""
    tests = [p for d in ("tests", "contracts") for p in (ROOT / d).glob("**/*.py")]
    spelled = {str(p.relative_to(ROOT)): lines for p in tests if (lines := list(literal_platform_lists(p)))}
    assert spelled == {}


@pytest.mark.parametrize("name", [name for name, platform in REGISTRY.items() if platform.adapter is not None])
def test_every_adapter_offers_what_its_connect_style_asks(name):
    from fanout.platforms.surface import problems

    assert problems(REGISTRY[name].adapter) == []


def test_an_adapter_that_lacks_a_hook_or_takes_other_parameters_is_told_which():
    import types

    from fanout.platforms.base import CREDENTIALS, Field
    from fanout.platforms.surface import problems

    oauth = types.ModuleType("half_done")
    oauth.HOSTS = ("api.example.com",)
    oauth.publish = lambda step, job: None
    oauth.refresh = lambda http, app, token, refresh_token, *, now: None  # `token`, not `access_token`
    oauth.refresh_due = lambda expires_at: expires_at
    oauth.UPLOADS_MEDIA = "yes"
    assert problems(oauth) == [
        "refresh('http', 'app', 'token', 'refresh_token', 'now') is called as "
        "refresh('http', 'app', 'access_token', 'refresh_token', 'now')",
        "no authorize()", "no exchange()", "UPLOADS_MEDIA is not True or False",
    ]
    credentials = types.ModuleType("form_only")
    credentials.CONNECT_STYLE = CREDENTIALS
    credentials.HOSTS = ()
    credentials.fields = (Field("password", "Password", secret=True), Field("handle", "Handle"))
    assert problems(credentials) == [
        "no publish()", "no refresh()", "no refresh_due()", "no sign_in()", "HOSTS is not a tuple of host names",
        "fields are not the identifier first, then the secret",
    ]


def test_the_package_and_its_metadata_name_every_platform():
    import configparser

    import fanout

    titles = sorted(p.title for p in REGISTRY.values())
    named = ", ".join(titles[:-1]) + " and " + titles[-1]
    metadata = configparser.ConfigParser()
    metadata.read(ROOT / "setup.cfg")
    assert named in fanout.__doc__
    assert named in metadata["metadata"]["description"]
    keywords = [word.strip() for word in metadata["metadata"]["keywords"].split(",")]
    assert [word for word in keywords if word in PLATFORMS] == list(PLATFORMS)
    assert named in " ".join((ROOT / "README.md").read_text().split("\n\n")[1].split())
