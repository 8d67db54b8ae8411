"""The platforms Fanout publishes to."""
PLATFORMS = ("instagram", "threads", "tiktok", "x")
