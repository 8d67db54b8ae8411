"""Whether this server can run a platform's live flows (connect, refresh): one rule for the
connect flow and the token refresh (docs/architecture.md#connect-styles)."""
from __future__ import annotations

from .base import CREDENTIALS, SERVER, App, connect_style


def live_setup(rt, platform: str) -> tuple[object, App | None] | None:
    """(adapter, app) when the server can run this platform's live flows, else None. An
    OAuth platform needs its app (FANOUT_<P>_CLIENT_ID/SECRET); a credentials platform has
    none registered with it, and a server-style one registers its own on each server the
    users name (fanout/models/instance_apps.py): their app is None here."""
    adapter = rt.platforms[platform].adapter
    if adapter is not None and connect_style(adapter) in (CREDENTIALS, SERVER):
        return adapter, None
    app = rt.settings.platform_apps.get(platform)
    return (adapter, app) if adapter is not None and app is not None else None
