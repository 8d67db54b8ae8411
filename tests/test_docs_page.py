"""/docs: Swagger UI from the installed package, readable without a key, linked from /."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from fanout.spec import load

CHROMIUM = shutil.which("chromium")
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


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_docs_renders_every_operation_in_headless_chromium(servers, tmp_path):
    server = servers("api")
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'chromium'}",
         # Nothing but this loopback server: every host name fails to resolve.
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
         "--virtual-time-budget=15000", "--dump-dom", f"{server.url}/docs"],
        capture_output=True, text=True, timeout=90,
    ).stdout
    # Swagger UI builds these from the spec in the browser: the page really rendered.
    assert re.search(r'<h2 class="title">Fanout API', dom), dom[:2000]
    rendered = set(re.findall(r'opblock-summary-method">(\w+)<.*?data-path="([^"]+)"', dom))
    assert {(m.upper(), p) for m, p in OPERATIONS} <= rendered
