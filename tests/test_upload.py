"""POST /v1/upload: the post it creates and every rule of the request
(docs/decisions.md#destinations, #mode, #media)."""
import pytest

from fanout.models import Account, Post, Target, db
from fanout.platforms import PLATFORMS
from fanout.spec import load

from .conftest import bearer, connect_sandbox_account

IMAGE = {"url": "https://cdn.example.com/a.jpg", "type": "image"}
VIDEO = {"url": "https://cdn.example.com/a.mp4", "type": "video"}


def upload(client, headers, **body):
    body.setdefault("caption", "hello")
    return client.post("/v1/upload", headers=headers, json=body)


def error_of(answer, status):
    assert answer.status_code == status, answer.text
    return answer.json()["error"]


@pytest.fixture
def x_account(client, auth):
    return connect_sandbox_account(client, auth, "x")


@pytest.fixture
def threads_account(client, auth):
    return connect_sandbox_account(client, auth, "threads")


def test_upload_answers_201_with_a_pending_post(client, auth, x_account):
    answer = upload(client, auth, caption="Hello world", platforms=["x"])
    assert answer.status_code == 201
    post = answer.json()
    assert post["id"].startswith("post_")
    assert post["status"] == "pending" and post["sandbox"] is True
    assert post["caption"] == "Hello world" and post["media"] == []
    assert post["scheduled_at"] is None and post["created_at"] == "2026-11-22T10:00:00.000Z"
    [target] = post["targets"]
    assert target["id"].startswith("tgt_")
    assert target == {
        "id": target["id"], "account_id": x_account["id"], "platform": "x", "status": "pending",
        "external_url": None, "published_at": None, "error_code": None, "error_message": None,
        "caption": None, "media": None, "first_comment_error": None, "published_parts": None, "warnings": [],
    }


def test_targets_follow_the_requested_order_and_count(client, auth, x_account, threads_account):
    second_x = connect_sandbox_account(client, auth, "x")
    ids = [second_x["id"], threads_account["id"], x_account["id"]]
    post = upload(client, auth, account_ids=ids).json()
    assert [t["account_id"] for t in post["targets"]] == ids
    assert [t["platform"] for t in post["targets"]] == ["x", "threads", "x"]


def test_platforms_resolve_to_the_single_connected_account(client, auth, x_account, threads_account):
    post = upload(client, auth, platforms=["threads", "x"]).json()
    assert [(t["platform"], t["account_id"]) for t in post["targets"]] == [
        ("threads", threads_account["id"]), ("x", x_account["id"])]


def test_accounts_picks_the_account_for_a_platform(client, auth, x_account):
    second = connect_sandbox_account(client, auth, "x")
    post = upload(client, auth, platforms=["x"], accounts={"x": second["id"]}).json()
    assert post["targets"][0]["account_id"] == second["id"]


def test_media_is_kept_as_sent(client, auth, threads_account):
    post = upload(client, auth, platforms=["threads"], media=[IMAGE]).json()
    assert post["media"] == [IMAGE]


def test_a_caption_over_a_platform_cap_is_still_accepted(client, auth, threads_account, x_account):
    answer = upload(client, auth, caption="a" * 600, platforms=["threads", "x"])
    assert answer.status_code == 201
    assert answer.json()["caption"] == "a" * 600


# --- destinations (docs/decisions.md#destinations) ---------------------------------------------


@pytest.mark.parametrize(
    "body, words",
    [
        ({}, "exactly one of account_ids or platforms"),
        ({"account_ids": [], "platforms": []}, ""),
        ({"account_ids": ["acc_1"], "platforms": ["x"]}, "exactly one"),
        ({"platforms": ["x", "x"]}, "platforms: 'x' is listed twice"),
        ({"account_ids": ["acc_1", "acc_1"]}, "account_ids: 'acc_1' is listed twice"),
        ({"accounts": {"x": "acc_1"}, "account_ids": ["acc_1"]}, "send platforms too"),
        ({"platforms": ["x"], "accounts": {"threads": "acc_1"}}, "threads, which is not in platforms"),
        ({"platforms": ["myspace"]}, ""),
    ],
)
def test_destination_shape_errors_are_400(client, auth, x_account, body, words):
    error = error_of(upload(client, auth, **body), 400)
    assert error["code"] == "validation_error"
    assert words in error["message"]


