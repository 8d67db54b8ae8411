"""Schemathesis against the in-process ASGI app: every operation, every check.

Stateless (`test_api`): phases examples, coverage and fuzzing, positive and negative data.
The examples phase runs every operation: the documented examples of each one that takes
input, and (`fill-missing`) the one request an operation without input can be sent.
Stateful (`test_stateful`): the state machine built from the OpenAPI links (from what
creates or lists a resource to every operation on it, from a page to the next, delete ->
get 404; contracts/test_links.py follows each one).

The app is built per test from the fixtures of tests/conftest.py (its own SQLite file,
a test clock, a fake resolver). `test_api`'s schema is the document the app serves, read
when the module is collected (`served_schema`), so each operation is a test of its own,
with its own app and workspace, and pytest-xdist spreads them over its workers (from a
fixture, `schemathesis.pytest.from_fixture`, they were one test of 60-100 s run as
subtests). The other tests take the schema from the app itself (`api_schema`).
Authentication is an auth provider registered on the schema (`@schema.auth()`), never
headers passed by hand: Schemathesis cannot tell hand-made headers from generated ones,
which gives false `ignored_auth` failures (schemathesis#2846).

Every built-in check is on (the default; only the opt-in `max_response_time` is not).
The one check configured differently is `positive_data_acceptance`, for the rules below
that no schema can state (or that the spec leaves to the service, each with its reason);
every other rule of a request is in openapi.yaml (`oneOf`, `not`, `pattern`), so
schema-valid data meets it.

The rate limiter is on, as in production: the generated requests come a second apart on
the test clock, and `test_every_operation_documents_its_429` holds the 429 every
operation answers past the limit to the spec.
"""
from __future__ import annotations

import hypothesis
import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig

from fanout.models import Event, IdempotencyRecord, MonthlyUsage, Post, db
from fanout.spec import load, published
from tests.conftest import ExampleEndpoints, bearer, connect_sandbox_account, spend

SEED = 20261122

# What `positive_data_acceptance` accepts by default (schemathesis 4.32,
# config/_checks.py POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES).
POSITIVE_DEFAULTS = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]

# Webhook URLs that pass every rule, host included: both names are public in the
# `resolver` fixture. No event is delivered in-process (no test here runs the queue), and
# the test pings a run sends are answered without a connection (`ExampleEndpoints`): the
# loopback guard would refuse any.
PUBLIC_WEBHOOK_URLS = [
    "https://hooks.example.com/fanout",
    "https://dual.example.com/hooks?source=fanout",
]

# Times `scheduled_at` takes within its range on the test clock (2026-11-22, a second more
# each request): generated times are almost all out of it (400), which would keep most
# uploads from the rules behind it. (The rest of the time it is generated: null, absent or
# out of range.)
SCHEDULED_TIMES = ["2026-11-22T12:00:00Z", "2026-12-24T18:30:00.250+01:00", "2027-06-01T00:00:00-07:00"]

CONFIG = {
    "seed": SEED,
    "generation": {
        "mode": "all",  # positive and negative data
        "max-examples": 100,
        "database": "none",  # no example database: a run depends on the seed alone
    },
    "phases": {
        # fill-missing: an operation that takes no input (GET /v1/usage, GET /v1/webhooks)
        # has no example to run, but one request to send.
        "examples": {"enabled": True, "fill-missing": True},
        "coverage": {"enabled": True},
        "fuzzing": {"enabled": True},
    },
    "dictionaries": {"public-webhook-urls": {"values": PUBLIC_WEBHOOK_URLS},
                     "scheduled-times": {"values": SCHEDULED_TIMES}},
    "operations": [
        {
            "include-operation-id": "create_webhook",
            # Every generated body gets a URL that passes, so creation succeeds and the
            # create -> get -> delete links have ids to follow.
            "parameters": {"body.url": {"dictionary": "public-webhook-urls", "probability": 1.0}},
            # Except in the coverage phase, which builds its own URLs from the schema's
            # pattern whatever `parameters` says. Their hosts do not resolve to public
            # addresses (a rule of DNS, which no schema can state), so 400 validation_error:
            # only there does 400 join the statuses accepted for positive data.
            "phases": {"coverage": {"checks": {"positive_data_acceptance": {"expected-statuses": [*POSITIVE_DEFAULTS, "400"]}}}},
        },
        {
            "include-operation-id": "update_webhook",
            # A new URL is held to the rule of registration: the same URLs as create_webhook's,
            # and 400 for the coverage phase's own, whose hosts do not resolve.
            "parameters": {"body.url": {"dictionary": "public-webhook-urls", "probability": 1.0}},
            "phases": {"coverage": {"checks": {"positive_data_acceptance": {"expected-statuses": [*POSITIVE_DEFAULTS, "400"]}}}},
        },
        {
            "include-operation-id-regex": "^(create_post|preflight_post|update_post)$",
            # A schema-valid upload (or preflight of one, or change of a post) must still
            # name active accounts of the post's mode in this workspace (422
            # account_not_connected) and media each platform takes (422
            # unsupported_media_for_platform): rules of the data, not of the request's
            # shape, so positive data may answer 422. And its `scheduled_at` must lie
            # between 60 s ago and 365 days ahead: a rule of the clock, which no schema
            # can state, so positive data may answer 400 validation_error naming it. So
            # may `accounts` or `overrides` naming a platform not in `platforms` (or, for
            # an override, not reached by the post): the service checks it, since as
            # schema rules it takes one per platform, which Schemathesis cannot combine
            # past a few platforms (openapi.yaml, `UploadRequest`).
            "checks": {"positive_data_acceptance": {"expected-statuses": [*POSITIVE_DEFAULTS, "400", "422"]}},
            "parameters": {"body.scheduled_at": {"dictionary": "scheduled-times", "probability": 0.7}},
        },
        {
            "include-operation-id": "get_readiness",
            # 503 not_ready is readiness's documented answer when a part fails, not a server
            # error: in-process no queue worker beats, so the workers check fails. Only here
            # does 503 join what `not_a_server_error` accepts.
            "checks": {"not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", "503"]}},
        },
        {
            "include-operation-id-regex": "^(list_posts|list_deliveries|list_events)$",
            # `cursor` is opaque: only a next_cursor this service issued to this workspace is
            # valid, and any other string is 400 (openapi.yaml, list_posts). No schema can
            # name them, nor the events of this workspace's log an `after` must name
            # (openapi.yaml, list_events).
            "checks": {"positive_data_acceptance": {"expected-statuses": [*POSITIVE_DEFAULTS, "400"]}},
        },
    ],
}


