"""The Bluesky emulator (tests/emulators/README.md#bluesky): the server and its hosts in
emulator.py, identity and app-password sessions in sessions.py, the repository (blobs,
records, post validation, write limits) in repo.py, the video service in video.py, text
and facet rules in text.py, the records and error bodies in state.py."""
from .emulator import HOSTS, PDS_HOST, BlueskyEmulator
from .state import BlueskyAccount

__all__ = ["HOSTS", "PDS_HOST", "BlueskyAccount", "BlueskyEmulator"]
