"""The Posts pages: the form goes through `POST /v1/upload`'s rules and says what the API
says; a post's page follows its targets and shows its events; the list filters and pages."""
from __future__ import annotations

import html
import re
from types import SimpleNamespace

import pytest

from fanout.dashboard.posts import media_needed
from fanout.models import MonthlyUsage, Post, db

from ..conftest import connect_sandbox_account, post_month, run_queue
from .conftest import alert, send, sign_in

POST_PAGE = re.compile(r"^/dashboard/posts/(post_[0-9A-Z]{26})\?done=created$")


def form_of(account_ids: list[str], caption: str = "Hello from the dashboard", **fields) -> dict:
    return {"caption": caption, "account_id": account_ids, "idempotency_key": "", **fields}


def create(dashboard, form: dict):
    return send(dashboard, "/dashboard/posts", form)


@pytest.fixture
def x(client, auth) -> dict:
    return connect_sandbox_account(client, auth, "x")


def test_the_new_post_form_offers_the_active_accounts(dashboard, x):
    page = dashboard.get("/dashboard/posts/new").text
    assert f'name="account_id" value="{x["id"]}"' in page and "sandbox_x_1" in page
    assert re.search(r'name="idempotency_key" value="dashboard-[0-9A-Za-z]{32}"', page)


def test_a_created_post_is_shown_with_its_targets_then_published_with_its_permalink(dashboard, x, rt, clock):
    created = create(dashboard, form_of([x["id"]]))
    assert created.status_code == 303
    post_id = POST_PAGE.match(created.headers["location"]).group(1)
    page = dashboard.get(created.headers["location"]).text
    assert "The post was created." in page and 'data-follow="2000"' in page
    assert '<span class="badge pending">pending</span>' in page and "sandbox_x_1" in page
    run_queue(rt, clock)
    page = dashboard.get(f"/dashboard/posts/{post_id}").text
    assert "data-follow" not in page  # final: nothing left to follow
    permalink = "http://testserver/sandbox/x/"
    assert '<span class="badge completed">completed</span>' in page and permalink in page
    assert "<code>post.completed</code>" in page  # its event


def test_a_sandbox_post_from_the_dashboard_is_the_apis_post(dashboard, client, auth, x):
    created = create(dashboard, form_of([x["id"]], media_url=["https://cdn.example.com/a.jpg", ""],
                                         media_type=["image", "video"]))
    post_id = POST_PAGE.match(created.headers["location"]).group(1)
    post = client.get(f"/v1/posts/{post_id}", headers=auth).json()
    assert post["sandbox"] is True and post["caption"] == "Hello from the dashboard"
    assert post["media"] == [{"url": "https://cdn.example.com/a.jpg", "type": "image"}]
    assert [t["account_id"] for t in post["targets"]] == [x["id"]]


def test_line_breaks_typed_in_the_caption_are_sent_as_a_client_sends_them(dashboard, client, auth, x):
    created = create(dashboard, form_of([x["id"]], caption="one\r\ntwo"))
    post_id = POST_PAGE.match(created.headers["location"]).group(1)
    assert client.get(f"/v1/posts/{post_id}", headers=auth).json()["caption"] == "one\ntwo"


def test_the_same_form_sent_twice_makes_one_post(dashboard, x, workspace):
    form = form_of([x["id"]], idempotency_key="dashboard-" + "A" * 32)
    first, second = create(dashboard, form), create(dashboard, form)
    assert first.headers["location"] == second.headers["location"]
    with db.connection_context():
        assert Post.select().count() == 1
        assert MonthlyUsage.get(MonthlyUsage.workspace == workspace.id).posts == 1


def api_message(client, headers: dict, body: dict) -> tuple[int, str, str]:
    answer = client.post("/v1/upload", headers=headers, json=body)
    error = answer.json()["error"]
    return answer.status_code, error["code"], error["message"]


def refused_alike(dashboard, client, headers: dict, form: dict, body: dict) -> None:
    """The form is refused with the status, code and message the API answers the body with."""
    page = create(dashboard, form)
    status, code, message = api_message(client, headers, body)
    assert page.status_code == status
    assert alert(page) == f"Refused: {message} {code}"


def test_a_post_with_no_account_ticked_asks_to_choose_one_in_the_forms_words(dashboard, x):
    page = create(dashboard, form_of([]))
    assert page.status_code == 400
    assert alert(page) == "Refused: Choose at least one account to post to. validation_error"
    with db.connection_context():
        assert Post.select().count() == 0


def test_the_caption_hint_names_every_registered_platforms_cap(dashboard, rt):
    page = dashboard.get("/dashboard/posts/new").text
    hint = html.unescape(re.search(r'id="caption-hint">(.*?)</span>', page, re.S).group(1))
    caps = re.search(r"\((.*)\)", hint).group(1).split("; ")[0]
    shown = {}
    for group in caps.split(", "):
        titles, cap = group.rsplit(" ", 1)
        shown.update({title: cap for title in titles.split(" and ")})
    assert shown == {p.title: f"{p.rules.caption_limit:,}" for p in rt.platforms.values()}


