"""The rule for a webhook's URL, as the API's 400 and the dashboard's hint say it, is the
one the server enforces: with FANOUT_INSECURE_URLS=1 http, any port and any address
(fanout/outbound/guard.py `url_rule`, docs/decisions.md#errors)."""
import html

import pytest

from fanout.outbound.guard import url_rule

from ..http.test_errors import assert_error


@pytest.fixture
def insecure_urls() -> bool:
    return True


def test_an_insecure_server_refuses_a_webhook_url_in_the_rule_it_enforces(client, auth):
    answer = client.post("/v1/webhooks", headers=auth, json={"url": "ftp://127.0.0.1/hook", "events": ["post.failed"]})
    message = assert_error(answer, 400, "validation_error")
    assert message == f"url: must be {url_rule(insecure=True)} (got 'ftp://127.0.0.1/hook')"
    assert "443" not in message and "http or https" in message


def test_an_insecure_server_takes_the_http_loopback_url_its_rule_allows(client, auth):
    answer = client.post("/v1/webhooks", headers=auth, json={"url": "http://127.0.0.1:9/hook", "events": ["post.failed"]})
    assert answer.status_code == 201, answer.text


def test_the_dashboards_hint_states_the_rule_in_force(dashboard):
    page = html.unescape(dashboard.get("/dashboard/webhooks").text)
    assert f"Must be {url_rule(insecure=True)}." in page
    assert "public addresses only" not in page and "443" not in page


def test_the_served_spec_states_the_rule_in_force(client):
    schema = client.get("/v1/openapi.json").json()["components"]["schemas"]["OutboundUrl"]
    assert schema["description"].startswith(f"Must be {url_rule(insecure=True)}.")
