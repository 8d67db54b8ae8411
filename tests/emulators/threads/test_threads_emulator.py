"""The Threads emulator keeps to the protocol the Threads adapter is written against
(tests/emulators/README.md#threads)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests


from ..conftest import Graph, authorize, created, error_of, exchange
from ..media import png_bytes

USER = "17841400000000001"
REDIRECT = "https://fanout.example/connect/threads/callback"


def create(graph, **params) -> str:
    return created(graph, f"/v1.0/{USER}/threads", **params)


def status(graph, container_id: str) -> dict:
    return graph("GET", f"/v1.0/{container_id}", fields="status,error_message").json()


def publish(graph, container_id: str) -> requests.Response:
    return graph("POST", f"/v1.0/{USER}/threads_publish", creation_id=container_id)


# --- OAuth ------------------------------------------------------------------------------------


def test_the_oauth_round_trip_gives_a_short_then_a_long_lived_token_for_the_consenting_user(threads):
    redirect = authorize(threads)
    assert redirect["state"] == "st-1"
    short = exchange(threads, redirect["code"]).json()
    assert short["user_id"] == int(USER)  # a JSON number
    long = requests.get(threads.base_url + "/access_token", timeout=10, params={
        "grant_type": "th_exchange_token", "client_secret": "app-secret", "access_token": short["access_token"]}).json()
    assert long["token_type"] == "bearer" and long["expires_in"] == 60 * 86400
    me = Graph(threads.base_url, long["access_token"])("GET", "/v1.0/me", fields="id,username,threads_profile_picture_url")
    assert me.json() == {"id": USER, "username": "emu_threads"}


def test_the_code_exchange_takes_its_parameters_in_the_query_too(threads):
    code = authorize(threads)["code"]
    answer = requests.post(threads.base_url + "/oauth/access_token", timeout=10, params={
        "client_id": "app-id", "client_secret": "app-secret", "code": code, "grant_type": "authorization_code",
        "redirect_uri": REDIRECT})
    assert answer.status_code == 200 and answer.json()["user_id"] == int(USER)


def test_a_code_is_single_use(threads):
    code = authorize(threads)["code"]
    assert exchange(threads, code).status_code == 200
    assert error_of(exchange(threads, code))["error_subcode"] == 36009


def test_a_code_expires_after_ten_minutes(threads):
    code = authorize(threads)["code"]
    threads.advance(601)
    assert error_of(exchange(threads, code))["error_subcode"] == 36007


def test_the_code_exchange_needs_the_redirect_uri_of_the_authorization(threads):
    code = authorize(threads)["code"]
    assert error_of(exchange(threads, code, redirect_uri="https://elsewhere.example/cb"))["error_subcode"] == 36008


def test_a_wrong_client_secret_is_refused_with_the_graph_envelope(threads):
    error = error_of(exchange(threads, authorize(threads)["code"], client_secret="wrong"))
    assert error["type"] == "OAuthException" and error["message"] == "Error validating client secret."


def test_a_wrong_client_id_at_authorize_is_refused(threads):
    answer = requests.get(threads.base_url + "/oauth/authorize", allow_redirects=False, timeout=10, params={
        "client_id": "other", "redirect_uri": REDIRECT, "scope": "threads_basic", "response_type": "code"})
    assert error_of(answer)["code"] == 101


def test_a_user_who_denies_is_redirected_with_access_denied_and_the_state(threads):
    threads.deny_consent()
    assert authorize(threads) == {"error": "access_denied", "error_reason": "user_denied",
                                  "error_description": "Permissions error", "state": "st-1"}


def test_the_consenting_user_can_be_another_one(threads):
    other = threads.add_user("second_user")
    threads.consent_as(other.id)
    answer = exchange(threads, authorize(threads)["code"])
    assert answer.json()["user_id"] == int(other.id)
    me = Graph(threads.base_url, answer.json()["access_token"])("GET", "/me", fields="id,username").json()
    assert me == {"id": other.id, "username": "second_user"}


def test_a_short_lived_token_expires_after_an_hour(threads):
    short = exchange(threads, authorize(threads)["code"]).json()["access_token"]
    threads.advance(3600)
    error = error_of(Graph(threads.base_url, short)("GET", "/v1.0/me"))
    assert (error["code"], error["error_subcode"]) == (190, 463)
    assert error["message"].startswith("Error validating access token: Session has expired")


def test_an_unknown_token_is_refused_with_190(threads):
    error = error_of(Graph(threads.base_url, "THQVJnot-a-token")("GET", "/v1.0/me"))
    assert error["code"] == 190 and error["message"].startswith("Error validating access token")


def test_revoked_tokens_are_refused_with_190(threads, graph):
    threads.revoke_tokens(USER)
    error = error_of(graph("GET", "/v1.0/me"))
    assert error["code"] == 190 and error["message"].startswith("Error validating access token")


def test_the_token_may_come_in_an_authorization_header(threads, token):
    answer = requests.get(threads.base_url + "/v1.0/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.json() == {"id": USER}


def refresh(threads, token: str) -> requests.Response:
    return requests.get(threads.base_url + "/refresh_access_token", timeout=10,
                        params={"grant_type": "th_refresh_token", "access_token": token})


def test_a_long_lived_token_is_refreshed_only_once_24_hours_old(threads, token):
    assert error_of(refresh(threads, token))["code"] == 100
    threads.advance(24 * 3600)
    answer = refresh(threads, token).json()
    assert answer["token_type"] == "bearer" and answer["expires_in"] == 60 * 86400
    assert answer["access_token"] != token
    assert Graph(threads.base_url, answer["access_token"])("GET", "/v1.0/me").status_code == 200


def test_an_expired_token_cannot_be_refreshed(threads, token):
    threads.advance(60 * 86400)
    assert error_of(refresh(threads, token))["code"] == 190


def test_fail_refresh_makes_the_next_refresh_answer_190(threads, token):
    threads.advance(25 * 3600)
    threads.fail_refresh()
    assert error_of(refresh(threads, token))["code"] == 190
    assert refresh(threads, token).status_code == 200


def test_a_token_without_the_publish_scope_cannot_create_a_container(threads):
    graph = Graph(threads.base_url, threads.issue_token(scopes=["threads_basic"]))
    assert error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text="hi"))["code"] == 10


# --- text posts -------------------------------------------------------------------------------


def test_a_text_post_is_created_published_and_read_back_with_its_permalink(threads, graph):
    container = create(graph, media_type="TEXT", text="Hello from the emulator")
    assert status(graph, container) == {"id": container, "status": "FINISHED"}
    media_id = publish(graph, container).json()["id"]
    read = graph("GET", f"/v1.0/{media_id}", fields="id,permalink").json()
    assert read["permalink"].startswith("https://www.threads.net/@emu_threads/post/")
    [post] = threads.posts[USER]
    assert (post.id, post.text, post.permalink, post.media) == (media_id, "Hello from the emulator", read["permalink"], ())
    assert status(graph, container)["status"] == "PUBLISHED"


def test_the_recent_posts_are_listed_newest_first(threads, graph):
    ids = [publish(graph, create(graph, media_type="TEXT", text=f"post {i}")).json()["id"] for i in range(3)]
    threads.advance(1)
    answer = graph("GET", f"/v1.0/{USER}/threads", fields="id,permalink,timestamp,text", limit="2").json()
    assert [p["id"] for p in answer["data"]] == ids[::-1][:2]
    assert answer["data"][0]["text"] == "post 2" and answer["data"][0]["timestamp"] == "2026-11-22T10:00:00+0000"
    rest = graph("GET", f"/v1.0/{USER}/threads", fields="id", after=answer["paging"]["cursors"]["after"]).json()
    assert [p["id"] for p in rest["data"]] == ids[:1]


@pytest.mark.parametrize("encoding", ["query", "urlencoded", "multipart", "json"])
def test_container_parameters_are_taken_in_any_encoding(threads, token, encoding):
    params = {"media_type": "TEXT", "text": "encoded", "access_token": token}
    url = f"{threads.base_url}/v1.0/{USER}/threads"
    answer = {
        "query": lambda: requests.post(url, params=params, timeout=10),
        "urlencoded": lambda: requests.post(url, data=params, timeout=10),
        "multipart": lambda: requests.post(url, files={k: (None, v) for k, v in params.items()}, timeout=10),
        "json": lambda: requests.post(url, json=params, timeout=10),
    }[encoding]()
    assert answer.status_code == 200, answer.text
    assert threads.containers[answer.json()["id"]].text == "encoded"


def test_text_of_500_counted_characters_passes_and_501_is_refused(graph):
    create(graph, media_type="TEXT", text="a" * 496 + "😀")  # the emoji counts its 4 UTF-8 bytes
    error = error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text="a" * 497 + "😀"))
    assert error["code"] == 100 and "text must be at most 500 characters" in error["message"]


def test_more_than_five_distinct_links_are_refused_at_creation(graph):
    five = " ".join(f"https://site{i}.example.com/" for i in range(5))
    create(graph, media_type="TEXT", text=five + " https://site0.example.com")  # a repeat counts once
    error = error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text=five,
                           link_attachment="https://sixth.example.com/page"))
    assert "THREADS_API__LINK_LIMIT_EXCEEDED" in error["message"]


# --- media ------------------------------------------------------------------------------------


def test_an_image_post_is_fetched_from_its_url_as_threads_does(threads, graph, media_server):
    url = media_server.url("/photo.jpg")
    container = create(graph, media_type="IMAGE", image_url=url, text="a photo")
    assert [c.path for c in media_server.calls] == ["/photo.jpg"]
    media_id = publish(graph, container).json()["id"]
    [post] = threads.posts[USER]
    assert post.media_type == "IMAGE" and [(m.media_type, m.url) for m in post.media] == [("IMAGE", url)]
    assert graph("GET", f"/v1.0/{media_id}", fields="media_type,media_url").json()["media_url"] == url


def test_a_png_is_an_image_threads_takes(graph, media_server):
    assert status(graph, create(graph, media_type="IMAGE", image_url=media_server.url("/photo.png")))["status"] == "FINISHED"


def test_an_image_that_cannot_be_fetched_fails_the_creation_call(graph, media_server):
    error = error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="IMAGE",
                           image_url=media_server.url("/missing.jpg")))
    assert error["error_subcode"] == 2207052 and "could not be fetched from this URI" in error["message"]


def test_an_image_that_is_not_jpeg_or_png_is_refused(graph, media_server):
    url = media_server.put("/anim.gif", b"GIF89a" + b"\x00" * 32, "image/jpeg")  # the bytes decide
    assert error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="IMAGE", image_url=url))["error_subcode"] == 2207005


def test_an_image_over_8_mb_is_refused(graph, media_server):
    url = media_server.put("/huge.png", png_bytes() + b"\x00" * (8 * 1024 * 1024), "image/png")
    assert error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="IMAGE", image_url=url))["error_subcode"] == 2207004


def test_a_video_is_in_progress_for_its_processing_time_then_finished(threads, graph, media_server):
    container = create(graph, media_type="VIDEO", video_url=media_server.url("/clip.mp4"))
    assert status(graph, container)["status"] == "IN_PROGRESS"
    assert error_of(publish(graph, container))["error_subcode"] == 2207027
    threads.advance(30)
    assert status(graph, container)["status"] == "FINISHED"
    assert publish(graph, container).status_code == 200


def test_a_video_that_cannot_be_fetched_ends_in_error_failed_downloading_video(graph, media_server):
    container = create(graph, media_type="VIDEO", video_url=media_server.url("/missing.mp4"))
    assert status(graph, container) == {"id": container, "status": "ERROR", "error_message": "FAILED_DOWNLOADING_VIDEO"}


def test_a_video_that_is_not_mp4_or_mov_fails_processing(threads, graph, media_server):
    container = create(graph, media_type="VIDEO", video_url=media_server.url("/photo.jpg"))
    threads.advance(30)
    assert status(graph, container)["error_message"] == "FAILED_PROCESSING_VIDEO"


def test_a_carousel_of_images_and_a_video_is_one_post_once_every_item_is_processed(threads, graph, media_server):
    items = [create(graph, media_type="IMAGE", image_url=media_server.url("/photo.jpg"), is_carousel_item="true"),
             create(graph, media_type="VIDEO", video_url=media_server.url("/clip.mp4"), is_carousel_item="true")]
    carousel = create(graph, media_type="CAROUSEL", children=",".join(items), text="two things")
    assert status(graph, carousel)["status"] == "IN_PROGRESS"
    threads.advance(30)
    media_id = publish(graph, carousel).json()["id"]
    [post] = threads.posts[USER]
    assert post.media_type == "CAROUSEL_ALBUM" and [m.media_type for m in post.media] == ["IMAGE", "VIDEO"]
    children = graph("GET", f"/v1.0/{media_id}", fields="children").json()["children"]["data"]
    assert [c["id"] for c in children] == [m.id for m in post.media]
    assert {threads.containers[i].status for i in items} == {"PUBLISHED"}


@pytest.mark.parametrize("count", [1, 21])
def test_a_carousel_needs_2_to_20_items(graph, media_server, count):
    items = [create(graph, media_type="IMAGE", image_url=media_server.url("/photo.jpg"), is_carousel_item="true")
             for _ in range(count)]
    error = error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="CAROUSEL", children=",".join(items)))
    assert error["code"] == 100


def test_a_carousel_item_must_be_a_carousel_item_of_the_same_user(threads, graph, media_server):
    item = create(graph, media_type="IMAGE", image_url=media_server.url("/photo.jpg"), is_carousel_item="true")
    single = create(graph, media_type="IMAGE", image_url=media_server.url("/photo.jpg"))
    assert error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="CAROUSEL", children=f"{item},{single}"))["code"] == 100
    other = threads.add_user("other")
    foreign = Graph(threads.base_url, threads.issue_token(other.id))
    theirs = foreign("POST", f"/v1.0/{other.id}/threads", media_type="IMAGE", is_carousel_item="true",
                     image_url=media_server.url("/photo.jpg")).json()["id"]
    assert error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="CAROUSEL", children=f"{item},{theirs}"))["code"] == 100


def test_a_carousel_item_is_not_published_on_its_own(graph, media_server):
    item = create(graph, media_type="IMAGE", image_url=media_server.url("/photo.jpg"), is_carousel_item="true")
    assert error_of(publish(graph, item))["code"] == 100


# --- container states -------------------------------------------------------------------------


def test_an_unpublished_container_expires_after_24_hours(threads, graph):
    container = create(graph, media_type="TEXT", text="later")
    threads.advance(24 * 3600 - 1)
    assert status(graph, container)["status"] == "FINISHED"
    threads.advance(1)
    assert status(graph, container)["status"] == "EXPIRED"
    assert error_of(publish(graph, container))["error_subcode"] == 2207020
    assert threads.posts[USER] == []


def test_the_next_container_can_be_forced_to_end_in_error(threads, graph, media_server):
    threads.force_next_container("ERROR", "INVALID_DURATION", media_type="VIDEO")
    text = create(graph, media_type="TEXT", text="not this one")
    video = create(graph, media_type="VIDEO", video_url=media_server.url("/clip.mp4"))
    threads.advance(30)
    assert status(graph, text)["status"] == "FINISHED"
    assert status(graph, video) == {"id": video, "status": "ERROR", "error_message": "INVALID_DURATION"}
    assert error_of(publish(graph, video))["code"] == 100


def test_a_container_can_be_kept_in_progress_forever(threads, graph):
    threads.force_next_container("IN_PROGRESS")
    container = create(graph, media_type="TEXT", text="stuck")
    threads.advance(24 * 3600 - 1)
    assert status(graph, container)["status"] == "IN_PROGRESS"


def test_an_existing_container_can_be_forced_to_expire(threads, graph):
    container = create(graph, media_type="TEXT", text="gone")
    threads.force_container(container, "EXPIRED")
    assert status(graph, container)["status"] == "EXPIRED"


def test_publishing_a_container_twice_makes_one_post_and_refuses_the_second(threads, graph):
    container = create(graph, media_type="TEXT", text="once")
    assert publish(graph, container).status_code == 200
    error = error_of(publish(graph, container))
    assert error["code"] == 100 and "already been published" in error["message"]
    assert len(threads.posts[USER]) == 1


def test_another_users_container_is_not_found(threads, graph):
    other = threads.add_user("other")
    theirs = Graph(threads.base_url, threads.issue_token(other.id))
    container = theirs("POST", f"/v1.0/{other.id}/threads", media_type="TEXT", text="mine").json()["id"]
    assert error_of(graph("GET", f"/v1.0/{container}", fields="status"))["error_subcode"] == 33
    assert error_of(publish(graph, container))["error_subcode"] == 2207006


def test_a_field_a_node_does_not_have_is_an_error(graph):
    container = create(graph, media_type="TEXT", text="x")
    assert "nonexisting field (permalink)" in error_of(graph("GET", f"/v1.0/{container}", fields="permalink"))["message"]


# --- quota ------------------------------------------------------------------------------------


def test_the_publishing_limit_reports_usage_and_the_250_a_day_quota(graph):
    publish(graph, create(graph, media_type="TEXT", text="one"))
    answer = graph("GET", f"/v1.0/{USER}/threads_publishing_limit", fields="quota_usage,config").json()
    assert answer == {"data": [{"quota_usage": 1, "config": {"quota_total": 250, "quota_duration": 86400}}]}


def test_past_the_quota_of_a_rolling_24_hours_publishing_is_refused_with_9_2207042(threads, token):
    threads.publish_quota = 3
    graph = Graph(threads.base_url, token)
    for i in range(3):
        publish(graph, create(graph, media_type="TEXT", text=f"post {i}"))
        threads.advance(3600)
    late = create(graph, media_type="TEXT", text="one too many")
    error = error_of(publish(graph, late))
    assert (error["code"], error["error_subcode"]) == (9, 2207042)
    threads.advance(21 * 3600)  # the first post leaves the window
    assert publish(graph, late).status_code == 200
    assert len(threads.posts[USER]) == 4


# --- the ambiguous point ----------------------------------------------------------------------


def test_a_publish_dropped_after_its_effect_leaves_one_post_the_client_can_find(threads, graph):
    container = create(graph, media_type="TEXT", text="did it post?")
    threads.drop("POST", r"/threads_publish$")
    with pytest.raises(requests.ConnectionError):
        publish(graph, container)
    [post] = threads.posts[USER]
    assert status(graph, container)["status"] == "PUBLISHED"
    listed = graph("GET", f"/v1.0/{USER}/threads", fields="id,text", limit="5").json()["data"]
    assert listed == [{"id": post.id, "text": "did it post?"}]
    assert threads.calls_to("POST", "threads_publish")[0].dropped


def test_concurrent_publishes_of_one_container_make_one_post(threads, graph):
    container = create(graph, media_type="TEXT", text="raced")
    with ThreadPoolExecutor(8) as pool:
        codes = sorted(a.status_code for a in pool.map(lambda _: publish(graph, container), range(8)))
    assert codes == [200] + [400] * 7
    assert len(threads.posts[USER]) == 1


# --- every row of the error table -------------------------------------------------------------


@pytest.mark.parametrize("code,subcode,status", [
    (4, None, 400), (17, None, 400), (32, None, 400), (613, None, 400),  # call rate limits
    (10, None, 400), (200, None, 400), (299, None, 400),  # permissions
    (4, 2207051, 400), (1, 4279013, 400),  # restricted activity, user restricted
    (1, None, 500), (2, None, 503), (4, None, 429),
])
def test_any_graph_error_can_be_made_the_answer_of_a_call(threads, graph, code, subcode, status):
    threads.fail_graph("POST", r"/threads$", code, "made to fail", subcode=subcode, status=status)
    error = error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text="x"), status)
    assert (error["code"], error.get("error_subcode"), error["message"]) == (code, subcode, "made to fail")
    assert threads.containers == {}  # a failed call has no effect
    assert create(graph, media_type="TEXT", text="x")  # only the next call fails


@pytest.mark.parametrize("message", ["FAILED_PROCESSING_AUDIO", "FAILED_PROCESSING_VIDEO", "INVALID_ASPEC_RATIO",
                                     "INVALID_BIT_RATE", "INVALID_DURATION", "INVALID_FRAME_RATE",
                                     "INVALID_AUDIO_CHANNELS", "INVALID_AUDIO_CHANNEL_LAYOUT", "UNKNOWN"])
def test_every_container_error_message_can_be_forced(threads, graph, media_server, message):
    threads.force_next_container("ERROR", message)
    container = create(graph, media_type="VIDEO", video_url=media_server.url("/clip.mp4"))
    threads.advance(30)
    assert status(graph, container)["error_message"] == message


# --- control over HTTP ------------------------------------------------------------------------


def test_the_control_api_is_reachable_over_http(threads, graph):
    control = threads.base_url + "/_emulator/"
    assert requests.post(control + "force_next_container", json={"status": "ERROR", "error_message": "UNKNOWN"},
                         timeout=10).status_code == 200
    container = create(graph, media_type="TEXT", text="x")
    requests.post(control + "advance", json={"seconds": 5}, timeout=10)
    assert status(graph, container)["status"] == "ERROR"
    assert requests.get(control + "clock", timeout=10).json() == "2026-11-22T10:00:05+00:00"
    assert requests.get(control + "containers", timeout=10).json()[container]["error_message"] == "UNKNOWN"
    calls = requests.get(control + "calls", timeout=10).json()
    assert [c["path"] for c in calls] == [f"/v1.0/{USER}/threads", f"/v1.0/{container}"]
    assert calls[0]["body"]["access_token"] == "***"



# --- replies and quotes ---------------------------------------------------------------------------

def posted(graph, **params) -> str:
    """A TEXT (or other) container created and published: the media id."""
    answer = publish(graph, create(graph, **params))
    assert answer.status_code == 200, answer.text
    return answer.json()["id"]


def test_a_reply_keeps_its_parent_and_the_root_of_its_chain(threads, graph):
    first = posted(graph, media_type="TEXT", text="the first")
    second = posted(graph, media_type="TEXT", text="a reply", reply_to_id=first)
    third = posted(graph, media_type="TEXT", text="a reply to it", reply_to_id=second)
    assert [p.id for p in threads.chain(third)] == [first, second, third]
    read = graph("GET", f"/v1.0/{third}", fields="id,is_reply,replied_to,root_post").json()
    assert read == {"id": third, "is_reply": True, "replied_to": {"id": second}, "root_post": {"id": first}}


def test_replies_are_listed_apart_from_posts_and_under_their_parent(threads, graph):
    first = posted(graph, media_type="TEXT", text="the first")
    reply = posted(graph, media_type="TEXT", text="a reply", reply_to_id=first)
    assert [p["id"] for p in graph("GET", f"/v1.0/{USER}/threads").json()["data"]] == [first]
    assert [p["id"] for p in graph("GET", f"/v1.0/{USER}/replies", fields="id,text").json()["data"]] == [reply]
    assert [p["text"] for p in graph("GET", f"/v1.0/{first}/replies", fields="text").json()["data"]] == ["a reply"]


def test_a_reply_needs_the_replies_permission(threads):
    graph = Graph(threads.base_url, threads.issue_token(scopes=["threads_basic", "threads_content_publish"]))
    first = posted(graph, media_type="TEXT", text="the first")
    assert error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text="no", reply_to_id=first))[
        "code"] == 10


def test_a_reply_to_a_post_that_does_not_exist_is_refused(graph):
    assert "reply_to_id" in error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text="orphan",
                                           reply_to_id="17"))["message"]


def test_a_quote_keeps_the_quoted_post_and_one_of_nothing_is_refused_naming_quote_post_id(threads, graph):
    first = posted(graph, media_type="TEXT", text="quote me")
    quoting = posted(graph, media_type="TEXT", text="quoting", quote_post_id=first, topic_tag="Launch",
                     reply_control="mentioned_only")
    [_, post] = threads.posts[USER]
    assert (post.id, post.quote_post_id, post.topic_tag, post.reply_control) == (quoting, first, "Launch",
                                                                                "mentioned_only")
    assert "quote_post_id" in error_of(graph("POST", f"/v1.0/{USER}/threads", media_type="TEXT", text="x",
                                             quote_post_id="17"))["message"]


def test_replies_count_against_their_own_quota_not_the_posts(threads, graph):
    threads.set_quota(1)
    first = posted(graph, media_type="TEXT", text="the one post of the day")
    posted(graph, media_type="TEXT", text="a reply still goes", reply_to_id=first)
    limit = graph("GET", f"/v1.0/{USER}/threads_publishing_limit",
                  fields="quota_usage,reply_quota_usage").json()["data"][0]
    assert (limit["quota_usage"], limit["reply_quota_usage"]) == (1, 1)
