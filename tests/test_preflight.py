"""POST /v1/upload/preflight in sandbox, and its request-level answers
(docs/decisions.md#posts-in-time): the upload's body, the upload's refusals, and otherwise
each target's foreseen failures, creating and counting nothing. Each foreseen code is held
to what the same upload then comes to (tests/test_preflight_live.py does the same live)."""
import pytest

from fanout.models import db
from fanout.models.account import connect_account
from fanout.target_errors import SIMULATED

from .conftest import bearer, connect_sandbox_account, post_month, run_queue


def preflight(client, auth, **body):
    return client.post("/v1/upload/preflight", headers=auth, json=body)


def foreseen(client, auth, **body) -> dict:
    answer = preflight(client, auth, **body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def outcome(client, auth, rt, clock, **body) -> list[tuple[str, str | None]]:
    """What uploading the body comes to: (status, error_code) of each target."""
    answer = client.post("/v1/upload", headers=auth, json=body)
    assert answer.status_code == 201, answer.text
    run_queue(rt, clock)
    post = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()
    return [(t["status"], t["error_code"]) for t in post["targets"]]


def codes(answer: dict) -> list[list[str]]:
    return [[p["code"] for p in t["problems"]] for t in answer["targets"]]


def held(client, auth) -> dict:
    """What the workspace holds and has counted, as GET /v1/usage and the list say."""
    usage = client.get("/v1/usage", headers=auth).json()
    return {"usage": {cap: usage[cap]["used"] for cap in ("posts", "accounts", "api_keys", "webhooks")},
            "posts": client.get("/v1/posts", headers=auth).json()["data"]}


def test_a_good_post_is_ok_with_one_entry_per_destination_in_the_upload_order(client, auth, accounts):
    answer = foreseen(client, auth, caption="hello", platforms=["threads", "x"])
    assert answer == {"ok": True, "targets": [
        {"platform": "threads", "account_id": accounts["threads"]["id"], "ok": True, "problems": []},
        {"platform": "x", "account_id": accounts["x"]["id"], "ok": True, "problems": []},
    ]}


def test_a_preflight_creates_and_counts_nothing(client, auth, accounts):
    before = held(client, auth)
    foreseen(client, auth, caption="hello", platforms=["threads", "x"])
    foreseen(client, auth, caption="x" * 600, platforms=["threads", "x"], simulate_error="platform_rate_limited")
    assert held(client, auth) == before


def test_an_ok_preflight_is_followed_by_an_upload_that_publishes(client, auth, accounts, rt, clock):
    body = dict(caption="x" * 280, platforms=["threads", "x"])
    assert foreseen(client, auth, **body)["ok"] is True
    assert outcome(client, auth, rt, clock, **body) == [("published", None), ("published", None)]


def test_a_caption_over_one_platforms_cap_is_foreseen_for_that_target_only(client, auth, accounts, rt, clock):
    body = dict(caption="x" * 300, platforms=["threads", "x"])
    answer = foreseen(client, auth, **body)
    assert answer["ok"] is False and codes(answer) == [[], ["caption_too_long"]]
    assert "x allows 280" in answer["targets"][1]["problems"][0]["message"]
    assert outcome(client, auth, rt, clock, **body) == [("published", None), ("failed", "caption_too_long")]


@pytest.mark.parametrize("code", SIMULATED)
def test_a_simulated_error_is_foreseen_on_every_target(client, auth, accounts, rt, clock, code):
    body = dict(caption="hello", platforms=["threads", "x"], simulate_error=code)
    answer = foreseen(client, auth, **body)
    assert codes(answer) == [[code], [code]]
    assert answer["targets"][0]["problems"][0]["message"] == f"simulated {code} (sandbox simulate_error)"
    assert outcome(client, auth, rt, clock, **body) == [("failed", code), ("failed", code)]


def test_a_scheduled_post_is_judged_as_its_upload_would_be(client, auth, account):
    assert foreseen(client, auth, caption="hi", platforms=["x"], scheduled_at="2026-11-23T10:00:00Z")["ok"]
    answer = preflight(client, auth, caption="hi", platforms=["x"], scheduled_at="2026-11-20T10:00:00Z")
    assert answer.status_code == 400 and "scheduled_at" in answer.json()["error"]["message"]


# --- a request's problems answer as the upload's ----------------------------------------------

@pytest.mark.parametrize("body, status, code", [
    ({"platforms": ["x"]}, 400, "validation_error"),
    ({"caption": "hi", "platforms": ["x"], "sandbox": False}, 403, "sandbox_key_not_allowed"),
    ({"caption": "hi", "platforms": ["tiktok"]}, 422, "account_not_connected"),
    ({"caption": "hi", "platforms": ["instagram"]}, 422, "unsupported_media_for_platform"),
    ({"caption": "hi", "platforms": ["x"], "simulate_error": "nope"}, 400, "validation_error"),
    ({"caption": " \n", "platforms": ["x"]}, 400, "validation_error"),
    ({"caption": "hi", "platforms": ["x"], "media": [{"url": "https://cdn.example.com/a.jpg", "type": "image",
                                                      "alt_text": "a" * 1001}]}, 422, "unsupported_media_for_platform"),
], ids=["no caption", "sandbox key live post", "no account", "text to instagram", "unknown simulated code",
        "blank caption and no media", "alt text over x's cap"])
def test_a_request_level_problem_answers_exactly_as_the_upload(client, auth, accounts, body, status, code):
    answer = preflight(client, auth, **body)
    upload = client.post("/v1/upload", headers=auth, json=body)
    assert (answer.status_code, answer.json()) == (upload.status_code, upload.json())
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)


def test_the_monthly_cap_used_up_answers_403_as_the_upload_would(client, rt, clock, free):
    _, headers = free  # 30 posts a month
    connect_sandbox_account(client, headers, "x")
    post_month(client, headers, 30, clock)
    before = held(client, headers)
    answer = preflight(client, headers, caption="one more", platforms=["x"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "plan_limit_exceeded")
    assert answer.json() == client.post("/v1/upload", headers=headers, json={"caption": "one more",
                                                                              "platforms": ["x"]}).json()
    assert held(client, headers)["usage"] == before["usage"]


def test_one_post_short_of_the_cap_is_ok_and_counts_nothing(client, rt, clock, free):
    _, headers = free
    connect_sandbox_account(client, headers, "x")
    post_month(client, headers, 29, clock)
    assert foreseen(client, headers, caption="the last", platforms=["x"])["ok"] is True
    assert client.get("/v1/usage", headers=headers).json()["posts"]["used"] == 29


# --- live, without the platform's app ---------------------------------------------------------

def test_a_live_target_on_a_platform_without_an_app_is_foreseen_unknown_platform_error(client, rt, clock,
                                                                                         workspace, live_key):
    with db.connection_context():
        account = connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id="1",
                                  username="someone", access_token="t")
    headers = bearer(live_key)
    body = dict(caption="hello", account_ids=[account.id])
    answer = foreseen(client, headers, **body)
    assert codes(answer) == [["unknown_platform_error"]]
    assert "FANOUT_X_CLIENT_ID" in answer["targets"][0]["problems"][0]["message"]
    assert outcome(client, headers, rt, clock, **body) == [("failed", "unknown_platform_error")]
