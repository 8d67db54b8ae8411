"""The Instagram emulator keeps to the protocol the Instagram adapter is written against
(tests/emulators/README.md#instagram)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests


from ..conftest import Graph, authorize, created, error_of, exchange
from ..media import jpeg_bytes, png_bytes

USER = "17841400000000002"
REDIRECT = "https://fanout.example/connect/instagram/callback"
SCOPE = "instagram_business_basic,instagram_business_content_publish"


@pytest.fixture
def token(instagram) -> str:
    """A long-lived token of the default user with both publishing scopes."""
    return instagram.issue_token()


@pytest.fixture
def graph(instagram, token) -> Graph:
    return Graph(instagram.base_url, token)


def connect(instagram) -> str:
    """A short-lived token through the OAuth flow."""
    return exchange(instagram, authorize(instagram)["code"]).json()["data"][0]["access_token"]


def legacy_error(answer: requests.Response) -> str:
    """The message of api.instagram.com's older error shape."""
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert set(body) == {"error_type", "code", "error_message"} and body["code"] == 400
    return body["error_message"]


def codes(answer: requests.Response) -> tuple[int, int | None]:
    error = error_of(answer)
    return error["code"], error.get("error_subcode")


def create(graph, **params) -> str:
    return created(graph, f"/v25.0/{USER}/media", **params)


def refused(graph, **params) -> tuple[int, int | None]:
    """The codes of a container creation that must fail."""
    return codes(graph("POST", f"/v25.0/{USER}/media", **params))


def status(graph, container_id: str) -> dict:
    return graph("GET", f"/v25.0/{container_id}", fields="status_code,status").json()


def publish(graph, container_id: str) -> requests.Response:
    return graph("POST", f"/v25.0/{USER}/media_publish", creation_id=container_id)


def refresh(instagram, token: str) -> requests.Response:
    return requests.get(instagram.base_url + "/refresh_access_token", timeout=10,
                        params={"grant_type": "ig_refresh_token", "access_token": token})


# --- OAuth ------------------------------------------------------------------------------------


def test_the_oauth_round_trip_gives_a_short_then_a_long_lived_token_for_the_consenting_user(instagram):
    redirect = authorize(instagram)
    assert redirect["state"] == "st-1"
    answer = exchange(instagram, redirect["code"]).json()
    [short] = answer["data"]
    assert (short["user_id"], short["permissions"]) == (USER, SCOPE)  # the documented shape: strings
    long = requests.get(instagram.base_url + "/access_token", timeout=10, params={
        "grant_type": "ig_exchange_token", "client_secret": "app-secret", "access_token": short["access_token"]}).json()
    assert long["token_type"] == "bearer" and long["expires_in"] == 60 * 86400
    me = Graph(instagram.base_url, long["access_token"])("GET", "/v25.0/me", fields="user_id,username,account_type")
    assert me.json() == {"user_id": USER, "username": "emu_instagram", "account_type": "BUSINESS", "id": USER}


def test_scopes_may_be_space_separated_and_the_token_has_those_asked_for(instagram):
    code = authorize(instagram, scope="instagram_business_basic")["code"]
    assert exchange(instagram, code).json()["data"][0]["permissions"] == "instagram_business_basic"
    code = authorize(instagram, scope=SCOPE.replace(",", " "))["code"]
    assert exchange(instagram, code).json()["data"][0]["permissions"] == SCOPE


def test_the_code_exchange_can_answer_the_flat_shape_clients_also_see(instagram):
    instagram.token_answer_shape("flat")
    answer = exchange(instagram, authorize(instagram)["code"]).json()
    assert set(answer) == {"access_token", "user_id", "permissions"}
    assert answer["user_id"] == int(USER) and answer["permissions"] == SCOPE.split(",")
    instagram.token_answer_shape("data")
    assert "data" in exchange(instagram, authorize(instagram)["code"]).json()


def test_a_code_is_single_use_and_its_reuse_is_refused_in_the_legacy_shape(instagram):
    code = authorize(instagram)["code"]
    assert exchange(instagram, code).status_code == 200
    assert "used" in legacy_error(exchange(instagram, code))


def test_a_code_lives_one_hour(instagram):
    code = authorize(instagram)["code"]
    instagram.advance(3599)
    assert exchange(instagram, code).status_code == 200
    code = authorize(instagram)["code"]
    instagram.advance(3600)
    assert "expired" in legacy_error(exchange(instagram, code))