def reset_workspace(client, key: str) -> None:
    """No webhooks and exactly one active sandbox account, through the API itself.

    Every stateful scenario starts from this state. Hypothesis replays scenarios to shrink
    them and requires the same draws to give the same rule choices, so what one scenario
    leaves behind (webhooks a list would show, an account it disconnected, posts a list
    would show first) must not reach the next. The account gives
    `list_accounts -> disconnect_account` something to follow. Posts and the events log
    cannot be emptied through the API, so they (and the month's count) are cleared in the
    database: the log then starts empty whatever the reset itself connected or disconnected.
    So are the stored answers of Idempotency-Keys: an upload example sent again would
    replay the id of a post cleared here, and a link from it would find nothing.
    """
    for webhook in client.get("/v1/webhooks", headers=bearer(key)).json()["data"]:
        assert client.delete(f"/v1/webhooks/{webhook['id']}", headers=bearer(key)).status_code == 204
    accounts = client.get("/v1/accounts", headers=bearer(key)).json()["data"]
    for account in accounts[1:]:
        assert client.delete(f"/v1/accounts/{account['id']}", headers=bearer(key)).status_code == 204
    if not accounts:
        connect_sandbox_account(client, bearer(key), "x")
    with db.connection_context():
        Post.delete().execute()
        MonthlyUsage.delete().execute()
        Event.delete().execute()
        IdempotencyRecord.delete().execute()


class CurrentKey:
    """Bearer auth for the schemas below: the sandbox key (and clock) of the test running
    now, set by `served_app`. `served_schema`'s cases are drawn before any app exists.

    The test clock moves a second before every generated request: a client sending 60
    requests a minute, well within the PRO plan's 300, so the rate limiter (on, as in
    production) lets the run reach the logic behind every operation. Its 429 is held to
    the spec by test_every_operation_documents_its_429 below.
    """

    key: str | None = None
    clock = None

    def get(self, case, ctx):
        return CurrentKey.key

    def set(self, case, data, ctx):
        CurrentKey.clock.advance(seconds=1)
        case.headers = {**(case.headers or {}), **bearer(data)}


def served_schema():
    """The document the in-process app serves at /v1/openapi.json (fanout/spec.py
    `published`, for Schemathesis' ASGI host), read without an app."""
    document = published(load(), "http://testserver")
    schema = schemathesis.openapi.from_dict(document, config=SchemathesisConfig.from_dict(CONFIG))
    schema.auth()(CurrentKey)
    return schema


@pytest.fixture
def served_app(app, client, sandbox_key, clock, rt):
    """The app a test's cases are sent to: its workspace reset, test pings answered
    without a connection, `CurrentKey` its sandbox key."""
    rt.outbound = ExampleEndpoints(rt.outbound)  # the test pings of the registrations made
    reset_workspace(client, sandbox_key)
    CurrentKey.key, CurrentKey.clock = sandbox_key, clock
    yield app
    CurrentKey.key = CurrentKey.clock = None


@pytest.fixture
def api_schema(served_app):
    """The spec as the app serves it, with the sandbox key as bearer auth."""
    # Built in code, not discovered: contracts/schemathesis.toml belongs to the CLI run and
    # reads its key from the environment.
    schema = schemathesis.openapi.from_asgi("/v1/openapi.json", served_app,
                                            config=SchemathesisConfig.from_dict(CONFIG))
    schema.auth()(CurrentKey)
    return schema