def breaking_alone(rule: dict) -> dict:
    """A request body that breaks this rule of UploadRequest's allOf and no other."""
    if "oneOf" in rule:
        return {}
    assert rule["not"]["required"] == ["accounts", "account_ids"], rule
    return {"account_ids": ["acc_1"], "accounts": {"x": "acc_1"}}


@pytest.mark.parametrize("rule", load()["components"]["schemas"]["UploadRequest"]["allOf"],
                         ids=lambda rule: rule["description"])
def test_each_destination_rule_of_the_spec_is_400_in_its_own_words(client, auth, x_account, rule):
    error = error_of(upload(client, auth, **breaking_alone(rule)), 400)
    assert error["message"] == f"body: {rule['description']}"


@pytest.mark.parametrize("field", ["accounts", "overrides"])
@pytest.mark.parametrize("named", PLATFORMS)
def test_accounts_or_overrides_naming_a_platform_not_in_platforms_is_400_naming_it(
        client, auth, x_account, field, named):
    value = "acc_1" if field == "accounts" else {"caption": "its own"}
    body = {"platforms": [next(p for p in PLATFORMS if p != named)], field: {named: value}}
    error = error_of(upload(client, auth, **body), 400)
    assert (error["code"], error["message"]) == (
        "validation_error", f"body: {field} names {named}, which is not in platforms")


def test_missing_caption_is_400(client, auth, x_account):
    answer = client.post("/v1/upload", headers=auth, json={"platforms": ["x"]})
    assert "caption" in error_of(answer, 400)["message"]


def test_an_unknown_account_id_is_422_naming_it(client, auth):
    error = error_of(upload(client, auth, account_ids=["acc_nope"]), 422)
    assert error["code"] == "account_not_connected" and "acc_nope" in error["message"]


def test_another_workspaces_account_is_422(client, auth, other_auth):
    foreign = connect_sandbox_account(client, other_auth, "x")
    error = error_of(upload(client, auth, account_ids=[foreign["id"]]), 422)
    assert error["code"] == "account_not_connected"


@pytest.mark.parametrize("status", ["expired", "revoked"])
def test_an_inactive_account_is_422_saying_reconnect(client, auth, x_account, status):
    with db.connection_context():
        Account.update(status=status).where(Account.id == x_account["id"]).execute()
    error = error_of(upload(client, auth, account_ids=[x_account["id"]]), 422)
    assert error["code"] == "account_not_connected"
    assert status in error["message"] and "reconnect" in error["message"]


def test_a_platform_with_no_account_is_422(client, auth, x_account):
    error = error_of(upload(client, auth, platforms=["x", "threads"]), 422)
    assert error["code"] == "account_not_connected" and "threads" in error["message"]


def test_a_platform_with_several_accounts_is_422(client, auth, x_account):
    connect_sandbox_account(client, auth, "x")
    error = error_of(upload(client, auth, platforms=["x"]), 422)
    assert error["code"] == "account_not_connected" and "several" in error["message"]


def test_only_active_accounts_count_when_resolving_platforms(client, auth, x_account):
    second = connect_sandbox_account(client, auth, "x")
    with db.connection_context():
        Account.update(status="expired").where(Account.id == x_account["id"]).execute()
    post = upload(client, auth, platforms=["x"]).json()
    assert post["targets"][0]["account_id"] == second["id"]