def test_the_code_exchange_needs_the_redirect_uri_of_the_authorization(instagram):
    code = authorize(instagram)["code"]
    assert "redirect_uri" in legacy_error(exchange(instagram, code, redirect_uri="https://elsewhere.example/cb"))


@pytest.mark.parametrize("field,value", [("client_secret", "wrong"), ("client_id", "other"), ("code", "made-up")])
def test_bad_app_credentials_or_an_unknown_code_are_refused_in_the_legacy_shape(instagram, field, value):
    legacy_error(exchange(instagram, **{"code": authorize(instagram)["code"], field: value}))


def test_a_redirect_uri_outside_the_registered_ones_is_refused_at_authorize(instagram):
    instagram.redirect_uris = {REDIRECT}
    answer = requests.get(instagram.base_url + "/oauth/authorize", allow_redirects=False, timeout=10, params={
        "client_id": "app-id", "redirect_uri": "https://evil.example/cb", "scope": SCOPE, "response_type": "code"})
    legacy_error(answer)
    assert "code" in authorize(instagram)


def test_a_user_who_denies_is_redirected_with_access_denied_and_the_state(instagram):
    instagram.deny_consent()
    assert authorize(instagram) == {"error": "access_denied", "error_reason": "user_denied",
                                    "error_description": "Permissions error", "state": "st-1"}


def test_the_consenting_user_can_be_another_one(instagram):
    other = instagram.add_user("second_user", account_type="MEDIA_CREATOR")
    instagram.consent_as(other.id)
    me = Graph(instagram.base_url, connect(instagram))("GET", "/me", fields="user_id,username,account_type").json()
    assert me == {"user_id": other.id, "username": "second_user", "account_type": "MEDIA_CREATOR", "id": other.id}


def test_a_short_lived_token_expires_after_an_hour(instagram):
    short = connect(instagram)
    instagram.advance(3600)
    assert codes(Graph(instagram.base_url, short)("GET", "/v25.0/me")) == (190, 463)
    assert error_of(Graph(instagram.base_url, short)("GET", "/v25.0/me"))["message"].startswith(
        "Error validating access token: Session has expired on")


@pytest.mark.parametrize("token", [None, "IGAAnot-a-token"])
def test_a_missing_or_unknown_token_is_190_cannot_parse(instagram, token):
    answer = requests.get(instagram.base_url + "/v25.0/me", params={"access_token": token} if token else {}, timeout=10)
    error = error_of(answer)
    assert (error["code"], error["message"]) == (190, "Invalid OAuth access token - Cannot parse access token")


def test_revoked_tokens_are_refused_with_190_460(instagram, graph):
    assert instagram.revoke_tokens(USER) == 1
    assert codes(graph("GET", "/v25.0/me")) == (190, 460)


