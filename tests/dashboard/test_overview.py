"""The Overview page: the plan and each cap as `GET /v1/usage` counts it, and the last posts."""
from __future__ import annotations

import re

from ..conftest import connect_sandbox_account, spend, upload_post


def figure(page, title: str) -> tuple[int, int]:
    """(used, limit) of one cap's figure."""
    found = re.search(rf"<dt>{re.escape(title)}</dt>\s*<dd>(\d+) <small>of (\d+)</small>", page.text)
    assert found, f"no figure {title!r}"
    return int(found.group(1)), int(found.group(2))


def test_each_cap_is_shown_as_get_v1_usage_counts_it(dashboard, client, auth):
    connect_sandbox_account(client, auth, "x")
    upload_post(client, auth, platforms=["x"], media=[])
    usage = client.get("/v1/usage", headers=auth).json()
    page = dashboard.get("/dashboard")
    assert "The PRO plan" in page.text
    for title, name in (("Posts this month", "posts"), ("Connected accounts", "accounts"),
                        ("Active API keys", "api_keys"), ("Webhook registrations", "webhooks"),
                        ("Requests per minute", "requests")):
        assert figure(page, title) == (usage[name]["used"], usage[name]["limit"]), title


def test_requests_are_the_workspaces_api_requests_of_the_last_minute_and_pages_count_none(dashboard, client, auth,
                                                                                           clock):
    spend(client, auth, 4)
    for _ in range(3):
        assert figure(dashboard.get("/dashboard"), "Requests per minute") == (4, 300)
    clock.advance(seconds=60)
    assert figure(dashboard.get("/dashboard"), "Requests per minute") == (0, 300)


def test_the_last_posts_are_listed_newest_first_with_their_targets(dashboard, client, auth, clock):
    connect_sandbox_account(client, auth, "x")
    for caption in ("first", "second"):
        upload_post(client, auth, platforms=["x"], media=[], caption=caption)
        clock.advance(seconds=1)
    page = dashboard.get("/dashboard").text
    assert page.index(">second<") < page.index(">first<")
    assert '<span class="badge pending">pending</span>' in page
