"""/docs: Swagger UI from the installed package, readable without a key, linked from /."""
from __future__ import annotations

import re

import pytest

from fanout.spec import load

OPERATIONS = [
    (method, path) for path, item in load()["paths"].items() for method in item if method in ("get", "post", "delete")
]


def test_docs_is_served_without_a_key(client):
    page = client.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")


def test_docs_loads_nothing_from_another_origin(client):
    page = client.get("/docs")
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(s.startswith("/") for s in sources), sources
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for source in sources:
        assert client.get(source).status_code == 200, source


def test_docs_points_swagger_ui_at_the_served_spec(client):
    assert '"/v1/openapi.json"' in client.get("/docs/init.js").text


def test_only_the_bundles_own_files_are_served(client):
    assert client.get("/docs/static/swagger-ui.css").status_code == 200
    missing = client.get("/docs/static/index.j2")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_the_index_page_links_the_docs_and_the_spec(client):
    page = client.get("/")
    assert page.status_code == 200
    assert 'href="/docs"' in page.text and 'href="/v1/openapi.json"' in page.text


def test_the_index_page_links_the_dashboard(client):
    assert 'href="/dashboard"' in client.get("/").text


def test_a_favicon_is_served_and_every_page_links_it(client):
    import io

    from PIL import Image

    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
    assert Image.open(io.BytesIO(icon.content)).format == "ICO"
    for path in ("/", "/dashboard/sign-in"):
        assert '<link rel="icon" href="/favicon.ico">' in client.get(path).text, path


@pytest.mark.slow
def test_docs_renders_every_operation_in_a_browser(servers, page):
    server = servers("api")
    page.goto(f"{server.url}/docs")
    # Swagger UI builds these from the spec in the browser: the page really rendered.
    page.locator("h2.title", has_text="Fanout API").wait_for()
    page.locator(".opblock").first.wait_for()
    rendered = page.locator(".opblock-summary").evaluate_all(
        "blocks => blocks.map(b => [b.querySelector('.opblock-summary-method').textContent,"
        " b.querySelector('[data-path]').getAttribute('data-path')])")
    assert {(m.upper(), p) for m, p in OPERATIONS} <= {tuple(r) for r in rendered}
