"""Mastodon's settings: none. Fanout registers its own app on each instance its users name
(fanout/models/instance_apps.py), so there is no app to configure and no FANOUT_MASTODON_
variable (docs/platforms.md#mastodon); instance hosts follow FANOUT_PLATFORM_HOSTS like
every platform's."""
from ..description import Setting

SETTINGS: tuple[Setting, ...] = ()
