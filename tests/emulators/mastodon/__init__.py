"""The Mastodon emulator (tests/emulators/README.md#mastodon): one instance on any domain;
the server, the instance documents and the rate limits in emulator.py, apps and OAuth in
oauth.py, media in media.py, statuses in statuses.py, counting and rendering in text.py,
the records and the error body in state.py."""
from .emulator import DOMAIN, MastodonEmulator
from .state import MastodonAccount

__all__ = ["DOMAIN", "MastodonAccount", "MastodonEmulator"]
