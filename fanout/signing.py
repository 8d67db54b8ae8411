"""Signatures on webhook deliveries (SPEC.md section 6, DECISIONS.md "Additive fields").

Two schemes, both over the exact body bytes that are sent:

- `X-Service-Signature: sha256=<hex>`, GitHub style, keyed with the registration's secret
  string exactly as the register response showed it (SPEC.md). It covers no timestamp.
- The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
  which put the message id and the attempt's timestamp inside the MAC, so receivers can
  reject replays and dedupe (reference/reliability.md 2.1).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

SERVICE_SIGNATURE_HEADER = "X-Service-Signature"
SECRET_PREFIX = "whsec_"


def service_signature(secret: str, body: bytes) -> str:
    """`sha256=` + hex HMAC-SHA256 of `body`, keyed with the UTF-8 bytes of `secret`."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_service_signature(secret: str, body: bytes, header: str | None) -> bool:
    """Whether `header` is the service signature of `body`; compared in constant time."""
    if not isinstance(header, str):
        return False
    expected = service_signature(secret, body).encode("ascii")
    # Bytes, not str: compare_digest refuses non-ASCII str, and a forged header may hold any.
    return hmac.compare_digest(expected, header.encode("utf-8", "replace"))


def standard_webhook_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """`webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` for one attempt.

    The MAC is HMAC-SHA256 over `f"{message_id}.{timestamp}."` + body, keyed with the
    base64-decoded part of the `whsec_` secret. `message_id` stays the same on every retry;
    `timestamp` (unix seconds) is the attempt's.
    """
    if "." in message_id or not message_id:
        # The spec forbids "." in the id: it separates the signed parts.
        raise ValueError("message id must be non-empty and must not contain '.'")
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
        raise ValueError("timestamp must be a non-negative integer of unix seconds")
    signed = f"{message_id}.{timestamp}.".encode("ascii") + body
    digest = hmac.new(_secret_key(secret), signed, hashlib.sha256).digest()
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": "v1," + base64.b64encode(digest).decode("ascii"),
    }


def _secret_key(secret: str) -> bytes:
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"secret must start with {SECRET_PREFIX!r}")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX):], validate=True)
    except binascii.Error:
        raise ValueError("secret is not base64 after its prefix") from None
    if not key:
        raise ValueError("secret is empty")
    return key
