"""The YouTube emulator (tests/emulators/README.md#youtube): the server, its hosts and
controls in emulator.py, Google's OAuth in oauth.py, `videos.insert` (the resumable
protocol) in uploads.py, the reads and comments in data.py, the daily quota in quota.py,
the records and error bodies in state.py."""
from .emulator import HOSTS, YouTubeEmulator
from .state import GoogleUser

__all__ = ["HOSTS", "GoogleUser", "YouTubeEmulator"]
