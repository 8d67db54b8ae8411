"""The app registered on a server a user chose, once per (platform, server), its secret
encrypted (docs/architecture.md#connect-styles)."""
from __future__ import annotations

from peewee import IntegrityError

from ..platforms.base import App
from .db import write_transaction
from .tables.instance_app import InstanceApp


def app_on(rt, platform: str, server: str) -> App | None:
    """The app this server has on `server`, or None."""
    row = InstanceApp.get_or_none((InstanceApp.platform == platform) & (InstanceApp.server == server))
    return App(row.client_id, rt.keyring.decrypt(row.client_secret)) if row is not None else None


def keep_app(rt, platform: str, server: str, app: App) -> App:
    """`app`, registered just now, kept for every later account of `server`; the one kept
    first when another connect registered one meanwhile (that one is used, this is left)."""
    try:
        with write_transaction():
            InstanceApp.create(id=rt.new_id("app"), platform=platform, server=server, client_id=app.client_id,
                               client_secret=rt.keyring.encrypt(app.client_secret), created_at=rt.now())
    except IntegrityError:
        return app_on(rt, platform, server) or app
    return app


def forget_app(platform: str, server: str) -> None:
    """The server no longer knows the app (an unused one swept): the next connect registers again."""
    with write_transaction():
        InstanceApp.delete().where((InstanceApp.platform == platform) & (InstanceApp.server == server)).execute()
