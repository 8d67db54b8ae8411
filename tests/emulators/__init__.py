"""Local emulators of the platforms Fanout publishes to (tests/emulators/README.md)."""
