"""Fanout: one post, fanned out to Instagram, Threads, TikTok and X."""
