"""GET /metrics in one process: what each counter counts, the queue gauges, the token.

Each test's runtime has a registry of its own, so counts start at zero. The same metrics
summed over several processes: tests/ops/test_monitoring_processes.py.
"""
from dataclasses import replace

import pytest
from fanout.outbound.client import Outbound

from ..conftest import Scrape, assert_error, bearer, run_queue, spend, upload_post

TOKEN = "metrics-token-0123456789abcdef"


def scrape(client, headers=None) -> Scrape:
    answer = client.get("/metrics", headers=headers or {})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return Scrape(answer.text)


def test_a_published_post_moves_the_post_target_and_latency_metrics(client, auth, accounts, rt, clock):
    before = scrape(client)
    assert before.value("fanout_posts_created_total", mode="sandbox") == 0
    upload_post(client, auth)  # three targets: x, threads, instagram
    clock.advance(seconds=4)  # the worker takes them 4 s after the post was created
    run_queue(rt, clock)
    after = scrape(client)
    assert after.value("fanout_posts_created_total", mode="sandbox") == 1
    for platform in ("x", "threads", "instagram"):
        assert after.value("fanout_targets_finished_total", platform=platform, status="published") == 1
        latency = dict(platform=platform, status="published")
        assert after.value("fanout_publish_latency_seconds_count", **latency) == 1
        assert after.value("fanout_publish_latency_seconds_sum", **latency) == 4.0
        assert after.value("fanout_publish_latency_seconds_bucket", le="2.5", **latency) == 0
        assert after.value("fanout_publish_latency_seconds_bucket", le="5.0", **latency) == 1


def test_failed_targets_are_counted_by_status(client, auth, accounts, rt, clock):
    upload_post(client, auth, simulate_error="platform_rejected_media")
    run_queue(rt, clock)
    after = scrape(client)
    assert after.value("fanout_targets_finished_total", platform="x", status="failed") == 1
    assert after.value("fanout_targets_finished_total", platform="x", status="published") == 0


def test_a_refused_upload_creates_no_post(client, auth):
    assert client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]}).status_code == 422
    assert scrape(client).value("fanout_posts_created_total", mode="sandbox") == 0


def test_requests_are_counted_by_the_specs_route_and_status(client, auth):
    client.get("/v1/posts/post_01JDQ5W9ZP4M3V6R8T2K7XG1HB", headers=auth)
    client.get("/v1/posts/anything-else", headers=auth)
    client.get("/no/such/route")
    client.request("BREW", "/v1/posts", headers=auth)
    after = scrape(client)
    assert after.value("fanout_http_requests_total", method="GET", route="/v1/posts/{id}", status="404") == 2
    assert after.value("fanout_http_requests_total", method="GET", route="unmatched", status="404") == 1
    # A method HTTP does not define is one label value, whatever its name.
    assert after.value("fanout_http_requests_total", method="OTHER", route="/v1/posts", status="405") == 1
    assert after.value("fanout_http_request_duration_seconds_count", method="GET", route="/v1/posts/{id}") == 2
    assert not [name for name, labels in after.samples if ("route", "/v1/posts/anything-else") in labels]


def test_429s_are_counted_by_plan(client, free):
    _, headers = free  # FREE: 30 requests a minute
    spend(client, headers, 32)
    after = scrape(client)
    assert after.value("fanout_rate_limited_requests_total", plan="FREE") == 2
    assert after.value("fanout_http_requests_total", method="GET", route="/v1/accounts", status="429") == 2


def test_queue_depths_are_read_from_the_database(client, auth, accounts, rt, clock):
    upload_post(client, auth)
    waiting = scrape(client)
    assert waiting.value("fanout_targets", status="pending") == 3
    assert waiting.value("fanout_targets", status="processing") == 0
    run_queue(rt, clock)
    assert scrape(client).value("fanout_targets", status="pending") == 0


def test_a_scheduled_posts_targets_join_the_backlog_when_their_time_comes(client, auth, accounts, clock):
    upload_post(client, auth, scheduled_at="2026-11-22T11:00:00Z")
    assert scrape(client).value("fanout_targets", status="pending") == 0
    clock.advance(hours=1)
    assert scrape(client).value("fanout_targets", status="pending") == 3


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the webhook receiver is an http endpoint on loopback


@pytest.fixture
def receiver(rt, resolver, httpserver):
    """A loopback webhook endpoint; the local-development setting lets the service reach it."""
    resolver.names["localhost"] = ["127.0.0.1"]
    rt.outbound = Outbound(resolve=rt.resolve, insecure=True, deadline=2.0)
    return httpserver


def test_webhook_attempts_are_counted_by_outcome_and_result(client, auth, account, rt, clock, receiver):
    receiver.expect_ordered_request("/hook").respond_with_data("busy", status=503)
    receiver.expect_ordered_request("/hook").respond_with_data("ok")
    hook = {"url": receiver.url_for("/hook"), "events": ["post.completed"]}
    assert client.post("/v1/webhooks", headers=auth, json=hook).status_code == 201
    client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]})
    run_queue(rt, clock)
    retried = scrape(client)
    assert retried.value("fanout_deliveries_due") == 0
    assert retried.value("fanout_webhook_attempts_total", outcome="retrying", result="5xx") == 1
    clock.advance(seconds=60)  # the second attempt is due a minute after the first
    assert scrape(client).value("fanout_deliveries_due") == 1
    run_queue(rt, clock)
    after = scrape(client)
    assert after.value("fanout_webhook_attempts_total", outcome="succeeded", result="2xx") == 1
    assert after.value("fanout_webhook_attempt_duration_seconds_count", outcome="succeeded") == 1
    assert after.value("fanout_deliveries_due") == 0


def test_metrics_are_open_when_no_token_is_set(client):
    assert client.get("/metrics").status_code == 200


@pytest.fixture
def token(rt) -> str:
    """FANOUT_METRICS_TOKEN set on this server."""
    rt.settings = replace(rt.settings, metrics_token=TOKEN)
    return TOKEN


@pytest.mark.parametrize("headers", [
    {},
    bearer("metrics-token-0123456789abcdeX"),
    bearer("metrics-token"),
    {"Authorization": f"Basic {TOKEN}"},
], ids=["none", "wrong", "prefix", "not-bearer"])
def test_a_set_token_is_required(client, token, headers):
    answer = client.get("/metrics", headers=headers)
    assert_error(answer, 401, "invalid_metrics_token")
    assert answer.headers["www-authenticate"] == "Bearer"


def test_an_api_key_is_not_the_metrics_token(client, token, auth):
    assert_error(client.get("/metrics", headers=auth), 401, "invalid_metrics_token")


def test_the_set_token_opens_the_metrics(client, token):
    client.get("/metrics")
    assert scrape(client, bearer(token)).value(
        "fanout_http_requests_total", method="GET", route="/metrics", status="401") == 1


def test_the_documented_example_shows_metrics_the_server_shows(client, auth, account):
    from prometheus_client.parser import text_string_to_metric_families

    from fanout.spec import load

    example = load()["paths"]["/metrics"]["get"]["responses"]["200"]["content"]["text/plain"]["example"]
    client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]})
    live = {(f.name, f.type) for f in text_string_to_metric_families(client.get("/metrics").text)}
    documented = {(f.name, f.type) for f in text_string_to_metric_families(example)}
    assert documented and documented <= live