def test_the_media_hint_names_the_registered_platforms_that_need_media(dashboard, rt):
    page = dashboard.get("/dashboard/posts/new").text
    hint = html.unescape(re.search(r'id="media-hint">(.*?)</p>', page, re.S).group(1))
    named = re.fullmatch(r"Optional: public URLs the service fetches\. (.+) needs? media\.", hint).group(1)
    assert set(re.split(r", | and ", named)) == {p.title for p in rt.platforms.values() if not p.rules.text_only}


def test_the_media_hint_says_one_platform_needs_media_and_nothing_when_none_does():
    def platform(title, text_only):
        return SimpleNamespace(title=title, rules=SimpleNamespace(text_only=text_only))

    assert media_needed({"a": platform("A", False), "b": platform("B", True)}) == "A needs media."
    assert media_needed({"a": platform("A", False), "b": platform("B", False), "c": platform("C", False)}) \
        == "A, B and C need media."
    assert media_needed({"b": platform("B", True)}) == ""


def test_a_text_post_to_instagram_is_refused_as_the_api_refuses_it(dashboard, client, auth):
    ig = connect_sandbox_account(client, auth, "instagram")
    refused_alike(dashboard, client, auth, form_of([ig["id"]]),
                  {"caption": "Hello from the dashboard", "account_ids": [ig["id"]]})


def test_a_media_url_that_is_not_https_is_refused_as_the_api_refuses_it(dashboard, client, auth, x):
    url = "http://cdn.example.com/a.jpg"
    refused_alike(dashboard, client, auth, form_of([x["id"]], media_url=[url], media_type=["image"]),
                  {"caption": "Hello from the dashboard", "account_ids": [x["id"]],
                   "media": [{"url": url, "type": "image"}]})


def test_another_workspaces_account_is_refused_as_the_api_refuses_it(dashboard, client, auth, rt, free):
    _, theirs = free
    account = connect_sandbox_account(client, theirs, "x")
    refused_alike(dashboard, client, auth, form_of([account["id"]]),
                  {"caption": "Hello from the dashboard", "account_ids": [account["id"]]})


def test_a_sandbox_post_past_the_monthly_cap_is_refused_as_the_api_refuses_it(client, rt, clock, free):
    workspace, headers = free
    account = connect_sandbox_account(client, headers, "x")
    post_month(client, headers, 30, clock)
    clock.advance(minutes=2)  # the FREE plan's 30 requests a minute
    sign_in(client, rt, workspace.id)
    refused_alike(client, client, headers, form_of([account["id"]]),
                  {"caption": "Hello from the dashboard", "account_ids": [account["id"]]})


def test_a_refused_form_keeps_what_was_typed(dashboard, x):
    page = create(dashboard, form_of([x["id"]], caption="Keep <this>", media_url=["http://a.invalid/x.jpg"],
                                     media_type=["video"]))
    assert page.status_code == 400
    assert "Keep &lt;this&gt;</textarea>" in page.text and 'value="http://a.invalid/x.jpg"' in page.text
    assert f'value="{x["id"]}" checked' in page.text


def test_a_simulated_error_fails_the_target_with_its_code(dashboard, x, rt, clock):
    created = create(dashboard, form_of([x["id"]], simulate_error="platform_rate_limited"))
    run_queue(rt, clock)
    page = dashboard.get(created.headers["location"].split("?")[0]).text
    assert '<span class="badge failed">failed</span>' in page and "<code>platform_rate_limited</code>" in page


def test_the_list_filters_by_status_and_platform(dashboard, client, auth, x, rt, clock):
    threads = connect_sandbox_account(client, auth, "threads")
    for account, error in ((x, ""), (x, "caption_too_long"), (threads, "")):
        create(dashboard, form_of([account["id"]], caption=f"to {account['platform']} {error}", simulate_error=error))
    run_queue(rt, clock)
    failed = dashboard.get("/dashboard/posts?status=failed").text
    assert "to x caption_too_long" in failed and "to threads" not in failed and "to x </a>" not in failed
    on_threads = dashboard.get("/dashboard/posts?platform=threads&status=").text
    assert "to threads" in on_threads and "to x" not in on_threads


def test_the_list_pages_with_the_apis_cursors(dashboard, x, clock):
    for n in range(23):
        create(dashboard, form_of([x["id"]], caption=f"post number {n}"))
        clock.advance(seconds=1)
    first = dashboard.get("/dashboard/posts").text
    assert "post number 22" in first and "post number 3<" in first and "post number 2<" not in first
    older = html.unescape(re.search(r'<a rel="next" href="([^"]+)"', first).group(1))
    second = dashboard.get(older).text
    assert "post number 2<" in second and "post number 0<" in second and "post number 3<" not in second
    assert 'rel="next"' not in second and "Newest posts" in second


