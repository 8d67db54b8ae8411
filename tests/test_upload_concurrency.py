"""Concurrent uploads through a real server process (SQLite BEGIN IMMEDIATE, PostgreSQL row locks)."""
from concurrent.futures import ThreadPoolExecutor

import requests

from fanout.models import MonthlyUsage, Post, db

from .conftest import bearer, connect_on_server


def fire(server, key: str, count: int, extra_headers: dict | None = None) -> list[requests.Response]:
    headers = {**bearer(key), **(extra_headers or {})}
    body = {"caption": "at once", "platforms": ["x"]}

    def send(_):
        return requests.post(f"{server.url}/v1/upload", headers=headers, json=body, timeout=60)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(send, range(count)))


def posts_of(workspace_id: str) -> int:
    with db.connection_context():
        return Post.select().where(Post.workspace == workspace_id).count()


def count_earlier_posts(workspace_id: str, posts: int) -> None:
    """Add to this month's count, as that many earlier uploads would have."""
    with db.connection_context():
        MonthlyUsage.update(posts=MonthlyUsage.posts + posts).where(MonthlyUsage.workspace == workspace_id).execute()


def posts_counted(workspace_id: str) -> int:
    with db.connection_context():
        return MonthlyUsage.get(MonthlyUsage.workspace == workspace_id).posts


def test_50_concurrent_uploads_with_one_key_create_one_post(server, cli):
    ws = cli.json("workspace", "create", "Busy", "--plan", "PRO")
    key = cli.json("key", "create", ws["id"], "--mode", "sandbox")["key"]
    connect_on_server(server.url, bearer(key))
    answers = fire(server, key, 50, {"Idempotency-Key": "one-and-only"})
    statuses = sorted({a.status_code for a in answers})
    assert set(statuses) <= {201, 409}, [a.text for a in answers if a.status_code not in (201, 409)]
    created = {a.json()["id"] for a in answers if a.status_code == 201}
    assert len(created) == 1
    assert all(a.json()["error"]["code"] == "duplicate_request" for a in answers if a.status_code == 409)
    assert posts_of(ws["id"]) == 1


def test_50_concurrent_uploads_one_below_the_cap_create_one_post(server, cli):
    # STARTER: 300 posts a month and 120 requests a minute, so the 50 are not rate limited.
    ws = cli.json("workspace", "create", "Nearly full", "--plan", "STARTER")
    key = cli.json("key", "create", ws["id"], "--mode", "sandbox")["key"]
    connect_on_server(server.url, bearer(key))
    assert fire(server, key, 1)[0].status_code == 201
    count_earlier_posts(ws["id"], 298)  # this month's count as 299 uploads would leave it
    answers = fire(server, key, 50)
    codes = [a.status_code for a in answers]
    assert codes.count(201) == 1 and codes.count(403) == 49
    assert all(a.json()["error"]["code"] == "plan_limit_exceeded" for a in answers if a.status_code == 403)
    assert posts_of(ws["id"]) == 2
    assert posts_counted(ws["id"]) == 300
