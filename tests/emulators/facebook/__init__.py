"""The Facebook emulator (tests/emulators/README.md#facebook): the server and its hosts in
emulator.py, Facebook Login and Page tokens in login.py, feed posts, photos and comments
in publishing.py, videos and Reels in videos.py, what it reads of an MP4 (and small MP4
files for tests) in movie.py, the records and error bodies in state.py."""
from .emulator import HOSTS, FacebookEmulator
from .movie import movie_bytes
from .state import FacebookPage, FacebookUser

__all__ = ["HOSTS", "FacebookEmulator", "FacebookPage", "FacebookUser", "movie_bytes"]
