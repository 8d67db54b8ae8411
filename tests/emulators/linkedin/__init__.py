"""The LinkedIn emulator (tests/emulators/README.md#linkedin): the server, its hosts and the
version check in emulator.py, OAuth 2.0 and userinfo in oauth.py, the Images and Videos
APIs in media.py, the Posts API in posts.py, the little text format in text.py, the records
and error bodies in state.py."""
from .emulator import HOSTS, LinkedInEmulator
from .state import LinkedInMember

__all__ = ["HOSTS", "LinkedInEmulator", "LinkedInMember"]
