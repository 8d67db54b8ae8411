"""Fanout: one post, fanned out to Bluesky, Facebook, Instagram, LinkedIn, Mastodon, Pinterest, Threads, TikTok, X and YouTube."""
from importlib.metadata import PackageNotFoundError, version

from .no_test_client import defer_test_client

defer_test_client()  # before anything imports Connexion

try:
    __version__ = version("fanout")  # setup.cfg's, the one place it is written
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "unknown"
