"""`fanout workspace set-plan` moves every cap (docs/decisions.md#plans) on the very next request.

The command runs as its own process on this test's database, as an operator would run it
beside a serving API; the requests go to the in-process app.
"""
import json

from .conftest import bearer, connect_sandbox_account, post_month


def set_plan(cli, workspace_id: str, plan: str) -> None:
    assert cli.json("workspace", "set-plan", workspace_id, plan)["plan"] == plan


def upload(client, headers):
    return client.post("/v1/upload", headers=headers, json={"caption": "hi", "platforms": ["x"]})


def test_posts_per_month(client, cli, free, clock):
    ws, headers = free
    connect_sandbox_account(client, headers, "x")
    post_month(client, headers, 30, clock)
    assert upload(client, headers).status_code == 403
    set_plan(cli, ws.id, "STARTER")
    assert upload(client, headers).status_code == 201
    set_plan(cli, ws.id, "FREE")
    assert upload(client, headers).status_code == 403


def test_connected_accounts(client, cli, free):
    ws, headers = free
    for platform in ("instagram", "threads", "tiktok", "tiktok"):  # none on x, so no reconnect
        connect_sandbox_account(client, headers, platform)
    assert client.post("/v1/accounts/x/connect", headers=headers, json={}).status_code == 403
    set_plan(cli, ws.id, "STARTER")
    assert client.post("/v1/accounts/x/connect", headers=headers, json={}).status_code == 200
    set_plan(cli, ws.id, "FREE")
    assert client.post("/v1/accounts/x/connect", headers=headers, json={}).status_code == 403


def test_api_keys(client, cli, free):
    ws, _ = free
    refused = cli("key", "create", ws.id, "--mode", "live", "--json", check=False)
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"]["code"] == "plan_limit_exceeded"
    set_plan(cli, ws.id, "STARTER")
    key = cli.json("key", "create", ws.id, "--mode", "live")["key"]
    assert client.get("/v1/accounts", headers=bearer(key)).status_code == 200
    set_plan(cli, ws.id, "FREE")
    assert cli("key", "create", ws.id, "--mode", "live", check=False).returncode == 1


def test_requests_per_minute(client, cli, free):
    ws, headers = free
    for _ in range(30):
        assert client.get("/v1/accounts", headers=headers).status_code == 200
    assert client.get("/v1/accounts", headers=headers).status_code == 429
    set_plan(cli, ws.id, "STARTER")
    answer = client.get("/v1/accounts", headers=headers)
    assert answer.status_code == 200
    assert answer.headers["ratelimit-policy"] == '"default";q=120;w=60'
    assert answer.headers["ratelimit"] == '"default";r=89;t=60'  # 31 of 120 used
    set_plan(cli, ws.id, "FREE")
    assert client.get("/v1/accounts", headers=headers).status_code == 429


def test_usage_shows_the_new_plan_at_once(client, cli, free):
    ws, headers = free
    set_plan(cli, ws.id, "BUSINESS")
    usage = client.get("/v1/usage", headers=headers).json()
    assert usage["plan"] == "BUSINESS"
    limits = {cap: usage[cap]["limit"] for cap in ("posts", "accounts", "api_keys", "requests")}
    assert limits == {"posts": 20000, "accounts": 250, "api_keys": 50, "requests": 600}
