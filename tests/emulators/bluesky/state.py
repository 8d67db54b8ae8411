"""What the Bluesky emulator remembers (accounts, sessions, blobs, records, video jobs) and
the one error shape every XRPC call answers, `{"error": "<Name>", "message": "<text>"}`
(tests/emulators/README.md#bluesky)."""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..wire import Refusal, Response

POST = "app.bsky.feed.post"
# A record key of type `tid`: 13 characters of base32-sortable, the first one of 16.
TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class BlueskyAccount:
    """One account: its DID and handle, the app passwords it made, and its main password
    (refused with AuthFactorTokenRequired when `two_factor`, as email 2FA does)."""

    did: str
    handle: str
    app_passwords: tuple[str, ...] = ()
    main_password: str = ""
    email: str = ""
    email_confirmed: bool = True
    two_factor: bool = True
    status: str | None = None  # takendown | suspended | deactivated; None: active
    pds_host: str | None = None  # None: the emulator's own PDS host

    def __post_init__(self):
        object.__setattr__(self, "app_passwords", tuple(self.app_passwords))
        if not self.email:
            object.__setattr__(self, "email", f"{self.handle.split('.')[0]}@mail.invalid")


@dataclass
class RefreshToken:
    """A refresh JWT's server side: rotated once used (a grace period may let it be used
    again), revoked by `revoke_refresh`."""

    jti: str
    did: str
    expires_at: dt.datetime
    rotated_at: dt.datetime | None = None
    revoked: bool = False


@dataclass(frozen=True)
class Blob:
    cid: str
    did: str
    mime_type: str
    size: int
    sha256: str
    created_at: dt.datetime
    kind: str | None = None  # sniffed: jpeg, png, gif, webp, mp4...
    duration: float | None = None  # an MP4's, from its mvhd

    def ref(self) -> dict:
        """The blob object a record carries."""
        return {"$type": "blob", "ref": {"$link": self.cid}, "mimeType": self.mime_type, "size": self.size}


@dataclass(frozen=True)
class Record:
    uri: str
    cid: str
    did: str
    collection: str
    rkey: str
    value: dict
    indexed_at: dt.datetime

    @property
    def text(self) -> str:
        return self.value.get("text", "")

    @property
    def parent(self) -> str | None:
        """The uri of the post this one replies to."""
        reply = self.value.get("reply")
        return reply["parent"]["uri"] if isinstance(reply, dict) else None

    @property
    def root(self) -> str | None:
        reply = self.value.get("reply")
        return reply["root"]["uri"] if isinstance(reply, dict) else None

    @property
    def embed(self) -> dict | None:
        return self.value.get("embed")

    def view(self) -> dict:
        return {"uri": self.uri, "cid": self.cid, "value": self.value}


@dataclass
class VideoJob:
    """A video sent to the video service; its state comes from the clock."""

    job_id: str
    did: str
    sha256: str
    size: int
    created_at: dt.datetime
    ready_at: dt.datetime
    blob: Blob | None = None  # stored on the PDS once COMPLETED
    failure: tuple[str, str] | None = None  # (failureCode, message): FAILED once processed


# --- identifiers ------------------------------------------------------------------------------


def cid_of(data: bytes, codec: int) -> str:
    """A CIDv1 in base32 (multibase `b`) over SHA-256: codec 0x55 (raw) gives the
    `bafkrei...` of blobs, 0x71 (dag-cbor) the `bafyrei...` of records."""
    binary = bytes([0x01, codec, 0x12, 0x20]) + hashlib.sha256(data).digest()
    return "b" + base64.b32encode(binary).decode("ascii").lower().rstrip("=")


def blob_cid(data_sha256: bytes) -> str:
    binary = bytes([0x01, 0x55, 0x12, 0x20]) + data_sha256
    return "b" + base64.b32encode(binary).decode("ascii").lower().rstrip("=")


def record_cid(value: Any) -> str:
    """[U] A record's CID hashes its canonical JSON, not its DAG-CBOR as a PDS does: the
    same record always has the same CID, a changed one another."""
    return cid_of(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"), 0x71)


def tid(micros: int, clock_id: int = 0) -> str:
    """The TID of a moment (microseconds since the epoch) and a clock id (10 bits)."""
    number = (micros << 10) | (clock_id & 0x3FF)
    out = ""
    for _ in range(13):
        number, digit = divmod(number, 32)
        out = TID_ALPHABET[digit] + out
    return out


# --- answers ----------------------------------------------------------------------------------


def xrpc_body(name: str, message: str) -> dict:
    return {"error": name, "message": message}


def xrpc_response(status: int, name: str, message: str, headers: dict | None = None) -> Response:
    return Response.json(status, xrpc_body(name, message), headers)


class XrpcError(Refusal):
    """An XRPC error answer, raised from a handler."""

    def __init__(self, status: int, name: str, message: str, headers: dict | None = None):
        self.status, self.name, self.message = status, name, message
        super().__init__(xrpc_response(status, name, message, headers))


def invalid_request(message: str) -> XrpcError:
    return XrpcError(400, "InvalidRequest", message)


def as_time(instant: dt.datetime) -> str:
    """2026-11-22T10:00:00.000Z, as the PDS writes times."""
    instant = instant.astimezone(dt.timezone.utc)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


__all__ = ["POST", "TID_ALPHABET", "BlueskyAccount", "Blob", "Record", "RefreshToken", "VideoJob", "XrpcError",
           "as_time", "blob_cid", "cid_of", "invalid_request", "record_cid", "tid", "xrpc_body", "xrpc_response"]
