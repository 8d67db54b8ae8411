"""Who consents when an emulator's authorize page is visited: the controls every
emulator's OAuth shares (tests/emulators/README.md)."""
from __future__ import annotations


class Consent:
    """`consent_as` and `deny_consent`, on an emulator holding `lock`, `_users`,
    `_consenting` (the user who consents) and `_deny`."""

    def consent_as(self, user_id: str) -> None:
        """The user who consents on the next authorizations."""
        with self.lock:
            if str(user_id) not in self._users:
                raise KeyError(f"no user {user_id}")
            self._consenting = str(user_id)

    def deny_consent(self, deny: bool = True) -> None:
        """While on, the user refuses every authorization (error=access_denied)."""
        self._deny = deny
