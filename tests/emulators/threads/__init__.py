"""The Threads emulator (tests/emulators/README.md#threads): the server in emulator.py,
what a container and its media must be in rules.py, how Threads counts text in text.py,
the users and posts in state.py; Meta's Graph machinery it shares with Instagram in
tests/emulators/graph/."""
from .emulator import HOSTS, ThreadsEmulator, ThreadsUser

__all__ = ["HOSTS", "ThreadsEmulator", "ThreadsUser"]
