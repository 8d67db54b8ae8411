"""Every call the service makes out: the guard on URLs clients choose, the one HTTP client,
and media fetching (docs/architecture.md)."""
