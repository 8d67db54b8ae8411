"""Per-platform content on the upload and in the sandbox (openapi.yaml `Overrides`,
docs/decisions.md#per-platform-content): each platform's schema, the targets' effective
caption and media, the checks that fail one target before anything is published, and the
sandbox's thread and first comment."""
from __future__ import annotations

import pytest

from fanout.platforms import PLATFORMS

from .conftest import IMAGE, connect_sandbox_account, run_queue

VIDEO = {"url": "https://cdn.example.com/clip.mp4", "type": "video"}
PHOTO = {"url": "https://cdn.example.com/b.jpg", "type": "image"}


@pytest.fixture
def four(client, auth) -> dict:
    """A sandbox account on each platform, by platform."""
    return {p: connect_sandbox_account(client, auth, p) for p in PLATFORMS}


def upload(client, auth, **body):
    return client.post("/v1/upload", headers=auth, json={"caption": "hello", "media": [IMAGE], **body})


def created(client, auth, **body) -> dict:
    answer = upload(client, auth, **body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def error(answer, status: int) -> dict:
    assert answer.status_code == status, answer.text
    return answer.json()["error"]


def targets(client, auth, post_id) -> dict:
    post = client.get(f"/v1/posts/{post_id}", headers=auth).json()
    return {t["platform"]: t for t in post["targets"]}


# --- a platform's content carries something (fanout/content.py `empty_problem`) ------------

def test_an_override_caption_gives_a_post_without_text_its_content(client, auth, four):
    post = created(client, auth, caption="", media=[], platforms=["x"], overrides={"x": {"caption": "for X"}})
    assert post["targets"][0]["caption"] == "for X"


def test_a_blank_override_caption_with_no_media_is_400_naming_the_platform(client, auth, four):
    answer = upload(client, auth, platforms=["x", "threads"], media=[],
                    overrides={"threads": {"caption": "  "}})
    assert error(answer, 400)["message"] == (
        "the post has no text and no media, and threads needs a caption or media: "
        "write a caption, add media, or give that platform an override's")


def test_a_blank_thread_part_is_400_naming_it(client, auth, four):
    answer = upload(client, auth, platforms=["x"],
                    overrides={"x": {"thread": [{"caption": "two"}, {"caption": " "}]}})
    assert error(answer, 400)["message"] == (
        "overrides.x.thread[1] has no text and no media; x needs a caption or media: write it or leave the part out")


def test_a_thread_part_of_media_alone_is_fine(client, auth, four):
    created(client, auth, platforms=["x"], overrides={"x": {"thread": [{"caption": " ", "media": [PHOTO]}]}})


def test_a_blank_first_comment_is_400_naming_it(client, auth, four):
    answer = upload(client, auth, platforms=["threads"], overrides={"threads": {"first_comment": "\n"}})
    assert error(answer, 400)["message"] == (
        "overrides.threads.first_comment is blank: write the comment or leave it out")


def test_an_override_items_alt_text_is_judged_by_that_platforms_cap(client, auth, four):
    long_alt = {**PHOTO, "alt_text": "a" * 1001}  # over x's 1000, within bluesky's
    assert "x allows 1000" in error(upload(client, auth, platforms=["x", "bluesky"],
                                           overrides={"x": {"media": [long_alt]}}), 422)["message"]
    created(client, auth, platforms=["x", "bluesky"], overrides={"bluesky": {"media": [long_alt]}})


# --- the schema of each platform ------------------------------------------------------------

def test_a_target_shows_its_override_caption_and_media_and_the_others_null(client, auth, four):
    post = created(client, auth, platforms=["x", "instagram"],
                   overrides={"x": {"caption": "short for X", "media": []}})
    by_platform = {t["platform"]: t for t in post["targets"]}
    assert (by_platform["x"]["caption"], by_platform["x"]["media"]) == ("short for X", [])
    assert (by_platform["instagram"]["caption"], by_platform["instagram"]["media"]) == (None, None)
    assert post["caption"] == "hello" and post["media"] == [IMAGE]


def test_an_override_equal_to_the_posts_content_shows_null(client, auth, four):
    post = created(client, auth, platforms=["x"], overrides={"x": {"caption": "hello", "media": [IMAGE]}})
    [target] = post["targets"]
    assert (target["caption"], target["media"]) == (None, None)


def test_the_list_and_the_read_show_the_effective_caption_too(client, auth, four):
    post = created(client, auth, platforms=["x"], overrides={"x": {"caption": "for X"}})
    assert targets(client, auth, post["id"])["x"]["caption"] == "for X"
    [listed] = client.get("/v1/posts", headers=auth).json()["data"]
    assert listed["targets"][0]["caption"] == "for X"


@pytest.mark.parametrize("platform, field, value", [
    ("tiktok", "thread", [{"caption": "no threads on TikTok"}]),
    ("tiktok", "first_comment", "no comment call on TikTok"),
    ("instagram", "thread", [{"caption": "no threads on Instagram"}]),
    ("x", "hashtags", ["unknown"]),
])
def test_what_a_platform_cannot_do_is_refused_by_its_schema(client, auth, four, platform, field, value):
    answer = upload(client, auth, platforms=[platform], overrides={platform: {field: value}})
    assert error(answer, 400)["code"] == "validation_error"


@pytest.mark.parametrize("platform, options", [
    ("tiktok", {"privacy_level": "FRIENDS"}),
    ("tiktok", {"schedule": True}),
    ("instagram", {"collaborators": ["a", "b", "c", "d"]}),
    ("threads", {"reply_control": "nobody"}),
    ("threads", {"topic_tag": "a.b"}),
    ("x", {"reply_settings": "everyone"}),
    ("x", {"quote_tweet_id": "not-a-number"}),
])
def test_an_option_outside_its_platforms_schema_is_400(client, auth, four, platform, options):
    answer = upload(client, auth, platforms=[platform], overrides={platform: {"options": options}})
    assert error(answer, 400)["code"] == "validation_error"


def test_more_than_24_thread_parts_is_400(client, auth, four):
    thread = [{"caption": f"part {n}"} for n in range(25)]
    assert error(upload(client, auth, platforms=["x"], overrides={"x": {"thread": thread}}), 400)


def test_an_override_for_a_platform_the_accounts_do_not_reach_is_400(client, auth, four):
    answer = upload(client, auth, account_ids=[four["x"]["id"]], overrides={"threads": {"caption": "where?"}})
    assert "overrides names threads" in error(answer, 400)["message"]


def test_an_override_for_a_platform_not_in_platforms_is_400_in_the_rules_words(client, auth, four):
    answer = upload(client, auth, platforms=["x"], overrides={"threads": {"caption": "where?"}})
    assert error(answer, 400)["message"] == "body: overrides names threads, which is not in platforms"


def test_an_override_media_url_is_held_to_the_media_rules(client, auth, four):
    answer = upload(client, auth, platforms=["x"],
                    overrides={"x": {"thread": [{"caption": "two", "media": [{"url": "https://user@cdn.example.com/a.jpg",
                                                                               "type": "image"}]}]}})
    assert error(answer, 400)["code"] == "validation_error"


def test_media_a_platform_never_takes_in_its_override_is_422_naming_it(client, auth, four):
    answer = upload(client, auth, platforms=["instagram", "x"], overrides={"instagram": {"media": []}})
    problem = error(answer, 422)
    assert problem["code"] == "unsupported_media_for_platform" and problem["message"].startswith("instagram:")


def test_a_text_only_post_may_reach_instagram_with_media_of_its_own(client, auth, four):
    answer = client.post("/v1/upload", headers=auth, json={
        "caption": "text for X", "platforms": ["x", "instagram"], "overrides": {"instagram": {"media": [IMAGE]}}})
    assert answer.status_code == 201, answer.text


def test_a_thread_parts_media_the_platform_never_takes_is_422_naming_the_part(client, auth, four):
    gif = {"url": "https://cdn.example.com/a.bmp", "type": "image"}
    answer = upload(client, auth, platforms=["threads"],
                    overrides={"threads": {"thread": [{"caption": "two"}, {"caption": "three", "media": [gif]}]}})
    assert error(answer, 422)["message"].startswith("threads: thread[1].media[0]")


def test_the_same_idempotency_key_replays_an_upload_with_overrides(client, auth, four):
    body = {"caption": "once", "media": [IMAGE], "platforms": ["x"], "overrides": {"x": {"caption": "once, X"}}}
    headers = {**auth, "Idempotency-Key": "with-overrides"}
    first = client.post("/v1/upload", headers=headers, json=body)
    again = client.post("/v1/upload", headers=headers, json=body)
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()


# --- each target judged by its own platform, in the sandbox -----------------------------------

def test_an_override_caption_over_xs_cap_fails_only_the_x_target(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x", "threads"], overrides={"x": {"caption": "x" * 281}})
    run_queue(rt, clock)
    done = targets(client, auth, post["id"])
    assert (done["x"]["status"], done["x"]["error_code"]) == ("failed", "caption_too_long")
    assert done["threads"]["status"] == "published"


def test_a_thread_part_over_the_cap_fails_the_target_naming_the_part(client, auth, four, rt, clock):
    thread = [{"caption": "fine"}, {"caption": "y" * 501}]
    post = created(client, auth, platforms=["threads"], overrides={"threads": {"thread": thread}})
    run_queue(rt, clock)
    failed = targets(client, auth, post["id"])["threads"]
    assert failed["error_code"] == "caption_too_long"
    assert failed["error_message"] == "thread[1].caption is 501 characters (an emoji counts its UTF-8 bytes); threads allows 500"


def test_a_first_comment_over_instagrams_comment_cap_fails_the_target(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["instagram"],
                   overrides={"instagram": {"first_comment": "links: https://a.example.com https://b.example.com"}})
    run_queue(rt, clock)
    failed = targets(client, auth, post["id"])["instagram"]
    assert (failed["error_code"], failed["error_message"]) == (
        "caption_too_long", "first_comment has 2 distinct links; instagram allows 1 in a comment")


def test_a_reel_option_on_an_image_fails_the_instagram_target_option_rejected(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["instagram"], overrides={"instagram": {"options": {"share_to_feed": True}}})
    run_queue(rt, clock)
    failed = targets(client, auth, post["id"])["instagram"]
    assert failed["error_code"] == "platform_option_rejected" and "Reel" in failed["error_message"]


def test_a_photo_title_on_a_tiktok_video_fails_option_rejected(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["tiktok"], media=[VIDEO], overrides={"tiktok": {"options": {"title": "t"}}})
    run_queue(rt, clock)
    assert targets(client, auth, post["id"])["tiktok"]["error_code"] == "platform_option_rejected"


def test_a_tiktok_photo_title_over_90_units_fails_caption_too_long(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["tiktok"], media=[PHOTO],
                   overrides={"tiktok": {"options": {"title": "t" * 91, "privacy_level": "SELF_ONLY"}}})
    run_queue(rt, clock)
    assert targets(client, auth, post["id"])["tiktok"]["error_code"] == "caption_too_long"


def test_a_sandbox_thread_and_first_comment_publish_and_the_page_shows_them(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x"], overrides={"x": {
        "caption": "part one", "thread": [{"caption": "part two"}, {"caption": "part three", "media": [PHOTO]}],
        "first_comment": "the first comment"}})
    run_queue(rt, clock)
    published = targets(client, auth, post["id"])["x"]
    assert published["status"] == "published" and published["first_comment_error"] is None
    page = client.get(published["external_url"].removeprefix("http://testserver")).text
    for shown in ("part one", 'id="part-2"', "part two", 'id="part-3"', "part three", PHOTO["url"],
                  'id="comment"', "the first comment"):
        assert shown in page
    assert page.index("part one") < page.index("part two") < page.index("part three") < page.index("the first")


