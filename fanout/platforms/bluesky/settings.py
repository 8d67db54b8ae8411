"""Bluesky's settings: none. Accounts sign in with their handle and an app password on
Fanout's connect page, so there is no app to register and no FANOUT_BLUESKY_ variable
(docs/platforms.md#bluesky); its hosts follow FANOUT_PLATFORM_HOSTS like every platform's."""
from ..description import Setting

SETTINGS: tuple[Setting, ...] = ()
