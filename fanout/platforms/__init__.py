"""The platforms Fanout publishes to: the id the API uses, and the name people know."""
NAMES = {"instagram": "Instagram", "threads": "Threads", "tiktok": "TikTok", "x": "X"}
PLATFORMS = tuple(NAMES)