def test_the_sandbox_page_of_a_target_with_an_override_shows_its_own_caption(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x", "threads"], overrides={"x": {"caption": "only on X"}})
    run_queue(rt, clock)
    done = targets(client, auth, post["id"])
    assert "only on X" in client.get(done["x"]["external_url"].removeprefix("http://testserver")).text
    assert "only on X" not in client.get(done["threads"]["external_url"].removeprefix("http://testserver")).text


# --- a change of a post not yet started ---------------------------------------------------------

def patch(client, auth, post_id, **body):
    return client.patch(f"/v1/posts/{post_id}", headers=auth, json=body)


def test_a_patch_of_overrides_shows_in_the_post_and_is_what_publishes(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x", "threads"], overrides={"x": {"caption": "first for X"}})
    answer = patch(client, auth, post["id"], overrides={"x": {
        "caption": "edited for X", "thread": [{"caption": "edited part two"}], "first_comment": "edited comment"}})
    assert answer.status_code == 200, answer.text
    shown = {t["platform"]: t["caption"] for t in answer.json()["targets"]}
    assert shown == {"x": "edited for X", "threads": None}
    assert targets(client, auth, post["id"])["x"]["caption"] == "edited for X"
    run_queue(rt, clock)
    published = targets(client, auth, post["id"])["x"]
    page = client.get(published["external_url"].removeprefix("http://testserver")).text
    for shown in ("edited for X", "edited part two", "edited comment"):
        assert shown in page
    assert "first for X" not in page


def test_a_patch_of_overrides_replaces_them_as_a_whole(client, auth, four):
    post = created(client, auth, platforms=["x", "threads"], overrides={"x": {"caption": "for X"}})
    answer = patch(client, auth, post["id"], overrides={"threads": {"caption": "for Threads"}})
    shown = {t["platform"]: t["caption"] for t in answer.json()["targets"]}
    assert shown == {"x": None, "threads": "for Threads"}
    cleared = patch(client, auth, post["id"], overrides={})
    assert [t["caption"] for t in cleared.json()["targets"]] == [None, None]


def test_a_patch_leaving_overrides_out_keeps_them(client, auth, four):
    post = created(client, auth, platforms=["x"], overrides={"x": {"caption": "for X"}})
    answer = patch(client, auth, post["id"], caption="a new caption for the others")
    assert answer.status_code == 200, answer.text
    assert answer.json()["targets"][0]["caption"] == "for X"


def test_a_patched_override_for_a_platform_the_post_does_not_reach_is_400(client, auth, four):
    post = created(client, auth, platforms=["x"])
    answer = patch(client, auth, post["id"], overrides={"threads": {"caption": "where?"}})
    assert "overrides names threads" in error(answer, 400)["message"]
    assert targets(client, auth, post["id"])["x"]["caption"] is None


def test_a_patched_override_is_held_to_its_platforms_schema_and_media_rules(client, auth, four):
    post = created(client, auth, platforms=["instagram", "tiktok"])
    assert error(patch(client, auth, post["id"], overrides={"tiktok": {"thread": [{"caption": "no"}]}}),
                 400)["code"] == "validation_error"
    assert error(patch(client, auth, post["id"], overrides={"instagram": {"media": []}}),
                 422)["code"] == "unsupported_media_for_platform"


def test_a_patched_override_caption_over_xs_cap_fails_only_the_x_target(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x", "threads"])
    assert patch(client, auth, post["id"], overrides={"x": {"caption": "x" * 281}}).status_code == 200
    run_queue(rt, clock)
    done = targets(client, auth, post["id"])
    assert (done["x"]["error_code"], done["threads"]["status"]) == ("caption_too_long", "published")


# --- a preflight, on each target's own content ----------------------------------------------

def foreseen(client, auth, **body) -> dict:
    answer = client.post("/v1/upload/preflight", headers=auth,
                         json={"caption": "hello", "media": [IMAGE], **body})
    assert answer.status_code == 200, answer.text
    return {t["platform"]: [(p["code"], p["message"]) for p in t["problems"]] for t in answer.json()["targets"]}


def test_a_preflight_foresees_an_override_caption_over_xs_cap_for_that_target_only(client, auth, four, rt, clock):
    body = dict(platforms=["x", "threads"], overrides={"x": {"caption": "x" * 281}})
    problems = foreseen(client, auth, **body)
    assert [code for code, _ in problems["x"]] == ["caption_too_long"] and problems["threads"] == []
    post = created(client, auth, **body)
    run_queue(rt, clock)
    assert targets(client, auth, post["id"])["x"]["error_code"] == "caption_too_long"


def test_a_preflight_foresees_a_thread_part_over_the_cap_naming_the_part(client, auth, four):
    problems = foreseen(client, auth, platforms=["threads"],
                        overrides={"threads": {"thread": [{"caption": "fine"}, {"caption": "y" * 501}]}})
    assert problems["threads"] == [
        ("caption_too_long", "thread[1].caption is 501 characters (an emoji counts its UTF-8 bytes); threads allows 500")]


def test_a_preflight_foresees_an_option_the_content_cannot_take(client, auth, four):
    problems = foreseen(client, auth, platforms=["instagram", "tiktok"], overrides={
        "instagram": {"options": {"share_to_feed": True}}, "tiktok": {"media": [VIDEO], "options": {"title": "t"}}})
    assert [code for code, _ in problems["instagram"]] == ["platform_option_rejected"]
    assert [code for code, _ in problems["tiktok"]] == ["platform_option_rejected"]


def test_a_preflight_foresees_a_first_comment_over_the_comment_cap(client, auth, four):
    problems = foreseen(client, auth, platforms=["instagram"], overrides={
        "instagram": {"first_comment": "links: https://a.example.com https://b.example.com"}})
    assert problems["instagram"] == [
        ("caption_too_long", "first_comment has 2 distinct links; instagram allows 1 in a comment")]


def test_a_preflight_refuses_an_override_as_the_upload_does(client, auth, four):
    answer = client.post("/v1/upload/preflight", headers=auth, json={
        "caption": "hello", "account_ids": [four["x"]["id"]], "overrides": {"threads": {"caption": "where?"}}})
    assert "overrides names threads" in error(answer, 400)["message"]


# --- what is scheduled, read back (openapi.yaml `Post.overrides`) ----------------------------

SCHEDULED_OVERRIDES = {
    "x": {"caption": "for X", "thread": [{"caption": "part two", "media": [PHOTO]}], "first_comment": "a comment",
          "options": {"reply_settings": "following"}},
    "threads": {"first_comment": "on Threads"},
}


def test_a_post_reads_back_its_overrides_as_given(client, auth, four):
    post = created(client, auth, platforms=["x", "threads"], overrides=SCHEDULED_OVERRIDES)
    assert post["overrides"] == SCHEDULED_OVERRIDES
    assert client.get(f"/v1/posts/{post['id']}", headers=auth).json()["overrides"] == SCHEDULED_OVERRIDES


def test_a_post_without_overrides_reads_back_an_empty_object(client, auth, four):
    post = created(client, auth, platforms=["x"])
    assert post["overrides"] == {}
    assert client.get(f"/v1/posts/{post['id']}", headers=auth).json()["overrides"] == {}


def test_a_patch_answers_and_reads_back_the_overrides_it_set(client, auth, four):
    post = created(client, auth, platforms=["x", "threads"], overrides={"x": {"caption": "old"}})
    answer = patch(client, auth, post["id"], overrides={"threads": {"thread": [{"caption": "new part"}]}})
    # As stored: a thread part without media reads back with `media: []`.
    assert answer.json()["overrides"] == {"threads": {"thread": [{"caption": "new part", "media": []}]}}
    assert client.get(f"/v1/posts/{post['id']}", headers=auth).json()["overrides"] == {
        "threads": {"thread": [{"caption": "new part", "media": []}]}}


def test_list_entries_carry_no_overrides(client, auth, four):
    created(client, auth, platforms=["x"], overrides={"x": {"caption": "for X"}})
    [listed] = client.get("/v1/posts", headers=auth).json()["data"]
    assert "overrides" not in listed


# --- the parts of a thread that are out (openapi.yaml `Target.published_parts`) ---------------

def test_a_target_without_a_thread_has_no_published_parts(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x"], overrides={"x": {"first_comment": "not a thread"}})
    run_queue(rt, clock)
    assert targets(client, auth, post["id"])["x"]["published_parts"] is None


def test_a_pending_thread_has_no_part_published_yet(client, auth, four):
    post = created(client, auth, platforms=["x"], overrides={"x": {"thread": [{"caption": "part two"}]}})
    assert post["targets"][0]["published_parts"] == []


def test_a_published_sandbox_thread_lists_each_part_with_its_link(client, auth, four, rt, clock):
    post = created(client, auth, platforms=["x"], overrides={"x": {
        "thread": [{"caption": "part two"}, {"caption": "part three"}]}})
    run_queue(rt, clock)
    published = targets(client, auth, post["id"])["x"]
    url = published["external_url"]
    assert published["published_parts"] == [{"index": 0, "external_url": url},
                                            {"index": 1, "external_url": f"{url}#part-2"},
                                            {"index": 2, "external_url": f"{url}#part-3"}]
    [listed] = client.get("/v1/posts", headers=auth).json()["data"]
    assert listed["targets"][0]["published_parts"] == published["published_parts"]
