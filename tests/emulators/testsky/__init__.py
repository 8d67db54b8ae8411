"""The TestSky emulator (tests/emulators/README.md#testsky): the platform the tests define
to exercise the credentials connect style, signing in the way Bluesky's createSession does
(an identifier and an app password for two tokens)."""
from .emulator import HOSTS, SkyAccount, TestSkyEmulator

__all__ = ["HOSTS", "SkyAccount", "TestSkyEmulator"]