@served_schema().parametrize()
# One app for all of an operation's cases, as one app served every case before: the
# workspace's state between cases is the service's to keep right.
@hypothesis.settings(deadline=None, suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
def test_api(case, served_app):
    # This test's app for the case's request (the operation's app) and for the probes its
    # checks send (`ignored_auth` sends through the schema's).
    case.operation.app = case.operation.schema.app = served_app
    case.call_and_validate()


def test_the_served_schema_is_the_one_the_app_serves(app, client):
    """`test_api` draws from the document as served, read without an app."""
    assert client.get("/v1/openapi.json").json() == published(load(), "http://testserver")


def test_the_examples_phase_runs_every_operation(api_schema):
    """Each operation that takes input has documented examples for the examples phase to send;
    the others (no parameter, no body) get their one request from `fill-missing`.

    The cases are built by the function the phase itself calls (schemathesis 4.32).
    """
    from schemathesis.generation.hypothesis.builder import generate_example_cases

    assert api_schema.config.phases.examples.fill_missing
    exercised, documented, without_input = set(), set(), set()
    for result in api_schema.get_all_operations():
        operation = result.ok()
        if list(generate_example_cases(test=lambda: None, operation=operation, fill_missing=False)):
            documented.add(operation.label)
        inputs = [p for p in operation.iter_parameters() if p.name != "Authorization"]  # the key is not input
        if not (inputs or list(operation.body)):
            without_input.add(operation.label)
        if list(generate_example_cases(test=lambda: None, operation=operation, fill_missing=True)):
            exercised.add(operation.label)
    labels = {result.ok().label for result in api_schema.get_all_operations()}
    assert len(labels) == 25
    assert exercised == labels
    assert documented == labels - without_input
    assert without_input == {"GET /v1/usage", "GET /v1/webhooks", "GET /healthz", "GET /readyz", "GET /metrics"}


def test_every_check_is_on(api_schema):
    """No check is turned off, for any operation (a guard on CONFIG above)."""
    from schemathesis.config._checks import _BUILTIN_CHECK_CONFIGS

    for result in api_schema.get_all_operations():
        operation = result.ok()
        for phase in ("examples", "coverage", "fuzzing", "stateful"):
            checks = api_schema.config.checks_config_for(operation=operation, phase=phase)
            off = [name for name in _BUILTIN_CHECK_CONFIGS if not checks.get_by_name(name=name).enabled]
            assert not off, f"{operation.label} ({phase}): {off} turned off"


def test_stateful(api_schema, client, sandbox_key, clock):
    class Workflow(api_schema.as_state_machine()):
        def setup(self):
            clock.advance(seconds=10)  # the reset's own requests, a pause between scenarios
            reset_workspace(client, sandbox_key)

    Workflow.TestCase.settings = hypothesis.settings(
        max_examples=60,
        stateful_step_count=8,
        deadline=None,
        derandomize=True,
        database=None,
    )
    Workflow.TestCase().runTest()


def minimal_cases(api_schema, headers: dict, *, keyed_only: bool = False, **case_fields):
    """One case per operation with the least it needs to be routed (path parameters).

    `keyed_only`: only the operations that take the API key (not the `monitoring` ones).
    """
    for result in api_schema.get_all_operations():
        operation = result.ok()
        if keyed_only and "monitoring" in (operation.tags or []):
            continue
        path_parameters = {p.name: "x" for p in operation.path_parameters}
        yield operation, operation.Case(path_parameters=path_parameters, headers=headers, **case_fields)


def test_every_operation_documents_its_429(api_schema, client, free):
    """Once a workspace has used its minute, every operation that takes its key answers the
    429 the spec documents (the monitoring ones take no key: tests/ops/test_health.py).

    The limiter runs before validation, so any request of the workspace gets it.
    """
    _, headers = free  # 30 requests a minute
    assert {r.status_code for r in spend(client, headers, 30)} == {200}
    for operation, case in minimal_cases(api_schema, headers, keyed_only=True):
        response = case.call()
        assert response.status_code == 429, (operation.label, response.text)
        case.validate_response(response)


def test_every_operation_documents_its_400_for_an_unknown_query_parameter(api_schema, sandbox_key):
    """Strict validation refuses a query parameter no operation declares, on every operation.

    Generated data never holds undeclared parameters, so the fuzzing runs would not notice
    an operation that leaves this 400 out of the spec.
    """
    for operation, case in minimal_cases(api_schema, bearer(sandbox_key), query={"unexpected": "1"}):
        response = case.call()
        assert response.status_code == 400, (operation.label, response.text)
        case.validate_response(response)


def test_every_operation_documents_its_413(api_schema, settings, sandbox_key):
    """A body over the limit is refused on every operation, whatever it takes, as the spec says.

    Generated bodies stay far below the limit, so the fuzzing runs never see this 413.
    """
    for operation, case in minimal_cases(api_schema, {**bearer(sandbox_key), "Content-Type": "application/json"}):
        response = case.call(data=b" " * (settings.max_body_bytes + 1))
        assert response.status_code == 413, (operation.label, response.text)
        case.validate_response(response)
