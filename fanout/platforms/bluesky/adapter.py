"""Bluesky (the AT Protocol): signing in with an app password, the session refresh, and
posts written into the account's repository (docs/platforms.md#bluesky).

Identity: a handle names a DID, the DID's document the account's PDS, where every call
goes (identity.py, with the sign-in and the session refresh).

A post is published in steps over saved state, part after part (a thread's parts reply
to the first and to the one before):
1. each image is uploaded to the PDS, a video to the video service and read back until
   its job names its blob (media.py);
2. the record, with its facets (links, mentions, hashtags in UTF-8 byte offsets), is
   written by `createRecord` under a record key (a TID) chosen and saved before the call;
3. `external_url` is `https://bsky.app/profile/{did}/post/{rkey}` of the first part.

Never twice: after a call whose outcome is unknown (no answer, a 5xx; the PDS answers a
record key in use with 500) the next step asks `getRecord` for the saved key first: found,
the part is out; RecordNotFound, it is written again under the same key, so a retry makes
the same record or finds it. An answer that breaks the contract (a 200 that is not JSON, a
record's uri that is not the one written: fanout/platforms/contract.py) fails the target at
once; a record's own answer is read back first, in the same step, and never written again.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from ...target_errors import AUTH, CAPTION, MEDIA, UNKNOWN
from ..base import CREDENTIALS, AuthFailed, Done, Field, Job, Outcome, Result, Step, Stop, failed
from ..contract import UnusableAnswer, document, identifier, may_be_out
from ..http import PlatformUnreachable
from .errors import ENVELOPE, MAPPING
from .identity import ENTRYWAY, PLC, TITLE, pds_of, refresh, refresh_due, resolve_handle, sign_in
from .media import VIDEO, MediaSteps
from .rules import RULES
from .text import facets, mentioned

HOSTS = (ENTRYWAY, PLC, VIDEO)  # and each account's PDS, named by its DID document
UPLOADS_MEDIA = True
CONNECT_STYLE = CREDENTIALS
fields = (
    Field("identifier", "handle", hint="Your Bluesky handle, such as alice.bsky.social."),
    Field("password", "app password", secret=True,
          hint="Make one in Bluesky's settings, under Privacy and security, App passwords."),
)

POST = "app.bsky.feed.post"
CID = re.compile(r"b[a-z2-7]{8,}")  # CIDv1 in base32, as records are named
TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"


def tid(moment: _dt.datetime, clock_id: int) -> str:
    """A record key of type `tid`: microseconds since the epoch and a 10-bit clock id, in
    base32-sortable (13 characters)."""
    micros = int(moment.replace(tzinfo=_dt.timezone.utc).timestamp() * 1_000_000)
    number_ = (micros << 10) | (clock_id & 0x3FF)
    out = ""
    for _ in range(13):
        number_, digit = divmod(number_, 32)
        out = TID_ALPHABET[digit] + out
    return out


def permalink(did: str, rkey: str) -> str:
    return f"https://bsky.app/profile/{did}/post/{rkey}"


def _time(moment: _dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


class _Posting(MediaSteps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `pds`: the account's PDS, from its DID document;
    - `parts`: per part written or being written, in order: {rkey, created_at, embed?,
      video?, sent?, ref?: {uri, cid}} (`ref` once the record is known to exist).
    """

    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES
    accepted = (200,)

    def unusable(self, error: UnusableAnswer) -> Done:
        done = super().unusable(error)
        return Done(dataclasses.replace(done.outcome, error_message=self.where(done.outcome.error_message or "")))

    def next(self) -> Result:
        todo = self.job.parts
        done = self.state.get("parts", [])
        if len(done) == len(todo) and all(p.get("ref") for p in done):
            return self.finish()
        if not self.state:
            self.check(todo)
        if "pds" not in self.state:
            self.state["pds"] = self.pds()
            self.state["parts"] = []
        for index, todo_part in enumerate(todo):
            self.index = index
            if index == len(self.state["parts"]):
                self.state["parts"].append({"rkey": self.rkey(index)})
            part = self.state["parts"][index]
            if part.get("ref"):
                continue
            if "embed" not in part and todo_part.media:
                waiting = self.embed(part, tuple(todo_part.media))
                if waiting is not None:
                    return waiting
            self.write(part, todo_part.caption)
        return self.finish()

    def finish(self) -> Done:
        first = self.state["parts"][0]
        return Done(Outcome(external_url=permalink(self.job.user_id, first["rkey"])))

    def check(self, todo) -> None:
        """Each further part meets the rules before anything is sent (the engine checked the first)."""
        for index, part in enumerate(todo[1:], start=2):
            problem = RULES.caption_problem(part.caption)
            if problem:
                raise Stop(failed(CAPTION, f"thread part {index}: {problem}"))
            problem = RULES.media_problem([dict(m) for m in part.media])
            if problem:
                raise Stop(failed(MEDIA, f"thread part {index}: {problem}"))

    def pds(self) -> str:
        try:
            return pds_of(self.step.http, self.job.user_id)
        except PlatformUnreachable as e:
            raise Stop(self.retry(e.message)) from None
        except AuthFailed as e:
            raise Stop(failed(AUTH, f"{TITLE}: {e.reason}")) from None

    def rkey(self, index: int) -> str:
        """A TID of now, the part's index added in microseconds, and a clock id of the
        target's: saved before the record is written."""
        clock_id = int(hashlib.sha256(self.job.target_id.encode()).hexdigest(), 16) % 1024
        return tid(self.now + _dt.timedelta(microseconds=index), clock_id)

    def parts_out(self) -> tuple[str, ...]:
        out = []
        for part in self.state.get("parts", []):
            if not part.get("ref"):
                break  # the parts are written in order: the one without a ref is being written
            out.append(permalink(self.job.user_id, part["rkey"]))
        return tuple(out)

    def where(self, text: str) -> str:
        """How a failure names the part of a thread it happened to."""
        if len(self.job.parts) == 1:
            return text
        out = [permalink(self.job.user_id, p["rkey"]) for p in self.state.get("parts", []) if p.get("ref")]
        published = f" (published already: {', '.join(out)})" if out else ""
        return f"thread part {self.index + 1}: {text}{published}"

    def fail(self, outcome: Outcome) -> Stop:
        return Stop(failed(outcome.error_code or UNKNOWN, self.where(outcome.error_message or "")))

    # -- the record

    def write(self, part: dict, caption: str) -> None:
        """Write the part's record under its saved key; or find it, when an earlier step may
        have written it."""
        if part.get("sent"):
            found = self.find(part["rkey"])
            if found is not None:
                self.settle(part, found)
                return
        record: dict[str, Any] = {"$type": POST, "text": caption,
                                  "createdAt": part.setdefault("created_at", _time(self.now))}
        found_facets = facets(caption, self.resolve_mentions(caption))
        if found_facets:
            record["facets"] = found_facets
        if part.get("embed"):
            record["embed"] = part["embed"]
        if self.index > 0:
            done = self.state["parts"]
            record["reply"] = {"root": done[0]["ref"], "parent": done[self.index - 1]["ref"]}
        part["sent"] = True
        self.saved()
        what = "the post's record"
        try:
            body = self.call("POST", "/xrpc/com.atproto.repo.createRecord", what, json_body={
                "repo": self.job.user_id, "collection": POST, "rkey": part["rkey"], "record": record},
                special=_lost_blob)
            self.settle(part, self.reference(body, part["rkey"], what))
        except _LostBlob:
            part.pop("embed", None)
            part.pop("sent", None)
            raise Stop(self.retry(f"{TITLE} no longer had an uploaded file; uploading it again")) from None
        except UnusableAnswer as e:
            # The record may be written: `getRecord` on its key says, now; never written again.
            self.settle(part, self.read_back(e, lambda: self.find(part["rkey"]),
                                             missing="its record is not there, so nothing was published"))

    def reference(self, body: Mapping[str, Any], rkey: str, what: str) -> dict:
        """{uri, cid} of the record written under `rkey`, as the PDS names it: the uri must be
        the one written."""
        uri = identifier(body, "uri", what, re.compile(re.escape(f"at://{self.job.user_id}/{POST}/{rkey}")))
        return {"uri": uri, "cid": identifier(body, "cid", what, CID)}

    def settle(self, part: dict, ref: dict) -> None:
        part["ref"] = ref
        part.pop("sent", None)
        part.pop("embed", None)  # written: the blobs are the record's now
        self.saved()

    def find(self, rkey: str) -> dict | None:
        """The record under `rkey` if the PDS has it ({uri, cid}), else None."""
        response = self.send("GET", f"{self.state['pds']}/xrpc/com.atproto.repo.getRecord",
                             params={"repo": self.job.user_id, "collection": POST, "rkey": rkey})
        if response.status == 200:
            what = "the post's record read back"
            try:
                body = document(response, what, self.job.access_token)
                return self.reference({"uri": f"at://{self.job.user_id}/{POST}/{rkey}", **body}, rkey, what)
            except UnusableAnswer as e:
                raise e.after(may_be_out(TITLE)) from None
        body = response.json()
        if response.status == 400 and isinstance(body, dict) and body.get("error") == "RecordNotFound":
            return None
        raise Stop(self.retry(f"{TITLE} could not say whether the post exists: {ENVELOPE.read(response).raw}"))

    def resolve_mentions(self, caption: str) -> dict[str, str]:
        """handle -> DID for each handle the caption mentions that has an account."""
        dids = {}
        for handle in mentioned(caption):
            try:
                did = resolve_handle(self.step.http, handle)
            except PlatformUnreachable as e:
                raise Stop(self.retry(e.message)) from None
            if did is not None:
                dids[handle] = did
        return dids

    # -- calls (fanout/platforms/steps.py `call`)

    def call(self, method: str, path: str, what: str | None = None, **kwargs) -> Any:
        """A call to the PDS when `path` is a path, elsewhere when it is a URL."""
        url = path if path.startswith("https://") else f"{self.state['pds']}{path}"
        return super().call(method, url, what, **kwargs)

    def refusal(self, rule, outcome: Outcome, answer) -> Stop:
        if rule is not None and rule.transient:
            return super().refusal(rule, outcome, answer)
        return self.fail(outcome)

    def reset_at(self, headers: dict) -> Any:
        return headers.get("ratelimit-reset")


class _LostBlob(Exception):
    """The PDS no longer has a blob the record names (unreferenced blobs are swept)."""


def _lost_blob(response, answer) -> None:
    if answer.error == "BlobNotFound":
        raise _LostBlob()


__all__ = ["HOSTS", "permalink", "publish", "refresh", "refresh_due", "sign_in", "tid"]
