"""An account's repository on its PDS as the Bluesky emulator keeps it: blobs
(`uploadBlob`), records (`createRecord`, `applyWrites`, `deleteRecord`, `getRecord`,
`listRecords`), the validation of `app.bsky.feed.post` records, and the write limits
(tests/emulators/README.md#bluesky)."""
from __future__ import annotations

import datetime as dt
import hashlib
import re
from typing import Any

from ..media import sniff
from ..wire import Request, Response
from .sessions import rate_headers
from .state import (
    POST, Blob, BlueskyAccount, Record, XrpcError, as_time, blob_cid, invalid_request, record_cid, tid,
)
from .text import covered, link_matches, tag_matches, tag_problem, text_problem

TID = re.compile(r"[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}")
RKEY = re.compile(r"[A-Za-z0-9._:~-]{1,512}")
NSID = re.compile(r"[a-zA-Z]([a-zA-Z0-9-]{0,62})?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})?)+")
DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
LANG = re.compile(r"[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8})*|i-[a-zA-Z]+")
# Write points per account: 5,000 an hour and 35,000 a day; a create costs 3, an update 2,
# a delete 1 (the reference PDS).
WRITE_LIMITS = ((5000, dt.timedelta(hours=1)), (35_000, dt.timedelta(days=1)))
POINTS = {"create": 3, "update": 2, "delete": 1}
UPLOADS_PER_DAY = 1000
IMAGES_MOST, LANGS_MOST = 4, 3
VIDEO_MAX_SIZE = 100_000_000  # app.bsky.embed.video's maxSize (Lexicon, before "formerly 100mb")
EMBEDS = ("app.bsky.embed.images", "app.bsky.embed.video", "app.bsky.embed.external", "app.bsky.embed.record",
          "app.bsky.embed.recordWithMedia")
FEATURES = {"app.bsky.richtext.facet#link": "uri", "app.bsky.richtext.facet#mention": "did",
            "app.bsky.richtext.facet#tag": "tag"}


def _size(n: int) -> str:
    return f"{n / 1_000_000:.2f}MB" if n >= 1_000_000 else f"{n / 1024:.2f}KB"


