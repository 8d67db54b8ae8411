"""The X emulator (tests/emulators/README.md#x): the server and posts in emulator.py, OAuth
2.0 with PKCE in oauth.py, media upload in media.py, twitter-text's weighted count in
text.py, the records and error bodies in state.py."""
from .emulator import HOSTS, XEmulator, XUser

__all__ = ["HOSTS", "XEmulator", "XUser"]
