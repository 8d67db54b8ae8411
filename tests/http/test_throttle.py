"""Requests per minute per workspace over HTTP (docs/decisions.md#requests-per-minute).

The test clock moves only when told, so every request of a test lands in one window
unless the test advances it.
"""
from ..conftest import bearer, connect_sandbox_account, make_key, parse_sf_list, spend, workspace_with_key


def rate(response) -> dict:
    [(name, params)] = parse_sf_list(response.headers["ratelimit"])
    assert name == "default"
    return params


def test_the_plan_allows_its_requests_then_answers_429(client, free):
    _, headers = free
    assert [r.status_code for r in spend(client, headers, 31)] == [200] * 30 + [429]


def test_429_is_rate_limited_with_retry_after(client, free):
    _, headers = free
    refused = spend(client, headers, 31)[-1]
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "30 requests per minute" in refused.json()["error"]["message"]
    assert refused.headers["retry-after"] == "60"


def test_every_authenticated_response_carries_the_policy_and_what_remains(client, free):
    _, headers = free
    answers = spend(client, headers, 31)
    for answer in answers:
        assert parse_sf_list(answer.headers["ratelimit-policy"]) == [("default", {"q": 30, "w": 60})]
    assert [rate(a)["r"] for a in answers] == list(range(29, -1, -1)) + [0]
    assert {rate(a)["t"] for a in answers[:30]} == {60}


def test_on_a_429_t_equals_retry_after(client, free, clock):
    _, headers = free
    spend(client, headers, 30)
    clock.advance(seconds=12.25)
    refused = client.get("/v1/accounts", headers=headers)
    assert refused.headers["retry-after"] == "48"  # 47.75 s rounded up
    assert rate(refused) == {"r": 0, "t": 48}


def test_waiting_retry_after_is_enough_and_one_second_less_is_not(client, free, clock):
    _, headers = free
    spend(client, headers, 30)
    clock.advance(seconds=20.5)
    refused = client.get("/v1/accounts", headers=headers)
    wait = int(refused.headers["retry-after"])
    assert wait == 40
    clock.advance(seconds=wait - 1)
    assert client.get("/v1/accounts", headers=headers).status_code == 429
    clock.advance(seconds=1)
    assert client.get("/v1/accounts", headers=headers).status_code == 200


def test_refused_requests_do_not_count(client, free, clock):
    _, headers = free
    spend(client, headers, 30)
    clock.advance(seconds=30)
    assert {r.status_code for r in spend(client, headers, 20)} == {429}
    clock.advance(seconds=30)
    assert [r.status_code for r in spend(client, headers, 31)] == [200] * 30 + [429]


def test_one_workspace_at_its_limit_leaves_another_its_whole_quota(client, free, rt):
    _, headers = free
    _, other = workspace_with_key(rt, "FREE", "Neighbour")
    spend(client, headers, 31)
    answer = client.get("/v1/accounts", headers=other)
    assert answer.status_code == 200
    assert rate(answer)["r"] == 29


def test_the_keys_of_one_workspace_share_its_quota(client, rt):
    ws, first = workspace_with_key(rt, "STARTER", "Team")  # 120 a minute, room for two keys
    second = bearer(make_key(rt, ws.id, "live"))
    assert {r.status_code for r in spend(client, first, 60) + spend(client, second, 60)} == {200}
    assert client.get("/v1/accounts", headers=first).status_code == 429
    assert client.get("/v1/accounts", headers=second).status_code == 429


def test_requests_refused_with_401_count_for_nobody_and_carry_no_rate_headers(client, free):
    _, headers = free
    key = headers["Authorization"].split()[1]
    # Another last character: one key in 62 already ends in any given one.
    bad = {"Authorization": "Bearer " + key[:-1] + ("y" if key[-1] == "x" else "x")}
    for answer in [client.get("/v1/accounts", headers=bad) for _ in range(40)] + [client.get("/v1/accounts")]:
        assert answer.status_code == 401
        assert "ratelimit" not in answer.headers and "ratelimit-policy" not in answer.headers
    assert [r.status_code for r in spend(client, headers, 31)] == [200] * 30 + [429]


def test_requests_answered_4xx_count_and_carry_the_headers(client, free):
    _, headers = free
    invalid = client.get("/v1/posts?limit=0", headers=headers)
    missing = client.get("/v1/posts/post_nothing", headers=headers)
    assert (invalid.status_code, missing.status_code) == (400, 404)
    assert (rate(invalid)["r"], rate(missing)["r"]) == (29, 28)
    assert [r.status_code for r in spend(client, headers, 29)] == [200] * 28 + [429]


def test_idempotent_replays_count(client, free):
    _, headers = free
    connect_sandbox_account(client, headers, "x")  # two requests: connect, then list
    replay = {**headers, "Idempotency-Key": "same"}
    answers = [client.post("/v1/upload", headers=replay, json={"caption": "hi", "platforms": ["x"]}) for _ in range(29)]
    assert [a.status_code for a in answers] == [201] * 28 + [429]
    assert answers[1].headers["idempotent-replayed"] == "true"


def test_routes_outside_the_api_are_not_limited(client, free):
    _, headers = free
    spend(client, headers, 30)
    assert client.get("/v1/openapi.json", headers=headers).status_code == 200
    assert client.get("/v1/nowhere", headers=headers).status_code == 404