def test_accounts_naming_an_account_of_another_platform_is_422(client, auth, x_account, threads_account):
    error = error_of(upload(client, auth, platforms=["x"], accounts={"x": threads_account["id"]}), 422)
    assert error["code"] == "account_not_connected" and "threads" in error["message"]


def test_accounts_naming_an_unknown_account_is_422(client, auth, x_account):
    error = error_of(upload(client, auth, platforms=["x"], accounts={"x": "acc_nope"}), 422)
    assert error["code"] == "account_not_connected" and "acc_nope" in error["message"]


# --- mode (docs/decisions.md#mode) -------------------------------------------------------------


def test_a_sandbox_key_sending_sandbox_false_is_403(client, auth, x_account):
    error = error_of(upload(client, auth, platforms=["x"], sandbox=False), 403)
    assert error["code"] == "sandbox_key_not_allowed"


def test_a_sandbox_key_may_say_sandbox_true(client, auth, x_account):
    assert upload(client, auth, platforms=["x"], sandbox=True).json()["sandbox"] is True


def test_a_live_key_may_make_a_sandbox_post(client, live_key, x_account):
    post = upload(client, bearer(live_key), platforms=["x"], sandbox=True)
    assert post.status_code == 201 and post.json()["sandbox"] is True


def test_a_live_post_does_not_reach_sandbox_accounts(client, live_key, x_account):
    live = bearer(live_key)
    error = error_of(upload(client, live, platforms=["x"]), 422)
    assert error["code"] == "account_not_connected" and "live" in error["message"]
    error = error_of(upload(client, live, account_ids=[x_account["id"]]), 422)
    assert "sandbox account" in error["message"]


def test_simulate_error_is_kept_on_a_sandbox_post(client, auth, x_account):
    post = upload(client, auth, platforms=["x"], simulate_error="platform_rate_limited")
    assert post.status_code == 201
    with db.connection_context():
        assert Post.get_by_id(post.json()["id"]).simulate_error == "platform_rate_limited"


def test_simulate_error_on_a_live_post_is_400(client, live_key):
    answer = upload(client, bearer(live_key), platforms=["x"], simulate_error="caption_too_long")
    assert "sandbox" in error_of(answer, 400)["message"]


def test_simulate_error_must_be_a_target_level_code(client, auth, x_account):
    assert error_of(upload(client, auth, platforms=["x"], simulate_error="rate_limited"), 400)["code"] == "validation_error"


# --- media URLs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://cdn.example.com/a.jpg", "cdn.example.com/a.jpg", "https:///a.jpg", "https://u:p@cdn.example.com/a.jpg",
     "ftp://cdn.example.com/a.jpg", "", "https://cdn.example.com:22/a.jpg"],
)
def test_media_urls_must_be_absolute_https_with_a_host(client, auth, threads_account, url):
    error = error_of(upload(client, auth, platforms=["threads"], media=[{"url": url, "type": "image"}]), 400)
    assert error["code"] == "validation_error" and error["message"].startswith("media[0].url: must be an absolute https URL")


def test_a_bad_media_type_is_400(client, auth, threads_account):
    answer = upload(client, auth, platforms=["threads"], media=[{"url": IMAGE["url"], "type": "gif"}])
    assert error_of(answer, 400)["code"] == "validation_error"


# --- nothing is left behind by a refused request ---------------------------------------------


def test_a_refused_request_writes_nothing(client, auth, x_account):
    assert error_of(upload(client, auth, platforms=["x", "threads"]), 422)["code"] == "account_not_connected"
    assert error_of(upload(client, auth, platforms=["x"], sandbox=False), 403)["code"] == "sandbox_key_not_allowed"
    with db.connection_context():
        assert Post.select().count() == 0 and Target.select().count() == 0


# --- media a platform can be seen not to take (docs/decisions.md#media) ------------------------


def media_error(client, auth, **body):
    error = error_of(upload(client, auth, **body), 422)
    assert error["code"] == "unsupported_media_for_platform"
    return error["message"]


