"""Fanout: one post, fanned out to Instagram, Threads, TikTok and X."""
from .no_test_client import defer_test_client

defer_test_client()  # before anything imports Connexion
