"""Work Connexion would repeat on every request, done once (fanout/http/operations.py,
fanout/http/validation.py `_Validators`, fanout/http/execution.py `fixed_signature`), and the headers a
handler's response carries when responses are not validated (fanout/app.py)."""
from __future__ import annotations

import asyncio
import dataclasses
import inspect
import threading

from fanout.app import create_app
from fanout.handlers import posts
from fanout.http.execution import api_call, on_the_stores
from fanout.http.operations import DecoratedOnceOperation
from fanout.http.validation import _Validators

from ..conftest import PUBLIC_IP, FakeResolver, connect_sandbox_account


def _post(client, auth, account, caption) -> dict:
    answer = client.post("/v1/upload", headers=auth, json={"caption": caption, "account_ids": [account["id"]]})
    assert answer.status_code == 201, answer.text
    return answer.json()


def _operations(app) -> dict:
    return {op_id: op for api in app._middleware_app.apis.values() for a in api for op_id, op in a.operations.items()}


def test_every_operation_is_decorated_once_and_reused(app, client, auth):
    [operation] = [op for op_id, op in _operations(app).items() if op_id.endswith(".get_post")]
    assert isinstance(operation, DecoratedOnceOperation)
    client.get("/v1/posts/post_nothing", headers=auth)
    first = operation.fn
    client.get("/v1/posts/post_nothing", headers=auth)
    assert operation.fn is first


def test_each_request_gets_its_own_path_parameters_and_body(client, auth):
    account = connect_sandbox_account(client, auth, "x")
    one, two = _post(client, auth, account, "one"), _post(client, auth, account, "two")
    assert client.get(f"/v1/posts/{one['id']}", headers=auth).json()["caption"] == "one"
    assert client.get(f"/v1/posts/{two['id']}", headers=auth).json()["caption"] == "two"


def test_each_request_gets_its_own_query_parameters(client, auth):
    account = connect_sandbox_account(client, auth, "x")
    for caption in ("a", "b", "c"):
        _post(client, auth, account, caption)
    assert len(client.get("/v1/posts?limit=1", headers=auth).json()["data"]) == 1
    assert len(client.get("/v1/posts?limit=3", headers=auth).json()["data"]) == 3


def test_a_schema_has_one_validator_made_for_it():
    made = []
    validators = _Validators(lambda schema: made.append(schema) or object())
    schema, other = {"type": "string"}, {"type": "string"}
    assert validators(schema) is validators(schema)
    assert validators(other) is not validators(schema)
    assert made == [schema, other]


def test_a_handler_keeps_its_signature():
    def handler(id, token_info, limit=20):
        return id

    wrapped = api_call(handler)
    assert inspect.signature(wrapped) == inspect.signature(handler)
    assert wrapped.__signature__ is inspect.signature(wrapped)  # worked out once, not per call
    assert inspect.signature(posts.get_post) == inspect.signature(posts.get_post.__wrapped__)


def test_without_response_validation_a_handlers_response_still_carries_its_headers(settings, rt, auth):
    quick = dataclasses.replace(settings, validate_responses=False)
    with create_app(quick, rt).test_client() as client:
        answer = client.get("/v1/accounts", headers=auth)
    assert answer.status_code == 200
    assert answer.headers["X-Request-Id"].startswith("req_")
    assert "RateLimit" in answer.headers and "RateLimit-Policy" in answer.headers


def test_the_stores_are_local_only_when_all_three_are_files(settings):
    postgres = "postgresql://postgres@127.0.0.1:5432/test"
    redis = "redis://127.0.0.1:6379/0"
    sqlite = dataclasses.replace(settings, database_url="sqlite:///x/fanout.db", queue_url="sqlite:///x/queue.db",
                                 limiter_url="sqlite:///x/limiter.db")
    assert sqlite.local_stores
    assert not dataclasses.replace(sqlite, database_url=postgres).local_stores
    assert not dataclasses.replace(sqlite, queue_url=redis).local_stores
    assert not dataclasses.replace(sqlite, limiter_url=redis).local_stores


def test_work_on_local_stores_runs_on_the_event_loop_and_else_in_the_thread_pool(rt):
    async def threads() -> tuple[int, int]:
        return threading.get_ident(), await on_the_stores(threading.get_ident)

    loop, work = asyncio.run(threads())
    assert (work == loop) is rt.settings.local_stores


class _RecordingResolver(FakeResolver):
    def __call__(self, host: str) -> list[str]:
        self.threads.append(threading.current_thread().name)
        return super().__call__(host)


def test_a_webhook_url_is_resolved_in_the_thread_pool_even_on_local_stores(settings, rt, auth):
    rt.resolve = resolver = _RecordingResolver({"hooks.example.com": [PUBLIC_IP]})
    resolver.threads = []
    with create_app(settings, rt).test_client() as client:
        answer = client.post("/v1/webhooks", headers=auth,
                             json={"url": "https://hooks.example.com/in", "events": ["post.completed"]})
    assert answer.status_code == 201, answer.text
    assert resolver.threads and all(name.startswith("AnyIO worker") for name in resolver.threads)
