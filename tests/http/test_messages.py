"""A 400's message names the field by its path as the client sent it, says what is wrong
and what to send instead, in plain words: one rendering per kind of schema error
(fanout/http/messages.py, docs/decisions.md#errors)."""
import pytest

from fanout.platforms import NAMES
from fanout.spec import load

from .test_errors import assert_error

POST = {"caption": "hi", "platforms": ["x"]}
SCHEMAS = load()["components"]["schemas"]

UPLOADS = [
    # An option a platform lacks: which platforms take it (read from openapi.yaml).
    ({**POST, "overrides": {"linkedin": {"thread": [{"caption": "a"}]}}},
     "overrides.linkedin.thread: LinkedIn takes no thread (Bluesky, Mastodon, Threads and X do); remove it"),
    ({**POST, "overrides": {"linkedin": {"first_comment": "a"}}},
     "overrides.linkedin.first_comment: LinkedIn takes no first_comment (Facebook, Instagram, Threads, X and YouTube do); remove it"),
    ({**POST, "overrides": {"bluesky": {"options": {}}}},
     "overrides.bluesky.options: Bluesky takes no options (Instagram, Mastodon, Pinterest, Threads, TikTok, X and YouTube do); remove it"),
    ({**POST, "overrides": {"instagram": {"options": {"reply_control": "everyone"}}}},
     "overrides.instagram.options.reply_control: Instagram takes no reply_control (Threads does); remove it"),
    ({**POST, "overrides": {"x": {"options": {"nope": 1}}}},
     "overrides.x.options.nope: unknown field; send only reply_settings or quote_tweet_id"),
    ({**POST, "overrides": {"myspace": {}}},
     "overrides.myspace: unknown field; send only bluesky, facebook, instagram, linkedin, mastodon, pinterest, threads, tiktok, x or youtube"),
    # An unknown field is named, even when what it stands for is missing.
    ({"captions": "hi", "platforms": ["x"]}, "captions: unknown field; did you mean caption?"),
    ({**POST, "captions": "hi"}, "captions: unknown field; did you mean caption?"),
    # Date-times: what to add.
    ({**POST, "scheduled_at": "2026-12-01T10:00:00"},
     "scheduled_at: '2026-12-01T10:00:00' has no offset; add Z for UTC or an offset such as +01:00 "
     "(e.g. '2026-12-01T10:00:00Z')"),
    ({**POST, "scheduled_at": "tomorrow"},
     "scheduled_at: 'tomorrow' is not an RFC 3339 date-time; send one such as '2026-11-22T10:04:05Z' "
     "or '2026-11-22T11:04:05+01:00'"),
    ({**POST, "scheduled_at": "2026-02-30T10:00:00Z"},
     "scheduled_at: '2026-02-30T10:00:00Z' is not a date-time that exists (day is out of range for month)"),
    # Every other kind of rule.
    ({"platforms": ["x"]}, "caption: missing; send a string"),
    ({**POST, "media": [{"url": "https://cdn.invalid/a.jpg"}]}, "media[0].type: missing; send one of 'image' or 'video'"),
    ({**POST, "media": [{"url": "https://cdn.invalid/a.jpg", "type": "gif"}]},
     "media[0].type: 'gif' is not allowed; send one of 'image' or 'video'"),
    ({"caption": "hi", "platforms": ["myspace"]},
     "platforms[0]: 'myspace' is not allowed; send one of 'bluesky', 'facebook', 'instagram', 'linkedin', 'mastodon', 'pinterest', 'threads', 'tiktok', 'x' or 'youtube'"),
    ({"caption": 5, "platforms": ["x"]}, "caption: got 5; send a string"),
    ({"caption": "hi", "platforms": "x"}, "platforms: got 'x'; send an array"),
    ({**POST, "sandbox": "yes"}, "sandbox: got 'yes'; send true or false"),
    ({**POST, "overrides": []}, "overrides: got an array; send an object"),
    ({"caption": "hi", "platforms": []}, "platforms: empty; send at least 1 item"),
    ({"caption": "hi", "platforms": ["x", "x"]}, "platforms: 'x' is listed twice; send each value once"),
    ({"caption": "a" * 10_001, "platforms": ["x"]}, "caption: 10001 characters; send at most 10000 characters"),
    ({**POST, "overrides": {"x": {"thread": [{"caption": ""}]}}},
     "overrides.x.thread[0].caption: empty; send at least 1 character"),
    ({**POST, "media": [{"url": "https://cdn.invalid/a.jpg", "type": "image"}] * 36}, "media: 36 items; send at most 35 items"),
    ({**POST, "overrides": {"instagram": {"options": {"thumb_offset": -1}}}},
     "overrides.instagram.options.thumb_offset: -1 is below the minimum; send 0 or more"),
    ({**POST, "overrides": {"instagram": {"options": {"thumb_offset": 86_400_001}}}},
     "overrides.instagram.options.thumb_offset: 86400001 is above the maximum; send at most 86400000"),
    ({**POST, "overrides": {"threads": {"options": {"topic_tag": "a.b"}}}},
     "overrides.threads.options.topic_tag: one topic for the post, 1 to 50 characters without `.` or `&` (got 'a.b')"),
    ({"caption": "hi"}, "body: send exactly one of account_ids or platforms"),
    ([1], "body: got an array; send an object"),
]


