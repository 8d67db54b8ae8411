"""fanout/http/specification.py: the apps of a process share one Connexion Specification of
the spec for each URL setting, and a second app serving requests leaves it as the first left
it. (Making an app's operations, Connexion writes the document's `components` into each body
schema, connexion/operations/openapi.py: the same value each time.)"""
from __future__ import annotations

import copy
import dataclasses

from connexion.spec import Specification

from fanout import spec as _spec
from fanout.app import create_app
from fanout.http import specification

from ..conftest import connect_sandbox_account, run_queue


def _shared_of(app) -> Specification:
    [api] = app.middleware.apis
    return api.specification


def test_two_apps_share_one_specification(settings, rt):
    assert _shared_of(create_app(settings, rt)) is _shared_of(create_app(settings, rt))


def test_the_insecure_url_setting_has_a_specification_of_its_own(settings, rt):
    relaxed = create_app(dataclasses.replace(settings, insecure_urls=True), rt)
    assert _shared_of(relaxed) is specification.shared(True)
    assert _shared_of(relaxed) is not specification.shared(False)


def test_the_shared_specification_is_the_document_as_loaded(settings):
    for insecure in (False, True):
        assert specification.shared(insecure).raw == _spec.load(insecure_urls=insecure)


def requests_of_every_kind(client, auth, clock, rt) -> set[int]:
    """A request of each kind an app serves: created, refused, listed, missing, documents;
    then the queue run. Their statuses."""
    account = connect_sandbox_account(client, auth, "x")
    sent = [
        client.post("/v1/upload", headers=auth, json={"caption": "hi", "account_ids": [account["id"]]}),
        client.post("/v1/upload", headers=auth, json={"caption": 7, "platforms": ["nowhere"]}),
        client.post("/v1/upload/preflight", headers=auth, json={"caption": "hi", "platforms": ["x", "threads"]}),
        client.get("/v1/posts?limit=2", headers=auth),
        client.get("/v1/posts?limit=0", headers=auth),
        client.post("/v1/webhooks", headers=auth, json={"url": "https://hooks.example.com/a", "events": ["account.expired"]}),
        client.get("/v1/accounts", headers=auth),
        client.get("/v1/posts/post_missing", headers=auth),
        client.get("/v1/openapi.json"),
        client.get("/v1/usage"),
    ]
    run_queue(rt, clock)
    return {answer.status_code for answer in sent}


def test_a_second_app_serving_requests_leaves_the_shared_specification_as_the_first_left_it(
        settings, rt, client, auth, clock):
    assert requests_of_every_kind(client, auth, clock, rt) >= {200, 201, 400, 401, 404}
    shared = specification.shared()
    after_one = copy.deepcopy(shared.spec)
    with create_app(settings, rt).test_client() as second:
        assert requests_of_every_kind(second, auth, clock, rt) >= {200, 201, 400, 401, 404}
    assert shared.spec == after_one
    assert shared.raw == _spec.load()
