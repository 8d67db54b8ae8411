"""The Instagram emulator (tests/emulators/README.md#instagram): the server in emulator.py,
what a caption and its media must be in rules.py, how Instagram counts a caption in
text.py, the users and posts in state.py; Meta's Graph machinery it shares with Threads in
tests/emulators/graph/."""
from .emulator import HOSTS, InstagramEmulator, InstagramUser

__all__ = ["HOSTS", "InstagramEmulator", "InstagramUser"]
