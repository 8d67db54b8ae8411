"""What the live, end-to-end platform tests share: the emulators of X, Instagram and TikTok
as module fixtures with their apps, a connect flow followed in a browser to its account,
an upload through the API, and an account as stored."""
from __future__ import annotations

import pytest
import requests

from fanout.models import Account, db
from fanout.platforms.base import App

from ..emulators.instagram import InstagramEmulator
from ..emulators.tiktok import TikTokEmulator
from ..emulators.x import XEmulator
from ..threads_world import connect

THREADS_APP = App("app-id", "app-secret")
X_APP = App("x-client-id", "x-client-secret")
INSTAGRAM_APP = App("ig-app-id", "ig-app-secret")
TIKTOK_APP = App("tt-client-key", "tt-client-secret")


@pytest.fixture(scope="module")
def x_server():
    with XEmulator(X_APP.client_id, X_APP.client_secret) as server:
        yield server


@pytest.fixture(scope="module")
def instagram_server():
    with InstagramEmulator(INSTAGRAM_APP.client_id, INSTAGRAM_APP.client_secret) as server:
        yield server


@pytest.fixture(scope="module")
def tiktok_server():
    with TikTokEmulator(TIKTOK_APP.client_id, TIKTOK_APP.client_secret) as server:
        yield server


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the media server (and a webhook receiver) are http on loopback


def connected_account(browser, live: str, headers: dict, platform: str) -> str:
    """The id of the account the connect flow of `platform` lands connected."""
    query = connect(browser, live, headers, platform)
    assert query["status"] == "connected", query
    return query["account_id"]


def uploader(platform: str):
    """`upload(live, headers, caption, media_items, **body)`: a post to `platform` through the
    API, answered with `expect` (201 unless told), as its JSON."""
    def upload(live, headers, caption="hello from fanout", media_items=(), expect=201, **body) -> dict:
        answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
            "caption": caption, "platforms": [platform], "media": list(media_items), **body})
        assert answer.status_code == expect, answer.text
        return answer.json()

    return upload


def stored(account_id) -> Account:
    with db.connection_context():
        return Account.get_by_id(account_id)
