"""The TikTok emulator (tests/emulators/README.md#tiktok): the server in emulator.py, Login
Kit in oauth.py, posting and uploads in posting.py, the records and envelopes in state.py."""
from .emulator import HOSTS, TikTokEmulator, TikTokUser

__all__ = ["HOSTS", "TikTokEmulator", "TikTokUser"]
