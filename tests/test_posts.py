"""GET /v1/posts/{id} and GET /v1/posts (docs/decisions.md#lists)."""
import datetime as dt

import pytest

from fanout.models import Post, Target, db
from fanout.models.db import is_sqlite
from fanout.models.post import derive_status, page_query

from .conftest import connect_sandbox_account


@pytest.fixture
def accounts(client, auth):
    return {p: connect_sandbox_account(client, auth, p) for p in ("x", "threads")}


def upload(client, auth, **body):
    """Upload to x unless told otherwise (platforms=None leaves platforms out)."""
    body = {k: v for k, v in {"caption": "hi", "platforms": ["x"], **body}.items() if v is not None}
    answer = client.post("/v1/upload", headers=auth, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def page(client, auth, **params):
    answer = client.get("/v1/posts", headers=auth, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def set_targets(post_id: str, *statuses: str) -> None:
    """Stand-in for the publishing engine: move the targets and re-derive the post."""
    with db.connection_context():
        targets = list(Target.select().where(Target.post == post_id).order_by(Target.position))
        for target, status in zip(targets, statuses):
            Target.update(status=status).where(Target.id == target.id).execute()
        Post.update(status=derive_status(list(statuses))).where(Post.id == post_id).execute()


@pytest.mark.parametrize(
    "statuses, expected",
    [
        (["pending"], "pending"),
        (["pending", "pending"], "pending"),
        (["pending", "processing"], "processing"),
        (["pending", "published"], "processing"),
        (["failed", "pending"], "processing"),
        (["processing"], "processing"),
        (["published", "published"], "completed"),
        (["failed"], "failed"),
        (["failed", "failed"], "failed"),
        (["published", "failed"], "partial"),
    ],
)
def test_post_status_is_derived_from_its_targets(statuses, expected):
    assert derive_status(statuses) == expected


def test_get_returns_the_full_post(client, auth, accounts):
    created = upload(client, auth, platforms=["x", "threads"], media=[{"url": "https://cdn.example.com/a.jpg", "type": "image"}])
    got = client.get(f"/v1/posts/{created['id']}", headers=auth)
    assert got.status_code == 200
    assert got.json() == created


def test_get_an_unknown_or_foreign_post_is_404(client, auth, accounts, other_auth):
    created = upload(client, auth)
    foreign = client.get(f"/v1/posts/{created['id']}", headers=other_auth)
    unknown = client.get("/v1/posts/post_nope", headers=auth)
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()


def test_list_entries_show_id_status_caption_created_at_scheduled_at_and_targets(client, auth, accounts):
    created = upload(client, auth)
    listed = page(client, auth)
    assert listed["has_more"] is False and listed["next_cursor"] is None
    assert listed["data"] == [{k: created[k] for k in ("id", "status", "caption", "created_at", "scheduled_at", "targets")}]


def test_list_is_newest_first(client, auth, accounts, clock):
    ids = []
    for _ in range(3):
        ids.append(upload(client, auth)["id"])
        clock.advance(seconds=1)
    assert [p["id"] for p in page(client, auth)["data"]] == ids[::-1]


def test_posts_made_in_the_same_millisecond_are_ordered_by_id(client, auth, accounts):
    ids = [upload(client, auth)["id"] for _ in range(3)]
    assert [p["id"] for p in page(client, auth)["data"]] == sorted(ids, reverse=True)


def test_default_page_is_20(client, auth, accounts):
    for _ in range(21):
        upload(client, auth)
    first = page(client, auth)
    assert len(first["data"]) == 20 and first["has_more"] is True and first["next_cursor"]


def test_cursor_gives_the_next_page(client, auth, accounts, clock):
    ids = []
    for _ in range(5):
        ids.append(upload(client, auth)["id"])
        clock.advance(milliseconds=1)
    first = page(client, auth, limit=2)
    second = page(client, auth, limit=2, cursor=first["next_cursor"])
    third = page(client, auth, limit=2, cursor=second["next_cursor"])
    walked = [p["id"] for p in first["data"] + second["data"] + third["data"]]
    assert walked == ids[::-1]
    assert third["has_more"] is False and third["next_cursor"] is None


def test_status_filter(client, auth, accounts):
    done = upload(client, auth)
    waiting = upload(client, auth)
    set_targets(done["id"], "published")
    assert [p["id"] for p in page(client, auth, status="completed")["data"]] == [done["id"]]
    assert [p["id"] for p in page(client, auth, status="pending")["data"]] == [waiting["id"]]
    assert page(client, auth, status="partial")["data"] == []


def test_platform_filter_finds_posts_with_a_target_there(client, auth, accounts):
    both = upload(client, auth, platforms=["x", "threads"])
    x_only = upload(client, auth, platforms=["x"])
    assert [p["id"] for p in page(client, auth, platform="threads")["data"]] == [both["id"]]
    assert {p["id"] for p in page(client, auth, platform="x")["data"]} == {both["id"], x_only["id"]}
    assert page(client, auth, platform="tiktok")["data"] == []


def test_a_post_with_two_targets_on_one_platform_is_listed_once(client, auth, accounts):
    second_x = connect_sandbox_account(client, auth, "x")
    post = upload(client, auth, platforms=None, account_ids=[accounts["x"]["id"], second_x["id"]])
    assert [p["id"] for p in page(client, auth, platform="x")["data"]] == [post["id"]]


@pytest.mark.parametrize("limit", [0, 101, -1, "many"])
def test_limit_outside_1_to_100_is_400(client, auth, limit):
    answer = client.get("/v1/posts", headers=auth, params={"limit": limit})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize("cursor", ["garbage", "", "eyJ3IjoieCJ9", "A" * 200])
def test_an_unparseable_cursor_is_400(client, auth, cursor):
    answer = client.get("/v1/posts", headers=auth, params={"cursor": cursor})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"


def test_a_cursor_from_another_workspace_is_400(client, auth, accounts, other_auth):
    for _ in range(3):
        upload(client, auth)
    cursor = page(client, auth, limit=1)["next_cursor"]
    answer = client.get("/v1/posts", headers=other_auth, params={"cursor": cursor})
    assert answer.status_code == 400
    assert "cursor" in answer.json()["error"]["message"]


def test_a_filtered_walk_sees_each_post_once_while_posts_are_created(client, auth, accounts, clock):
    expected = []
    for i in range(250):
        platforms = ["x", "threads"] if i % 3 == 0 else ["x"]
        post = upload(client, auth, platforms=platforms)
        if "threads" in platforms:
            expected.append(post["id"])
        clock.advance(milliseconds=3)
    seen, cursor = [], None
    while True:
        params = {"limit": 7, "platform": "threads", "status": "pending"}
        if cursor:
            params["cursor"] = cursor
        got = page(client, auth, **params)
        seen.extend(p["id"] for p in got["data"])
        # New posts land at the head of the list while the walk goes on; none may show up.
        upload(client, auth, platforms=["x", "threads"])
        clock.advance(milliseconds=3)
        if not got["has_more"]:
            break
        cursor = got["next_cursor"]
    assert seen == expected[::-1]
    assert len(seen) == len(set(seen)) == 84


@pytest.mark.parametrize(
    "filters",
    [{}, {"status": "pending"}, {"platform": "x"}, {"platform": "x", "status": "failed"}],
)
@pytest.mark.parametrize("deep", [False, True])
def test_pages_are_index_range_scans_never_sorts_or_offsets(rt, filters, deep):
    if not is_sqlite():
        pytest.skip("PostgreSQL picks plans from table statistics; the SQLite plan pins the indexes")
    after = (dt.datetime(2026, 1, 1), "post_01") if deep else None
    sql, params = page_query("ws_1", limit=20, after=after, **filters).sql()
    assert "OFFSET" not in sql.upper()
    with db.connection_context():
        plan = " | ".join(row[-1] for row in db.execute_sql(f"EXPLAIN QUERY PLAN {sql}", params))
    assert "TEMP B-TREE" not in plan and "SCAN" not in plan.replace("SEARCH", ""), plan
    if deep:
        assert "<(?,?)" in plan, plan  # the cursor bound is part of the index search