@pytest.mark.parametrize("platform", ["instagram", "tiktok"])
def test_a_text_only_post_to_instagram_or_tiktok_is_422(client, auth, platform):
    connect_sandbox_account(client, auth, platform)
    assert platform in media_error(client, auth, platforms=[platform])


def test_a_text_only_post_to_threads_and_x_is_fine(client, auth, x_account, threads_account):
    assert upload(client, auth, platforms=["threads", "x"]).status_code == 201


# --- a post carries something (fanout/content.py `empty_problem`) ---------------------------

@pytest.mark.parametrize("caption", ["", " \n\t"], ids=["empty", "blank"])
def test_a_post_with_no_text_and_no_media_is_400_naming_each_platform(client, auth, x_account, threads_account,
                                                                      caption):
    error = error_of(upload(client, auth, caption=caption, platforms=["x", "threads"]), 400)
    assert error["code"] == "validation_error"
    assert error["message"] == ("the post has no text and no media, and x and threads need a caption or media: "
                                "write a caption, add media, or give those platforms an override's")


def test_a_blank_caption_with_media_is_fine(client, auth, x_account):
    assert upload(client, auth, caption=" ", platforms=["x"], media=[IMAGE]).status_code == 201


def test_five_images_to_x_is_422_naming_the_item(client, auth, x_account):
    media = [{"url": f"https://cdn.example.com/{i}.jpg", "type": "image"} for i in range(5)]
    message = media_error(client, auth, platforms=["x"], media=media)
    assert message.startswith("x:") and "media[4]" in message


def test_images_mixed_with_video_on_tiktok_is_422(client, auth):
    connect_sandbox_account(client, auth, "tiktok")
    assert "tiktok" in media_error(client, auth, platforms=["tiktok"], media=[IMAGE, VIDEO])


def test_an_extension_a_platform_never_takes_is_422(client, auth):
    connect_sandbox_account(client, auth, "instagram")
    png = {"url": "https://cdn.example.com/photo.png?v=2", "type": "image"}
    message = media_error(client, auth, platforms=["instagram"], media=[png])
    assert "instagram" in message and "photo.png" in message


def test_the_media_rule_of_one_platform_refuses_the_whole_request(client, auth, threads_account):
    connect_sandbox_account(client, auth, "instagram")
    media_error(client, auth, platforms=["threads", "instagram"])
    with db.connection_context():
        assert Post.select().count() == 0


def test_media_rules_apply_to_account_ids_too(client, auth):
    tiktok = connect_sandbox_account(client, auth, "tiktok")
    assert "tiktok" in media_error(client, auth, account_ids=[tiktok["id"]])


def test_media_with_no_extension_is_left_to_the_fetch(client, auth, x_account):
    item = {"url": "https://cdn.example.com/media/12345", "type": "video"}
    assert upload(client, auth, platforms=["x"], media=[item]).status_code == 201


# --- alt text (openapi.yaml `MediaItem.alt_text`; docs/platforms.md#alt-text) ----------------

def test_a_media_items_alt_text_is_kept_with_the_post(client, auth, x_account):
    media = [{**IMAGE, "alt_text": "A red door in the rain"}]
    post = upload(client, auth, platforms=["x"], media=media).json()
    assert post["media"] == media


def test_alt_text_over_xs_cap_is_422_naming_x_and_the_item(client, auth, x_account):
    message = media_error(client, auth, platforms=["x"], media=[{**IMAGE, "alt_text": "a" * 1001}])
    assert message == f"x: media[0] ({IMAGE['url']}): alt_text is 1001 characters; x allows 1000"


def test_alt_text_over_the_services_cap_is_400(client, auth, x_account):
    error = error_of(upload(client, auth, platforms=["x"], media=[{**IMAGE, "alt_text": "a" * 1501}]), 400)
    assert error["code"] == "validation_error" and "alt_text" in error["message"]