class Repo:
    """Handlers of the repository, on an emulator holding `lock`, `clock`, `_accounts`,
    `_blobs`, `_records`, `_write_hits`, `_upload_hits`, `blob_upload_limit`,
    `image_max_bytes`, `blob_ttl`, `strict_facets`, `strict_refs`."""

    # --- blobs ------------------------------------------------------------------------------------

    def _upload_blob(self, request: Request) -> Response:
        data = request.raw_body
        mime = (request.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        with self.lock:
            account = self._auth(request)
            if len(data) > self.blob_upload_limit:
                raise XrpcError(413, "PayloadTooLarge", "request entity too large")
            if not mime or mime == "*/*":
                raise invalid_request("Content-Type is required")
            now = self.clock.now()
            hits = self._upload_hits.setdefault(account.did, [])
            hits[:] = [t for t in hits if now - t < dt.timedelta(days=1)]
            if len(hits) >= UPLOADS_PER_DAY:
                raise XrpcError(429, "RateLimitExceeded", "Rate Limit Exceeded",
                                rate_headers(UPLOADS_PER_DAY, 0, int((hits[0] + dt.timedelta(days=1)).timestamp()),
                                             dt.timedelta(days=1)))
            hits.append(now)
            blob = self.store_blob(account.did, data, mime)
        return Response.json(200, {"blob": blob.ref()})

    def store_blob(self, did: str, data: bytes, mime: str, at: dt.datetime | None = None) -> Blob:
        """Keep `data` as a blob of `did` (the same bytes: the same blob; the lock held)."""
        from .video import mp4_duration

        digest = hashlib.sha256(data)
        cid = blob_cid(digest.digest())
        kind = sniff(data[:64])
        blob = self._blobs.get((did, cid))
        if blob is None or blob.mime_type != mime or cid not in self._referenced:  # a temporary blob's life starts again
            blob = Blob(cid, did, mime, len(data), digest.hexdigest(), at or self.clock.now(), kind,
                        mp4_duration(data) if kind in ("mp4", "mov") else None)
            self._blobs[(did, cid)] = blob
        return blob

    def _live_blob(self, did: str, cid: str) -> Blob | None:
        """A blob of `did` that is referenced, or young enough not to be swept (the lock held)."""
        blob = self._blobs.get((did, cid))
        if blob is None:
            return None
        if cid not in self._referenced and self.blob_ttl is not None \
                and self.clock.now() - blob.created_at > dt.timedelta(seconds=self.blob_ttl):
            del self._blobs[(did, cid)]
            return None
        return blob

    # --- writes -----------------------------------------------------------------------------------

    def _create_record(self, request: Request) -> Response:
        body = _object(request.json)
        with self.lock:
            account = self._writer(request, body)
            collection = _nsid(body.get("collection"))
            write = self._prepare_create(account, collection, body.get("rkey"), body.get("record"))
            headers = self._spend(account.did, ["create"])
            record = self._commit_create(write)
            rev = self._next_rev()
        return Response.json(200, {"uri": record.uri, "cid": record.cid, "commit": {"cid": record_cid(rev), "rev": rev},
                                   "validationStatus": "valid" if collection == POST else "unknown"}, headers)

    def _apply_writes(self, request: Request) -> Response:
        body = _object(request.json)
        writes = body.get("writes")
        if not isinstance(writes, list) or not writes or len(writes) > 200:
            raise invalid_request("Input/writes must be an array of 1 to 200 writes")
        with self.lock:
            account = self._writer(request, body)
            prepared, kinds = [], []
            for index, write in enumerate(writes):
                if not isinstance(write, dict):
                    raise invalid_request(f"Input/writes/{index} must be an object")
                kind = str(write.get("$type", "")).rsplit("#", 1)[-1]
                collection = _nsid(write.get("collection"))
                if kind == "create":
                    prepared.append(("create", self._prepare_create(account, collection, write.get("rkey"),
                                                                    write.get("value"), pending=prepared)))
                elif kind == "delete":
                    prepared.append(("delete", (account.did, collection, _rkey(write.get("rkey")))))
                else:
                    raise invalid_request(f"Input/writes/{index} must be a create or a delete")
                kinds.append(kind)
            headers = self._spend(account.did, kinds)
            results = []
            for kind, write in prepared:
                if kind == "create":
                    record = self._commit_create(write)
                    results.append({"$type": "com.atproto.repo.applyWrites#createResult", "uri": record.uri,
                                    "cid": record.cid, "validationStatus": "valid"})
                else:
                    self._records.pop(write, None)
                    results.append({"$type": "com.atproto.repo.applyWrites#deleteResult"})
            rev = self._next_rev()
        return Response.json(200, {"commit": {"cid": record_cid(rev), "rev": rev}, "results": results}, headers)

    def _delete_record(self, request: Request) -> Response:
        body = _object(request.json)
        with self.lock:
            account = self._writer(request, body)
            key = (account.did, _nsid(body.get("collection")), _rkey(body.get("rkey")))
            headers = self._spend(account.did, ["delete"])
            self._records.pop(key, None)
            rev = self._next_rev()
        return Response.json(200, {"commit": {"cid": record_cid(rev), "rev": rev}}, headers)

    def _writer(self, request: Request, body: dict) -> BlueskyAccount:
        """The token's account, which must own `repo` (its DID or handle)."""
        account = self._auth(request)
        repo = body.get("repo")
        if not isinstance(repo, str) or not repo:
            raise invalid_request('Input must have the property "repo"')
        if repo not in (account.did, account.handle):
            raise XrpcError(401, "AuthenticationRequired", "Authentication Required")
        return account

    def _prepare_create(self, account: BlueskyAccount, collection: str, rkey: Any, value: Any,
                        pending: list | None = None) -> tuple:
        """A create checked whole, nothing written yet (the lock held)."""
        if rkey is None:
            rkey = self._free_tid(account.did, collection)
        rkey = _rkey(rkey)
        if collection == POST and not TID.fullmatch(rkey):
            raise invalid_request(f"Invalid record key for {collection}: {rkey}")
        if not isinstance(value, dict):
            raise invalid_request('Input must have the property "record"')
        if value.get("$type") != collection:
            raise invalid_request(f"Invalid $type: expected {collection}, got {value.get('$type')}")
        if collection == POST:
            self._check_post(account, value, pending or [])
        if (account.did, collection, rkey) in self._records or any(
                w[1][:3] == (account.did, collection, rkey) for w in pending or [] if w[0] == "create"):
            # [S] The reference PDS has no answer of its own for a record key in use yet.
            raise XrpcError(500, "InternalServerError", "Internal Server Error")
        return (account.did, collection, rkey, value)

    def _commit_create(self, write: tuple) -> Record:
        did, collection, rkey, value = write
        record = Record(f"at://{did}/{collection}/{rkey}", record_cid(value), did, collection, rkey, value,
                        self.clock.now())
        self._records[(did, collection, rkey)] = record
        for cid in _blob_links(value):
            self._referenced.add(cid)
        return record

    def _free_tid(self, did: str, collection: str) -> str:
        micros = int(self.clock.now().timestamp() * 1_000_000)
        while (did, collection, key := tid(micros, 7)) in self._records:
            micros += 1
        return key

    def _next_rev(self) -> str:
        self._rev_micros = max(self._rev_micros + 1, int(self.clock.now().timestamp() * 1_000_000))
        return tid(self._rev_micros, 3)

    def _spend(self, did: str, kinds: list[str]) -> dict:
        """Count the writes' points against the account's hourly and daily points: past
        either, 429 and nothing written (the lock held)."""
        now = self.clock.now()
        hits = self._write_hits.setdefault(did, [])
        hits[:] = [(t, p) for t, p in hits if now - t < WRITE_LIMITS[-1][1]]
        cost = sum(POINTS[k] for k in kinds)
        headers = {}
        for limit, window in WRITE_LIMITS:
            inside = [(t, p) for t, p in hits if now - t < window]
            used = sum(p for _, p in inside)
            reset = int(((min(t for t, _ in inside) if inside else now) + window).timestamp())
            if used + cost > limit:
                raise XrpcError(429, "RateLimitExceeded", "Rate Limit Exceeded",
                                rate_headers(limit, limit - used, reset, window))
            if window == WRITE_LIMITS[0][1]:
                headers = rate_headers(limit, limit - used - cost, reset, window)
        hits.append((now, cost))
        return headers

    # --- the post record ------------------------------------------------------------------------

    def _check_post(self, account: BlueskyAccount, value: dict, pending: list) -> None:
        """app.bsky.feed.post's Lexicon, and the emulator's stricter facet and reply checks."""
        text = value.get("text", "")
        if not isinstance(text, str):
            raise _invalid("Record/text must be a string")
        if problem := text_problem(text):
            raise _invalid(problem)
        created = value.get("createdAt")
        if not isinstance(created, str) or not DATETIME.fullmatch(created):
            raise _invalid("Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)")
        langs = value.get("langs")
        if langs is not None:
            if not isinstance(langs, list) or len(langs) > LANGS_MOST:
                raise _invalid(f"Record/langs must not have more than {LANGS_MOST} elements")
            for index, lang in enumerate(langs):
                if not isinstance(lang, str) or not LANG.fullmatch(lang):
                    raise _invalid(f"Record/langs/{index} must be a well-formed BCP 47 language tag")
        self._check_facets(text, value.get("facets"))
        if "embed" in value:
            self._check_embed(account, value["embed"])
        if "reply" in value:
            self._check_reply(value["reply"], pending)

    def _check_facets(self, text: str, facets: Any) -> None:
        if facets is None:
            return
        if not isinstance(facets, list):
            raise _invalid("Record/facets must be an array")
        spans = []
        for i, facet in enumerate(facets):
            index = facet.get("index") if isinstance(facet, dict) else None
            features = facet.get("features") if isinstance(facet, dict) else None
            start = index.get("byteStart") if isinstance(index, dict) else None
            end = index.get("byteEnd") if isinstance(index, dict) else None
            if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (start, end)):
                raise _invalid(f"Record/facets/{i}/index must have byteStart and byteEnd, whole numbers >= 0")
            if not isinstance(features, list) or not features:
                raise _invalid(f"Record/facets/{i}/features must be a non-empty array")
            shown = covered(text, start, end)
            if self.strict_facets and shown is None:
                raise _invalid(f"Record/facets/{i}/index must cover whole characters of the text, in UTF-8 bytes "
                               f"(byteStart {start}, byteEnd {end}, text of {len(text.encode('utf-8'))} bytes)")
            spans.append((start, end, i))
            for j, feature in enumerate(features):
                self._check_feature(f"Record/facets/{i}/features/{j}", feature, shown)
        if self.strict_facets:
            spans.sort()
            for (_, end, _), (start, _, i) in zip(spans, spans[1:]):
                if start < end:
                    raise _invalid(f"Record/facets/{i}/index overlaps another facet")

    def _check_feature(self, path: str, feature: Any, shown: str | None) -> None:
        kind = feature.get("$type") if isinstance(feature, dict) else None
        if kind not in FEATURES:
            return  # an open union: other features pass unvalidated
        field = FEATURES[kind]
        value = feature.get(field)
        if not isinstance(value, str) or not value:
            raise _invalid(f'{path} must have the property "{field}"')
        if kind.endswith("#tag") and (problem := tag_problem(value)):
            raise _invalid(f"{path}/tag: {problem}")
        if kind.endswith("#mention") and not value.startswith("did:"):
            raise _invalid(f"{path}/did must be a valid did")
        if not self.strict_facets or shown is None:
            return
        if kind.endswith("#link") and not link_matches(value, shown):
            raise _invalid(f"{path}: the link {value} does not match the text it covers ({shown!r})")
        if kind.endswith("#tag") and not tag_matches(value, shown):
            raise _invalid(f"{path}: the tag {value} does not match the text it covers ({shown!r})")
        if kind.endswith("#mention"):
            mentioned = self._accounts.get(value)
            if mentioned is None or shown.lower() != "@" + mentioned.handle.lower():
                raise _invalid(f"{path}: the mention of {value} does not match the text it covers ({shown!r})")

    def _check_embed(self, account: BlueskyAccount, embed: Any) -> None:
        kind = embed.get("$type") if isinstance(embed, dict) else None
        if kind not in EMBEDS:
            raise _invalid(f"Record/embed $type must be one of {', '.join(EMBEDS)}")
        if kind == "app.bsky.embed.images":
            images = embed.get("images")
            if not isinstance(images, list) or not images:
                raise _invalid("Record/embed/images must be a non-empty array")
            if len(images) > IMAGES_MOST:
                raise _invalid(f"Record/embed/images must not have more than {IMAGES_MOST} elements")
            for i, image in enumerate(images):
                path = f"Record/embed/images/{i}"
                if not isinstance(image, dict) or not isinstance(image.get("alt"), str):
                    raise _invalid(f'{path} must have the property "alt"')
                _check_aspect(path, image.get("aspectRatio"))
                self._check_blob(account, f"{path}/image", image.get("image"), "image/", self.image_max_bytes)
        elif kind == "app.bsky.embed.video":
            if "alt" in embed and not isinstance(embed["alt"], str):
                raise _invalid("Record/embed/alt must be a string")
            _check_aspect("Record/embed", embed.get("aspectRatio"))
            self._check_blob(account, "Record/embed/video", embed.get("video"), "video/mp4", VIDEO_MAX_SIZE)
        elif kind == "app.bsky.embed.external":
            external = embed.get("external")
            if not isinstance(external, dict) or not all(isinstance(external.get(k), str) for k in
                                                         ("uri", "title", "description")):
                raise _invalid('Record/embed/external must have the properties "uri", "title" and "description"')

    def _check_blob(self, account: BlueskyAccount, path: str, ref: Any, accept: str, max_size: int) -> None:
        link = ref.get("ref", {}).get("$link") if isinstance(ref, dict) and isinstance(ref.get("ref"), dict) else None
        if not isinstance(link, str) or ref.get("$type") != "blob":
            raise _invalid(f"{path} should be a blob ref")
        blob = self._live_blob(account.did, link)
        if blob is None:
            raise XrpcError(400, "BlobNotFound", f"Could not find blob: {link}")
        if ref.get("mimeType") != blob.mime_type:
            raise XrpcError(400, "InvalidMimeType", f"Referenced Mimetype does not match stored blob. Expected: "
                                                    f"{blob.mime_type}, Got: {ref.get('mimeType')}")
        if ref.get("size") != blob.size:
            raise XrpcError(400, "InvalidSize", f"Referenced size does not match stored blob. Expected: "
                                                f"{blob.size}, Got: {ref.get('size')}")
        if not (blob.mime_type.startswith(accept) if accept.endswith("/") else blob.mime_type == accept):
            raise XrpcError(400, "InvalidMimeType", f"Wrong type of file. It is {blob.mime_type} but it must match "
                                                    f"{accept}{'*' if accept.endswith('/') else ''}.")
        if blob.size > max_size:
            raise XrpcError(400, "BlobTooLarge", f"This file is too large. It is {_size(blob.size)} but the maximum "
                                                 f"size is {_size(max_size)}.")

    def _check_reply(self, reply: Any, pending: list) -> None:
        refs = []
        for name in ("root", "parent"):
            ref = reply.get(name) if isinstance(reply, dict) else None
            if not isinstance(ref, dict) or not isinstance(ref.get("uri"), str) or not isinstance(ref.get("cid"), str):
                raise _invalid(f'Record/reply must have the property "{name}" with its "uri" and "cid"')
            refs.append(ref)
        if not self.strict_refs:
            return
        root, parent = refs
        made = {f"at://{w[1][0]}/{w[1][1]}/{w[1][2]}": (record_cid(w[1][3]), w[1][3]) for w in pending
                if w[0] == "create"}
        for name, ref in (("root", root), ("parent", parent)):
            found = self._find_record(ref["uri"]) or made.get(ref["uri"])
            if found is None or found[0] != ref["cid"]:
                raise _invalid(f"Invalid reply: the {name} {ref['uri']} with cid {ref['cid']} is no post of this PDS")
        parent_value = (self._find_record(parent["uri"]) or made.get(parent["uri"]))[1]
        parent_root = parent_value.get("reply", {}).get("root", {}).get("uri") if isinstance(
            parent_value.get("reply"), dict) else parent["uri"]
        if root["uri"] != parent_root:
            raise _invalid(f"Invalid reply: the root must be the thread's root, {parent_root}")

    def _find_record(self, uri: str) -> tuple[str, dict] | None:
        parts = uri.removeprefix("at://").split("/")
        record = self._records.get(tuple(parts)) if len(parts) == 3 else None
        return (record.cid, record.value) if record else None

    # --- reads ------------------------------------------------------------------------------------

    def _repo_did(self, repo: str | None) -> str:
        if not repo:
            raise invalid_request('Error: Params must have the property "repo"')
        account = self.find(repo) if not repo.startswith("did:") else self._accounts.get(repo)
        if account is None:
            raise invalid_request(f"Could not find repo: {repo}")
        return account.did

    def _get_record(self, request: Request) -> Response:
        p = request.query
        with self.lock:
            did = self._repo_did(p.get("repo"))
            collection, rkey = _nsid(p.get("collection")), _rkey(p.get("rkey"))
            record = self._records.get((did, collection, rkey))
        uri = f"at://{did}/{collection}/{rkey}"
        if record is None or (p.get("cid") and p["cid"] != record.cid):
            raise XrpcError(400, "RecordNotFound", f"Could not locate record: {uri}")
        return Response.json(200, record.view())

    def _list_records(self, request: Request) -> Response:
        p = request.query
        try:
            limit = int(p.get("limit", "50"))
        except ValueError:
            raise invalid_request("Error: limit must be an integer") from None
        if not 1 <= limit <= 100:
            raise invalid_request("Error: limit can not be less than 1 or greater than 100")
        with self.lock:
            did = self._repo_did(p.get("repo"))
            collection = _nsid(p.get("collection"))
            records = sorted((r for r in self._records.values() if r.did == did and r.collection == collection),
                             key=lambda r: r.rkey, reverse=p.get("reverse") != "true")
        if p.get("cursor"):
            after = p["cursor"]
            records = [r for r in records if (r.rkey > after if p.get("reverse") == "true" else r.rkey < after)]
        page = records[:limit]
        answer: dict = {"records": [r.view() for r in page]}
        if len(records) > limit:
            answer["cursor"] = page[-1].rkey
        return Response.json(200, answer)