def test_a_filter_value_the_api_does_not_take_is_refused(dashboard):
    page = dashboard.get("/dashboard/posts?status=lost")
    assert page.status_code == 400 and "is not one of" in page.text


def test_publish_at_schedules_the_post_which_shows_as_scheduled_until_its_time(dashboard, client, auth, x, rt, clock):
    created = create(dashboard, form_of([x["id"]], scheduled_at="2026-11-22T10:04"))
    assert created.status_code == 303 and created.headers["location"].endswith("?done=scheduled")
    post_id = created.headers["location"].split("/")[-1].split("?")[0]
    assert client.get(f"/v1/posts/{post_id}", headers=auth).json()["scheduled_at"] == "2026-11-22T10:04:00.000Z"
    page = dashboard.get(created.headers["location"]).text
    assert "The post was scheduled." in page and '<span class="badge scheduled">scheduled</span>' in page
    assert '<time datetime="2026-11-22T10:04:00Z">' in page and "data-follow" not in page  # nothing to follow yet
    listed = dashboard.get("/dashboard/posts?when=scheduled").text
    assert post_id in listed and '<span class="badge scheduled">scheduled</span>' in listed
    assert post_id not in dashboard.get("/dashboard/posts?when=now").text
    run_queue(rt, clock)
    assert client.get(f"/v1/posts/{post_id}", headers=auth).json()["status"] == "pending"
    clock.advance(minutes=5)
    run_queue(rt, clock)
    page = dashboard.get(f"/dashboard/posts/{post_id}").text
    assert '<span class="badge completed">completed</span>' in page and "badge scheduled" not in page


def test_a_publish_at_time_the_api_refuses_is_refused_with_its_message(dashboard, client, auth, x):
    refused_alike(dashboard, client, auth, form_of([x["id"]], scheduled_at="2020-01-01T00:00"),
                  {"caption": "Hello from the dashboard", "account_ids": [x["id"]], "sandbox": True,
                   "scheduled_at": "2020-01-01T00:00:00Z"})


def test_cancelling_asks_first_then_deletes_the_post_as_the_api_does(dashboard, client, auth, x):
    created = create(dashboard, form_of([x["id"]], scheduled_at="2026-11-23T09:00"))
    post_id = created.headers["location"].split("/")[-1].split("?")[0]
    page = dashboard.get(f"/dashboard/posts/{post_id}").text
    assert f'href="/dashboard/posts/{post_id}/cancel"' in page
    assert "<h1>Cancel this post?</h1>" in dashboard.get(f"/dashboard/posts/{post_id}/cancel").text
    done = send(dashboard, f"/dashboard/posts/{post_id}/cancel")
    assert done.status_code == 303 and done.headers["location"] == "/dashboard/posts?done=cancelled"
    assert client.get(f"/v1/posts/{post_id}", headers=auth).status_code == 404
    assert "The post was cancelled" in dashboard.get(done.headers["location"]).text


def test_a_post_a_worker_has_taken_cannot_be_cancelled_and_says_why_as_the_api_does(dashboard, client, auth, x, rt,
                                                                                       clock):
    created = create(dashboard, form_of([x["id"]]))
    post_id = created.headers["location"].split("/")[-1].split("?")[0]
    run_queue(rt, clock)
    assert 'href="/dashboard/posts/{post_id}/cancel"' not in dashboard.get(f"/dashboard/posts/{post_id}").text
    page = send(dashboard, f"/dashboard/posts/{post_id}/cancel")
    api = client.delete(f"/v1/posts/{post_id}", headers=auth)
    assert page.status_code == api.status_code == 409
    assert api.json()["error"]["message"] in html.unescape(page.text)
    assert client.get(f"/v1/posts/{post_id}", headers=auth).json()["status"] == "completed"


def upload_thread(client, auth, overrides: dict) -> dict:
    answer = client.post("/v1/upload", headers=auth, json={"caption": "part one", "platforms": ["x"],
                                                            "overrides": overrides})
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_posts_page_shows_its_per_platform_content_as_scheduled(dashboard, client, auth, x):
    post = upload_thread(client, auth, {"x": {"caption": "only on X <b>", "thread": [{"caption": "part two"}],
                                              "first_comment": "the first comment"}})
    page = dashboard.get(f"/dashboard/posts/{post['id']}").text
    section = page[page.index("<h2>Per-platform content</h2>"):page.index("<h2>Targets</h2>")]
    for shown in ("only on X &lt;b&gt;", "part two", "the first comment"):
        assert shown in section


def test_a_posts_page_links_each_published_part_of_a_thread(dashboard, client, auth, x, rt, clock):
    post = upload_thread(client, auth, {"x": {"thread": [{"caption": "part two"}]}})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{post['id']}", headers=auth).json()["targets"]
    page = dashboard.get(f"/dashboard/posts/{post['id']}").text
    for part in target["published_parts"]:
        assert f'<a href="{html.escape(part["external_url"])}">' in page
    assert "Part 2" in page
