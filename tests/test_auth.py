"""Authentication (docs/decisions.md#authentication-and-modes): missing, malformed, unknown, revoked keys."""
import pytest

from fanout.security import apikeys
from fanout.models import ApiKey, db
from fanout.problems import PlanLimitExceeded
from fanout.models.api_key import create_key, revoke_key
from fanout.models.workspace import create_workspace, set_plan

from .conftest import bearer, make_key


def assert_401(answer, code):
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["error"]["code"] == code


def test_no_authorization_header_is_missing_api_key(client):
    assert_401(client.get("/v1/accounts"), "missing_api_key")


@pytest.mark.parametrize(
    "value",
    [
        "Bearer",
        "Bearer ",
        "Bearer nope",
        "Basic dXNlcjpwYXNz",
        "svc_sandbox_abc",
        "Bearer svc_live_" + "a" * 50,
        "Bearer svc_test_" + "a" * 50,
        "Bearer " + "x" * 5000,
    ],
)
def test_malformed_keys_are_invalid_api_key(client, value):
    assert_401(client.get("/v1/accounts", headers={"Authorization": value}), "invalid_api_key")


def test_a_key_with_one_character_changed_is_invalid(client, sandbox_key):
    body = sandbox_key[len("svc_sandbox_"):]
    changed = "svc_sandbox_" + ("A" if body[0] != "A" else "B") + body[1:]
    assert_401(client.get("/v1/accounts", headers=bearer(changed)), "invalid_api_key")


def test_a_well_formed_unknown_key_is_invalid(client):
    key, _ = apikeys.generate("sandbox")
    assert_401(client.get("/v1/accounts", headers=bearer(key)), "invalid_api_key")


def test_a_known_lookup_with_a_wrong_secret_is_invalid(client, sandbox_key):
    parts = apikeys.parse(sandbox_key)
    body = parts.lookup + apikeys.random_base62(apikeys.SECRET_LEN)
    forged = "svc_sandbox_" + body + apikeys._checksum("svc_sandbox_" + body)
    assert apikeys.parse(forged) is not None
    assert_401(client.get("/v1/accounts", headers=bearer(forged)), "invalid_api_key")


def test_a_sandbox_key_relabelled_live_is_invalid(client, sandbox_key):
    body = sandbox_key[len("svc_sandbox_"):-apikeys.CHECK_LEN]
    relabelled = "svc_live_" + body + apikeys._checksum("svc_live_" + body)
    assert_401(client.get("/v1/accounts", headers=bearer(relabelled)), "invalid_api_key")


def test_a_valid_key_is_accepted_with_either_scheme_case(client, sandbox_key):
    assert client.get("/v1/accounts", headers={"Authorization": f"bearer {sandbox_key}"}).status_code == 200


def test_a_revoked_key_is_refused_on_the_next_request(client, rt, auth):
    assert client.get("/v1/accounts", headers=auth).status_code == 200
    with db.connection_context():
        revoke_key(rt, ApiKey.get().id)
    assert_401(client.get("/v1/accounts", headers=auth), "invalid_api_key")


def test_revoking_one_key_leaves_the_others_working(client, rt, sandbox_key, live_key):
    with db.connection_context():
        revoke_key(rt, ApiKey.get(ApiKey.mode == "live").id)
    assert client.get("/v1/accounts", headers=bearer(sandbox_key)).status_code == 200


def test_revocation_leaves_accounts_and_webhooks_in_place(client, rt, workspace, auth, account):
    client.post("/v1/webhooks", headers=auth, json={"url": "https://hooks.example.com/x", "events": ["post.failed"]})
    with db.connection_context():
        revoke_key(rt, ApiKey.get().id)
    new_auth = bearer(make_key(rt, workspace.id, "sandbox"))
    assert client.get("/v1/accounts", headers=new_auth).json()["data"] == [account]
    assert len(client.get("/v1/webhooks", headers=new_auth).json()["data"]) == 1


def test_key_strings_are_not_stored(rt, workspace):
    key = make_key(rt, workspace.id, "live")
    with db.connection_context():
        row = ApiKey.get()
    stored = " ".join(str(v) for v in row.__data__.values())
    secret = key[len("svc_live_"):]
    assert secret not in stored and secret[12:44] not in stored


def test_key_cap_follows_the_plan(rt):
    with db.connection_context():
        ws = create_workspace(rt, "Capped", "FREE")
        first, _ = create_key(rt, ws.id, "live")
        with pytest.raises(PlanLimitExceeded):
            create_key(rt, ws.id, "sandbox")
        set_plan(ws.id, "STARTER")
        create_key(rt, ws.id, "sandbox")
        create_key(rt, ws.id, "sandbox")
        with pytest.raises(PlanLimitExceeded):
            create_key(rt, ws.id, "sandbox")
        revoke_key(rt, first.id)
        create_key(rt, ws.id, "sandbox")


def test_a_key_does_not_expire(client, auth, clock):
    assert client.get("/v1/accounts", headers=auth).status_code == 200
    clock.advance(days=3653)  # ten years on
    assert client.get("/v1/accounts", headers=auth).status_code == 200


@pytest.mark.parametrize("value", ["{key}", "Basic {key}", "Token {key}"])
def test_a_key_without_the_bearer_scheme_is_told_to_send_bearer(client, sandbox_key, value):
    answer = client.get("/v1/accounts", headers={"Authorization": value.format(key=sandbox_key)})
    assert_401(answer, "invalid_api_key")
    assert "Authorization: Bearer <key>" in answer.json()["error"]["message"]
