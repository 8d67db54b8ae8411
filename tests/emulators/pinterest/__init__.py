"""The Pinterest emulator (tests/emulators/README.md#pinterest): the server, its hosts and
controls in emulator.py, OAuth 2.0 and the account in oauth.py, boards and Pins in pins.py,
video uploads and the upload store in media.py, the records and error bodies in state.py."""
from .emulator import HOSTS, PinterestEmulator
from .state import Board, PinterestUser

__all__ = ["HOSTS", "Board", "PinterestEmulator", "PinterestUser"]
