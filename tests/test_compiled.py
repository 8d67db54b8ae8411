"""Queries compiled once (fanout/models/db.py `Compiled`): the same rows as the Peewee query
they are built from, on SQLite and PostgreSQL alike, with the SQL built once per database."""
from __future__ import annotations

import datetime as _dt

from fanout.models import Post, Target, db
from fanout.models.api_key import find_key
from fanout.models.db import Compiled, CompiledInsert

from .conftest import connect_sandbox_account


def test_a_compiled_query_answers_the_rows_of_its_peewee_query(client, sandbox_key, rt):
    headers = {"Authorization": f"Bearer {sandbox_key}"}
    account = connect_sandbox_account(client, headers, "x")
    other = connect_sandbox_account(client, headers, "threads")
    post_id = client.post("/v1/upload", headers=headers, json={
        "caption": "compiled", "account_ids": [account["id"], other["id"]]}).json()["id"]
    targets = Compiled(Target, lambda post: Target.select().where(Target.post == post).order_by(Target.position))
    with db.connection_context():
        expected = list(Target.select().where(Target.post == post_id).order_by(Target.position))
        got = targets.rows(post_id)
    assert [t.__data__ for t in got] == [t.__data__ for t in expected]  # ids, FKs, datetimes, all typed


def test_the_sql_is_built_once_per_database(rt):
    built = []

    def build(post_id, workspace_id):
        built.append(1)
        return Post.select().where((Post.id == post_id) & (Post.workspace == workspace_id)).limit(1)

    posts = Compiled(Post, build)
    with db.connection_context():
        assert posts.rows("post_none", "ws_none") == []
        assert posts.rows("post_other", "ws_other") == []
    assert len(built) == 1


def test_values_take_their_places_and_fixed_parameters_stay(client, sandbox_key, workspace, rt):
    headers = {"Authorization": f"Bearer {sandbox_key}"}
    account = connect_sandbox_account(client, headers, "x")
    post_id = client.post("/v1/upload", headers=headers, json={"caption": "mine", "account_ids": [account["id"]]}
                          ).json()["id"]
    posts = Compiled(Post, lambda post, ws: Post.select().where((Post.id == post) & (Post.workspace == ws)).limit(1))
    with db.connection_context():
        [found] = posts.rows(post_id, workspace.id)
        assert found.caption == "mine" and posts.rows(post_id, "ws_someone_else") == []


def test_the_key_lookup_brings_the_workspaces_plan(sandbox_key, workspace):
    with db.connection_context():
        key = find_key(sandbox_key)
    assert key.workspace_id == workspace.id and key.workspace_plan == workspace.plan


def test_a_query_of_several_values_compiles_once_for_each_count(client, sandbox_key, workspace):
    from fanout.models.upload import _accounts

    headers = {"Authorization": f"Bearer {sandbox_key}"}
    ids = [connect_sandbox_account(client, headers, p)["id"] for p in ("x", "threads", "instagram")]
    with db.connection_context():
        assert {a.id for a in _accounts(2).rows(workspace.id, *ids[:2])} == set(ids[:2])
        assert {a.id for a in _accounts(3).rows(workspace.id, *ids)} == set(ids)
        assert _accounts(3).rows("ws_someone_else", *ids) == []


def test_first_is_the_first_row_or_none(client, sandbox_key, workspace, rt):
    headers = {"Authorization": f"Bearer {sandbox_key}"}
    account = connect_sandbox_account(client, headers, "x")
    post_id = client.post("/v1/upload", headers=headers, json={"caption": "first", "account_ids": [account["id"]]}
                          ).json()["id"]
    posts = Compiled(Post, lambda post: Post.select().where(Post.id == post))
    with db.connection_context():
        assert posts.first(post_id).caption == "first"
        assert posts.first("post_none") is None


def test_a_compiled_insert_writes_every_column_of_its_instance(client, sandbox_key, workspace, rt):
    headers = {"Authorization": f"Bearer {sandbox_key}"}
    account = connect_sandbox_account(client, headers, "x")
    post_id = client.post("/v1/upload", headers=headers, json={"caption": "row", "account_ids": [account["id"]]}
                          ).json()["id"]
    at = _dt.datetime(2026, 11, 3, 12, 30)  # naive UTC, as the service stores times
    row = Target(id="tgt_inserted", post=post_id, account_id=account["id"], platform="x", position=1,
                 status="failed", external_url=None, published_at=at, error_code="caption_too_long",
                 error_message="too long", attempts=2, lease_expires_at=at, state='{"step": 1}',
                 next_check_at=at, updated_at=at)
    insert = CompiledInsert(Target)
    with db.connection_context():
        assert insert.execute(row) == 1
        stored = Target.get_by_id("tgt_inserted")
    assert {name: getattr(stored, name) for name in row.__data__ if name != "post"} == {
        name: value for name, value in row.__data__.items() if name != "post"}
    assert stored.post_id == post_id


def test_a_compiled_insert_leaves_unset_columns_to_their_defaults(client, sandbox_key, workspace, rt):
    headers = {"Authorization": f"Bearer {sandbox_key}"}
    account = connect_sandbox_account(client, headers, "x")
    post_id = client.post("/v1/upload", headers=headers, json={"caption": "row", "account_ids": [account["id"]]}
                          ).json()["id"]
    at = _dt.datetime(2026, 11, 3, 12, 30)  # naive UTC, as the service stores times
    with db.connection_context():
        CompiledInsert(Target).execute(Target(id="tgt_plain", post=post_id, account_id=account["id"], platform="x",
                                              position=1, updated_at=at))
        stored = Target.get_by_id("tgt_plain")
    assert (stored.status, stored.attempts, stored.state, stored.error_code) == ("pending", 0, None, None)