@pytest.mark.parametrize("body, message", UPLOADS, ids=[m.split(":")[0] + "-" + str(i) for i, (_, m) in enumerate(UPLOADS)])
def test_an_upload_that_breaks_the_schema_is_told_what_to_send(client, auth, body, message):
    assert assert_error(client.post("/v1/upload", headers=auth, json=body), 400, "validation_error") == message


WEBHOOKS = [
    ({"url": "https://hooks.invalid/x"}, "events: missing; send an array"),
    ({"url": "https://hooks.invalid/x", "events": []}, "events: empty; send at least 1 item"),
    ({"url": "https://hooks.invalid/x", "events": ["post.nope"]},
     "events[0]: 'post.nope' is not allowed; send one of 'post.completed', 'post.failed', 'account.connected', "
     "'account.disconnected', 'account.expired' or 'webhook.disabled'"),
]


@pytest.mark.parametrize("body, message", WEBHOOKS)
def test_a_webhook_registration_that_breaks_the_schema_is_told_what_to_send(client, auth, body, message):
    assert assert_error(client.post("/v1/webhooks", headers=auth, json=body), 400, "validation_error") == message


QUERIES = [
    ("limit=0", "query parameter 'limit': 0 is below the minimum; send 1 or more"),
    ("limit=101", "query parameter 'limit': 101 is above the maximum; send at most 100"),
    ("limit=abc", "query parameter 'limit': got 'abc'; send a whole number"),
    ("status=bogus", "query parameter 'status': 'bogus' is not allowed; send one of 'pending', 'processing', "
                     "'completed', 'failed' or 'partial'"),
]


@pytest.mark.parametrize("query, message", QUERIES)
def test_a_query_parameter_that_breaks_its_schema_is_told_what_to_send(client, auth, query, message):
    assert assert_error(client.get(f"/v1/posts?{query}", headers=auth), 400, "validation_error") == message


def _override(platform: str) -> dict:
    return SCHEMAS[SCHEMAS["Overrides"]["properties"][platform]["$ref"].rsplit("/", 1)[1]]


LACKING = [(platform, field) for field in ("thread", "first_comment", "options") for platform in NAMES
           if field not in _override(platform)["properties"]]


@pytest.mark.parametrize("platform, field", LACKING)
def test_a_field_a_platform_lacks_names_the_platforms_whose_schema_has_it(client, auth, platform, field):
    takers = [NAMES[p] for p in NAMES if field in _override(p)["properties"]]
    listed = ", ".join(takers[:-1]) + f" and {takers[-1]}" if len(takers) > 1 else takers[0]
    body = {**POST, "overrides": {platform: {field: {}}}}
    message = assert_error(client.post("/v1/upload", headers=auth, json=body), 400, "validation_error")
    verb = "do" if len(takers) > 1 else "does"
    assert message == f"overrides.{platform}.{field}: {NAMES[platform]} takes no {field} ({listed} {verb}); remove it"