def _object(body: Any) -> dict:
    if not isinstance(body, dict):
        raise invalid_request("Request body must be a JSON object")
    return body


def _nsid(value: Any) -> str:
    if not isinstance(value, str) or not NSID.fullmatch(value):
        raise invalid_request("Input/collection must be a valid nsid")
    return value


def _rkey(value: Any) -> str:
    if not isinstance(value, str) or not RKEY.fullmatch(value) or value in (".", ".."):
        raise invalid_request("Input/rkey must be a valid Record Key")
    return value


def _invalid(message: str) -> XrpcError:
    return invalid_request(f"Invalid {POST} record: {message}")


def _check_aspect(path: str, ratio: Any) -> None:
    if ratio is None:
        return
    if not isinstance(ratio, dict) or not all(isinstance(ratio.get(k), int) and not isinstance(ratio.get(k), bool)
                                              and ratio[k] >= 1 for k in ("width", "height")):
        raise _invalid(f"{path}/aspectRatio must have width and height, whole numbers >= 1")


def _blob_links(value: Any) -> list[str]:
    """The CIDs of every blob a record references."""
    found = []
    if isinstance(value, dict):
        if value.get("$type") == "blob" and isinstance(value.get("ref"), dict):
            found.append(value["ref"].get("$link"))
        for item in value.values():
            found += _blob_links(item)
    elif isinstance(value, list):
        for item in value:
            found += _blob_links(item)
    return found


__all__ = ["Repo", "TID", "as_time"]
