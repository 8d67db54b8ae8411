"""Idempotency-Key on POST /v1/upload (docs/decisions.md#idempotency)."""
import pytest

from fanout.models import IdempotencyRecord, Post, db
from fanout.models.caps import posts_this_month
from fanout.models.idempotency import claim, fingerprint, once
from fanout.models.upload import create_post, draft_from_request
from fanout.problems import DuplicateRequest
from fanout.tasks.maintenance import purge_idempotency_keys

from .conftest import connect_sandbox_account

BODY = {"caption": "hello", "platforms": ["x"]}


def upload(client, auth, key, body=BODY):
    return client.post("/v1/upload", headers={**auth, "Idempotency-Key": key}, json=body)


def post_count() -> int:
    with db.connection_context():
        return Post.select().count()


def test_same_key_and_body_replays_the_original(client, auth, account):
    first = upload(client, auth, "k-1")
    again = upload(client, auth, "k-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert post_count() == 1


def test_the_replay_is_the_original_response_even_after_the_post_moved_on(client, auth, account):
    first = upload(client, auth, "k-1").json()
    with db.connection_context():
        Post.update(status="processing").execute()
    assert upload(client, auth, "k-1").json() == first


def test_same_body_with_keys_in_another_order_is_the_same_request(client, auth, account):
    upload(client, auth, "k-1", {"caption": "hello", "platforms": ["x"]})
    again = upload(client, auth, "k-1", {"platforms": ["x"], "caption": "hello"})
    assert again.headers["idempotent-replayed"] == "true"


def test_same_key_with_another_body_is_409(client, auth, account):
    upload(client, auth, "k-1")
    answer = upload(client, auth, "k-1", {**BODY, "caption": "other"})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "duplicate_request"
    assert "different request" in answer.json()["error"]["message"]
    assert post_count() == 1


def test_same_key_while_the_first_is_running_is_409_saying_so(client, auth, account, workspace, clock):
    with db.connection_context():
        claim(workspace.id, "k-1", fingerprint("/v1/upload", BODY), clock.now)
    answer = upload(client, auth, "k-1")
    assert answer.status_code == 409
    assert "still being processed" in answer.json()["error"]["message"]


def test_a_claim_abandoned_by_a_dead_request_is_taken_over(client, auth, account, workspace, clock):
    with db.connection_context():
        claim(workspace.id, "k-1", fingerprint("/v1/upload", BODY), clock.now)
    clock.advance(seconds=61)
    assert upload(client, auth, "k-1").status_code == 201
    assert post_count() == 1


def test_the_post_is_written_in_the_transaction_that_stores_its_answer(account, workspace, rt, clock):
    def create():
        post, _ = create_post(rt, workspace.id, draft_from_request(BODY, "sandbox"))
        # Meanwhile a retry took the claim over, as after a stall: this answer cannot be stored.
        IdempotencyRecord.update(claim_token="the-retry").execute()
        return 201, {"id": post.id}

    with db.connection_context():
        with pytest.raises(DuplicateRequest):
            once(workspace.id, "k-1", "/v1/upload", BODY, clock.now, create)
    assert post_count() == 0


def test_keys_are_per_workspace(client, auth, account, other_auth):
    connect_sandbox_account(client, other_auth, "x")
    upload(client, auth, "k-1")
    answer = upload(client, other_auth, "k-1")
    assert answer.status_code == 201 and "idempotent-replayed" not in answer.headers
    assert post_count() == 2


def test_after_24_hours_a_key_matches_nothing(client, auth, account, clock):
    first = upload(client, auth, "k-1").json()
    clock.advance(hours=24)
    again = upload(client, auth, "k-1", {**BODY, "caption": "new"})
    assert again.status_code == 201 and again.json()["id"] != first["id"]


def test_just_inside_24_hours_the_key_still_replays(client, auth, account, clock):
    upload(client, auth, "k-1")
    clock.advance(hours=23, minutes=59)
    assert upload(client, auth, "k-1").headers["idempotent-replayed"] == "true"


def test_a_failed_request_is_not_stored_and_may_be_retried(client, auth):
    failed = upload(client, auth, "k-1")
    assert failed.status_code == 422
    connect_sandbox_account(client, auth, "x")
    retried = upload(client, auth, "k-1")
    assert retried.status_code == 201 and "idempotent-replayed" not in retried.headers


def test_a_replay_counts_nothing_toward_the_monthly_cap(client, auth, account, workspace, clock):
    for _ in range(3):
        upload(client, auth, "k-1")
    with db.connection_context():
        assert posts_this_month(workspace.id, clock.now) == 1


@pytest.mark.parametrize("key", ["", "x" * 256, "é", "tab\there"])
def test_a_key_outside_1_to_255_printable_ascii_is_400(client, auth, account, key):
    answer = client.post("/v1/upload", headers={**auth, "Idempotency-Key": key.encode("utf-8")}, json=BODY)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"


def test_a_key_of_255_characters_is_fine(client, auth, account):
    assert upload(client, auth, "k" * 255).status_code == 201


def test_old_records_are_purged(client, auth, account, clock):
    upload(client, auth, "k-1")
    clock.advance(hours=12)
    upload(client, auth, "k-2")
    clock.advance(hours=12)
    assert purge_idempotency_keys() == 1
    with db.connection_context():
        assert [r.key for r in IdempotencyRecord.select()] == ["k-2"]