def test_the_token_may_come_in_an_authorization_header(instagram, token):
    answer = requests.get(instagram.base_url + "/v25.0/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.json() == {"id": USER}


@pytest.mark.parametrize("prefix", ["/v25.0", "/v19", "/v26.0", ""])
def test_any_graph_version_prefix_or_none_is_accepted(graph, prefix):
    assert graph("GET", prefix + "/me", fields="username").json() == {"id": USER, "username": "emu_instagram"}


def test_a_long_lived_token_is_refreshed_only_once_24_hours_old_and_the_old_one_keeps_working(instagram, token):
    young = error_of(refresh(instagram, token))
    assert young["code"] == 100 and "refresh" in young["message"]
    instagram.advance(24 * 3600)
    answer = refresh(instagram, token).json()
    assert answer["token_type"] == "bearer" and answer["expires_in"] == 60 * 86400
    assert answer["access_token"] != token
    assert Graph(instagram.base_url, answer["access_token"])("GET", "/v25.0/me").status_code == 200
    assert Graph(instagram.base_url, token)("GET", "/v25.0/me").status_code == 200


def test_a_short_lived_token_cannot_be_refreshed(instagram):
    short = connect(instagram)
    error = error_of(refresh(instagram, short))
    assert error["code"] == 100 and "refresh" in error["message"]


def test_an_expired_or_revoked_token_is_refused_by_refresh_with_190(instagram, token):
    instagram.advance(60 * 86400)
    assert codes(refresh(instagram, token)) == (190, 463)
    fresh = instagram.issue_token()
    instagram.revoke_tokens()
    assert codes(refresh(instagram, fresh)) == (190, 460)  # before the 24-hour rule


def test_fail_refresh_makes_the_next_refresh_answer_190_460(instagram, token):
    instagram.advance(25 * 3600)
    instagram.fail_refresh()
    assert codes(refresh(instagram, token)) == (190, 460)
    assert refresh(instagram, token).status_code == 200


def test_a_token_without_the_publish_scope_cannot_create_a_container(instagram, media_server):
    graph = Graph(instagram.base_url, instagram.issue_token(scopes=["instagram_business_basic"]))
    assert refused(graph, image_url=media_server.url("/photo.jpg")) == (10, None)


def test_a_personal_account_consents_and_reads_me_but_every_publishing_call_is_10(instagram, media_server):
    personal = instagram.add_user("just_me", account_type="PERSONAL")
    instagram.consent_as(personal.id)
    graph = Graph(instagram.base_url, connect(instagram))
    assert graph("GET", "/me", fields="account_type").json()["account_type"] == "PERSONAL"
    for method, path, params in [("POST", "media", {"image_url": media_server.url("/photo.jpg")}),
                                 ("POST", "media_publish", {"creation_id": "1"}),
                                 ("GET", "content_publishing_limit", {})]:
        error = error_of(graph(method, f"/v25.0/{personal.id}/{path}", **params))
        assert (error["code"], error["message"]) == (10, "(#10) Application does not have permission for this action")


def test_another_users_id_in_the_path_is_an_unknown_object(instagram, graph, media_server):
    other = instagram.add_user("other")
    assert codes(graph("POST", f"/v25.0/{other.id}/media", image_url=media_server.url("/photo.jpg"))) == (100, 33)


# --- publishing -------------------------------------------------------------------------------


def test_an_image_is_fetched_created_published_and_read_back_with_its_permalink(instagram, graph, media_server):
    url = media_server.url("/photo.jpg")
    container = create(graph, image_url=url, caption="Hello #emulator")
    assert [c.path for c in media_server.calls] == ["/photo.jpg"]
    assert status(graph, container)["status_code"] == "FINISHED"
    media_id = publish(graph, container).json()["id"]
    assert media_id != container
    read = graph("GET", f"/v25.0/{media_id}", fields="id,permalink,caption,media_type,timestamp").json()
    [post] = instagram.posts[USER]
    assert read == {"id": media_id, "permalink": f"https://www.instagram.com/p/{post.shortcode}/",
                    "caption": "Hello #emulator", "media_type": "IMAGE", "timestamp": "2026-11-22T10:00:00+0000"}
    assert (post.container_id, post.media_url, post.children) == (container, url, ())
    assert status(graph, container)["status_code"] == "PUBLISHED"


@pytest.mark.parametrize("encoding", ["query", "multipart", "json"])
def test_container_parameters_are_taken_in_any_encoding(instagram, token, media_server, encoding):
    params = {"image_url": media_server.url("/photo.jpg"), "caption": "encoded", "access_token": token}
    url = f"{instagram.base_url}/v25.0/{USER}/media"
    answer = {
        "query": lambda: requests.post(url, params=params, timeout=10),
        "multipart": lambda: requests.post(url, files={k: (None, v) for k, v in params.items()}, timeout=10),
        "json": lambda: requests.post(url, json=params, timeout=10),
    }[encoding]()
    assert answer.status_code == 200, answer.text
    assert instagram.containers[answer.json()["id"]].text == "encoded"


def test_a_reel_is_in_progress_for_its_processing_time_then_published_under_reel(instagram, graph, media_server):
    container = create(graph, media_type="REELS", video_url=media_server.url("/clip.mp4"), caption="a reel")
    assert status(graph, container) == {"id": container, "status_code": "IN_PROGRESS",
                                        "status": "In Progress: Media is still being processed."}
    assert codes(publish(graph, container)) == (9007, 2207027)
    instagram.advance(30)
    assert status(graph, container)["status_code"] == "FINISHED"
    media_id = publish(graph, container).json()["id"]
    read = graph("GET", f"/{media_id}", fields="media_type,media_product_type,permalink").json()
    assert read["media_type"] == "VIDEO" and read["media_product_type"] == "REELS"
    assert read["permalink"].startswith("https://www.instagram.com/reel/")


def test_a_video_alone_must_be_a_reel(graph, media_server):
    answer = graph("POST", f"/v25.0/{USER}/media", media_type="VIDEO", video_url=media_server.url("/clip.mp4"))
    assert codes(answer) == (100, 2207023)


def test_an_unknown_media_type_is_2207023(graph, media_server):
    answer = graph("POST", f"/v25.0/{USER}/media", media_type="HOLOGRAM", image_url=media_server.url("/photo.jpg"))
    assert codes(answer) == (100, 2207023)


def test_a_caption_of_2200_code_points_after_nfc_passes_and_2201_is_refused(graph, media_server):
    url = media_server.url("/photo.jpg")
    create(graph, image_url=url, caption="e\u0301" * 2200)  # 4400 code points as sent, 2200 after NFC
    assert refused(graph, image_url=url, caption="a" * 2201) == (36004, 2207010)


@pytest.mark.parametrize("word,cap,refusal", [("#tag", 30, (36004, 2207010)), ("@user", 20, (100, 2207040))])
def test_a_caption_over_30_hashtags_or_20_mentions_is_refused(graph, media_server, word, cap, refusal):
    url = media_server.url("/photo.jpg")
    create(graph, image_url=url, caption=" ".join(f"{word}{i}" for i in range(cap)))
    assert refused(graph, image_url=url, caption=" ".join(f"{word}{i}" for i in range(cap + 1))) == refusal


def test_an_image_that_cannot_be_fetched_fails_the_creation_call(graph, media_server):
    error = error_of(graph("POST", f"/v25.0/{USER}/media", image_url=media_server.url("/missing.jpg")))
    assert (error["code"], error["error_subcode"]) == (9004, 2207052)
    assert "could not be fetched from this URI" in error["message"]


def test_an_image_that_is_not_jpeg_is_refused_whatever_its_name(graph, media_server):
    url = media_server.put("/photo2.jpg", png_bytes(640, 480), "image/jpeg")  # the bytes decide
    assert refused(graph, image_url=url) == (36001, 2207005)


def test_an_image_over_8_mib_is_refused(graph, media_server):
    url = media_server.put("/huge.jpg", jpeg_bytes(640, 480) + b"\x00" * (8 * 1024 * 1024), "image/jpeg")
    assert refused(graph, image_url=url) == (36000, 2207004)


@pytest.mark.parametrize("width,height,taken", [
    (1080, 1350, True), (1080, 1351, False),  # 4:5, then just taller
    (1910, 1000, True), (1911, 1000, False),  # 1.91:1, then just wider
])
def test_an_image_outside_4_5_to_1_91_1_is_refused(graph, media_server, width, height, taken):
    url = media_server.put(f"/{width}x{height}.jpg", jpeg_bytes(width, height), "image/jpeg")
    answer = graph("POST", f"/v25.0/{USER}/media", image_url=url)
    assert answer.status_code == 200 if taken else codes(answer) == (36003, 2207009)


def test_a_video_that_cannot_be_fetched_is_an_error_container_at_once(graph, media_server):
    container = create(graph, media_type="REELS", video_url=media_server.url("/missing.mp4"))
    assert status(graph, container) == {"id": container, "status_code": "ERROR",
                                        "status": "Error: Media upload has failed with error code 2207077"}


def test_a_video_that_is_not_mp4_or_mov_fails_once_processed(instagram, graph, media_server):
    container = create(graph, media_type="REELS", video_url=media_server.url("/photo.jpg"))
    assert status(graph, container)["status_code"] == "IN_PROGRESS"
    instagram.advance(30)
    assert status(graph, container)["status"] == "Error: Media upload has failed with error code 2207026"
    assert codes(publish(graph, container)) == (9007, 2207027)


def test_a_carousel_of_finished_items_is_finished_at_once_and_published_as_one_post(instagram, graph, media_server):
    items = [create(graph, image_url=media_server.url("/photo.jpg"), is_carousel_item="true"),
             create(graph, media_type="VIDEO", video_url=media_server.url("/clip.mp4"), is_carousel_item="true")]
    early = graph("POST", f"/v25.0/{USER}/media", media_type="CAROUSEL", children=",".join(items))
    assert codes(early) == (100, 2207028)  # the video item is still processing
    instagram.advance(30)
    carousel = create(graph, media_type="CAROUSEL", children=",".join(items), caption="two things")
    assert status(graph, carousel)["status_code"] == "FINISHED"
    media_id = publish(graph, carousel).json()["id"]
    [post] = instagram.posts[USER]
    assert post.media_type == "CAROUSEL_ALBUM" and [m.media_type for m in post.children] == ["IMAGE", "VIDEO"]
    children = graph("GET", f"/v25.0/{media_id}", fields="children").json()["children"]["data"]
    assert [c["id"] for c in children] == [m.id for m in post.children]
    assert graph("GET", f"/v25.0/{children[1]['id']}", fields="media_type").json()["media_type"] == "VIDEO"
    assert {instagram.containers[i].status for i in items} == {"PUBLISHED"}
    usage = graph("GET", f"/v25.0/{USER}/content_publishing_limit").json()
    assert usage == {"data": [{"quota_usage": 1}]}  # a carousel counts one


@pytest.mark.parametrize("count", [1, 11])
def test_a_carousel_needs_2_to_10_items(graph, media_server, count):
    items = [create(graph, image_url=media_server.url("/photo.jpg"), is_carousel_item="true") for _ in range(count)]
    assert refused(graph, media_type="CAROUSEL", children=",".join(items)) == (100, 2207028)


def test_a_carousel_takes_only_carousel_items_of_the_same_user(instagram, graph, media_server):
    item = create(graph, image_url=media_server.url("/photo.jpg"), is_carousel_item="true")
    single = create(graph, image_url=media_server.url("/photo.jpg"))
    answer = graph("POST", f"/v25.0/{USER}/media", media_type="CAROUSEL", children=f"{item},{single}")
    assert codes(answer) == (100, 2207028)
    other = instagram.add_user("other")
    theirs = Graph(instagram.base_url, instagram.issue_token(other.id))(
        "POST", f"/v25.0/{other.id}/media", image_url=media_server.url("/photo.jpg"), is_carousel_item="true")
    answer = graph("POST", f"/v25.0/{USER}/media", media_type="CAROUSEL", children=f"{item},{theirs.json()['id']}")
    assert codes(answer) == (100, 2207028)


def test_a_carousel_item_takes_no_caption_and_is_not_published_on_its_own(graph, media_server):
    url = media_server.url("/photo.jpg")
    assert refused(graph, image_url=url, is_carousel_item="true", caption="x")[0] == 100
    assert codes(publish(graph, create(graph, image_url=url, is_carousel_item="true")))[0] == 100


# --- container states -------------------------------------------------------------------------


def test_an_unpublished_container_expires_after_24_hours(instagram, graph, media_server):
    container = create(graph, image_url=media_server.url("/photo.jpg"))
    instagram.advance(24 * 3600 - 1)
    assert status(graph, container)["status_code"] == "FINISHED"
    instagram.advance(1)
    assert status(graph, container)["status_code"] == "EXPIRED"
    assert codes(publish(graph, container)) == (24, 2207008)
    assert instagram.posts[USER] == []


def test_an_unknown_container_is_2207008_and_another_users_is_not_readable(instagram, graph, media_server):
    assert codes(publish(graph, "12345")) == (24, 2207008)
    other = instagram.add_user("other")
    theirs = Graph(instagram.base_url, instagram.issue_token(other.id))
    container = theirs("POST", f"/v25.0/{other.id}/media", image_url=media_server.url("/photo.jpg")).json()["id"]
    assert codes(graph("GET", f"/v25.0/{container}", fields="status_code")) == (100, 33)
    assert codes(publish(graph, container)) == (24, 2207008)


def test_the_next_container_can_be_forced_to_end_in_error_with_a_subcode(instagram, graph, media_server):
    instagram.force_next_container("ERROR", 2207026, media_type="VIDEO")
    image = create(graph, image_url=media_server.url("/photo.jpg"))
    reel = create(graph, media_type="REELS", video_url=media_server.url("/clip.mp4"))
    instagram.advance(30)
    assert status(graph, image)["status_code"] == "FINISHED"
    assert status(graph, reel) == {"id": reel, "status_code": "ERROR",
                                   "status": "Error: Media upload has failed with error code 2207026"}


def test_a_container_can_be_kept_in_progress_forever_or_expired_at_once(instagram, graph, media_server):
    instagram.force_next_container("IN_PROGRESS")
    stuck = create(graph, image_url=media_server.url("/photo.jpg"))
    instagram.advance(24 * 3600 - 1)
    assert status(graph, stuck)["status_code"] == "IN_PROGRESS"
    gone = create(graph, image_url=media_server.url("/photo.jpg"))
    instagram.force_container(gone, "EXPIRED")
    assert status(graph, gone)["status_code"] == "EXPIRED"


def test_publishing_a_container_twice_makes_one_post_and_refuses_the_second(instagram, graph, media_server):
    container = create(graph, image_url=media_server.url("/photo.jpg"))
    assert publish(graph, container).status_code == 200
    error = error_of(publish(graph, container))
    assert error["code"] == 100 and "already been published" in error["message"]
    assert len(instagram.posts[USER]) == 1


def test_a_field_a_node_does_not_have_is_an_error(graph, media_server):
    container = create(graph, image_url=media_server.url("/photo.jpg"))
    error = error_of(graph("GET", f"/v25.0/{container}", fields="permalink"))
    assert error["code"] == 100 and "Tried accessing nonexisting field (permalink)" in error["message"]


def test_more_than_the_container_limit_in_24_hours_is_refused_with_17(instagram, graph, media_server):
    instagram.container_limit = 2
    for _ in range(2):
        create(graph, image_url=media_server.url("/photo.jpg"))
    assert refused(graph, image_url=media_server.url("/photo.jpg")) == (17, None)
    instagram.advance(24 * 3600)
    assert create(graph, image_url=media_server.url("/photo.jpg"))


# --- quota and the recent media ---------------------------------------------------------------


def test_the_publishing_limit_reports_usage_and_the_50_a_day_quota(graph, media_server):
    publish(graph, create(graph, image_url=media_server.url("/photo.jpg")))
    answer = graph("GET", f"/v25.0/{USER}/content_publishing_limit", fields="quota_usage,config").json()
    assert answer == {"data": [{"quota_usage": 1, "config": {"quota_total": 50, "quota_duration": 86400}}]}


def test_past_the_quota_of_a_rolling_24_hours_publishing_is_refused_with_9_2207042(instagram, graph, media_server):
    instagram.set_quota(3)
    for _ in range(3):
        publish(graph, create(graph, image_url=media_server.url("/photo.jpg")))
        instagram.advance(3600)
    late = create(graph, image_url=media_server.url("/photo.jpg"))
    assert codes(publish(graph, late)) == (9, 2207042)
    instagram.advance(21 * 3600)  # the first post leaves the window
    assert publish(graph, late).status_code == 200
    assert len(instagram.posts[USER]) == 4


def test_the_users_media_are_listed_newest_first(instagram, graph, media_server):
    ids = []
    for i in range(3):
        container = create(graph, image_url=media_server.url("/photo.jpg"), caption=f"post {i}")
        ids.append(publish(graph, container).json()["id"])
        instagram.advance(60)
    answer = graph("GET", f"/v25.0/{USER}/media", fields="id,caption,permalink,timestamp", limit="2").json()
    assert [p["id"] for p in answer["data"]] == ids[::-1][:2]
    assert answer["data"][0]["caption"] == "post 2" and answer["data"][0]["timestamp"] == "2026-11-22T10:02:00+0000"
    rest = graph("GET", f"/v25.0/me/media", fields="id", after=answer["paging"]["cursors"]["after"]).json()
    assert [p["id"] for p in rest["data"]] == ids[:1]


# --- the ambiguous point ----------------------------------------------------------------------


def test_a_publish_dropped_after_its_effect_leaves_one_post_the_client_can_find(instagram, graph, media_server):
    container = create(graph, image_url=media_server.url("/photo.jpg"), caption="did it post?")
    instagram.drop("POST", r"/media_publish$")
    with pytest.raises(requests.ConnectionError):
        publish(graph, container)
    [post] = instagram.posts[USER]
    assert status(graph, container)["status_code"] == "PUBLISHED"
    listed = graph("GET", f"/v25.0/{USER}/media", fields="id,caption").json()["data"]
    assert listed == [{"id": post.id, "caption": "did it post?"}]


def test_concurrent_publishes_of_one_container_make_one_post(instagram, graph, media_server):
    container = create(graph, image_url=media_server.url("/photo.jpg"))
    with ThreadPoolExecutor(8) as pool:
        statuses = sorted(a.status_code for a in pool.map(lambda _: publish(graph, container), range(8)))
    assert statuses == [200] + [400] * 7
    assert len(instagram.posts[USER]) == 1


@pytest.mark.parametrize("code,subcode,status", [
    (4, None, 400), (17, None, 400), (613, None, 400), (4, 2207051, 400), (25, 2207050, 400),
    (-1, 2207001, 400), (1, None, 500), (4, None, 429),
])
def test_any_graph_error_can_be_made_the_answer_of_a_call(instagram, graph, media_server, code, subcode, status):
    instagram.fail_graph("POST", r"/media$", code, "made to fail", subcode=subcode, status=status)
    error = error_of(graph("POST", f"/v25.0/{USER}/media", image_url=media_server.url("/photo.jpg")), status)
    assert (error["code"], error.get("error_subcode"), error["message"]) == (code, subcode, "made to fail")
    assert instagram.containers == {}  # a failed call has no effect
    assert create(graph, image_url=media_server.url("/photo.jpg"))  # only the next call fails


# --- control over HTTP ------------------------------------------------------------------------


def test_the_controls_and_views_are_reachable_over_http(instagram, graph, media_server):
    control = instagram.base_url + "/_emulator/"
    assert requests.post(control + "token_answer_shape", json={"shape": "flat"}, timeout=10).status_code == 200
    assert isinstance(exchange(instagram, authorize(instagram)["code"]).json()["user_id"], int)
    requests.post(control + "force_next_container", json={"status_code": "ERROR", "status": 2207053}, timeout=10)
    container = create(graph, image_url=media_server.url("/photo.jpg"))
    assert requests.get(control + "containers", timeout=10).json()[container]["status"] == "ERROR"
    assert requests.get(control + "users", timeout=10).json() == [
        {"id": USER, "username": "emu_instagram", "account_type": "BUSINESS"}]
    assert requests.post(control + "token_answer_shape", json={"shape": "round"}, timeout=10).status_code == 400



# --- comments and options -----------------------------------------------------------------------

def published_image(graph, media_server, **params) -> str:
    answer = publish(graph, create(graph, image_url=media_server.url("/photo.jpg"), **params))
    assert answer.status_code == 200, answer.text
    return answer.json()["id"]


def test_a_comment_on_a_published_media_is_kept_and_listed(instagram, graph, media_server):
    media_id = published_image(graph, media_server)
    comment = created(graph, f"/v25.0/{media_id}/comments", message="first!")
    [kept] = instagram.comments[media_id]
    assert (kept.id, kept.text, kept.username) == (comment, "first!", "emu_instagram")
    listed = graph("GET", f"/v25.0/{media_id}/comments", fields="id,text,username").json()["data"]
    assert listed == [{"id": comment, "text": "first!", "username": "emu_instagram"}]
    assert graph("GET", f"/v25.0/{media_id}", fields="comments_count").json()["comments_count"] == 1


def test_a_comment_needs_the_comments_permission(instagram, graph, media_server):
    media_id = published_image(graph, media_server)
    bare = Graph(instagram.base_url, instagram.issue_token(scopes=SCOPE.split(",")))
    assert error_of(bare("POST", f"/v25.0/{media_id}/comments", message="no"))["code"] == 10


@pytest.mark.parametrize("message", ["a" * 301, "#a #b #c #d #e", "https://a.example.com https://b.example.com", ""])
def test_a_comment_past_instagrams_rules_is_refused(graph, media_server, message):
    media_id = published_image(graph, media_server)
    assert error_of(graph("POST", f"/v25.0/{media_id}/comments", message=message))["code"] == 100


def test_a_comment_on_media_that_does_not_exist_is_refused(graph):
    assert error_of(graph("POST", "/v25.0/17/comments", message="where?"))["code"] == 100


def test_an_images_collaborators_and_location_are_kept_with_the_post(instagram, graph, media_server):
    instagram.add_user("friend_one")
    published_image(graph, media_server, collaborators='["friend_one"]', location_id="110000000000001")
    [post] = instagram.posts[USER]
    assert post.options == {"collaborators": ["friend_one"], "location_id": "110000000000001"}


@pytest.mark.parametrize("params, word", [
    ({"share_to_feed": "true"}, "share_to_feed"),  # a Reel's, on an image
    ({"collaborators": '["nobody_here"]'}, "collaborators"),
    ({"collaborators": '["a", "b", "c", "d"]'}, "collaborators"),
    ({"location_id": "somewhere"}, "location_id"),
])
def test_an_option_instagram_refuses_is_error_100_naming_it(graph, media_server, params, word):
    error = error_of(graph("POST", f"/v25.0/{USER}/media", image_url=media_server.url("/photo.jpg"), **params))
    assert error["code"] == 100 and word in error["message"]
