"""A Mastodon instance's statuses as the emulator keeps them: `POST /api/v1/statuses` with
the `Idempotency-Key` (the first status answered again to any repeat for an hour, whatever
the body), the character cap (text.py), the media and reply checks, the statuses rate
limit; and the reads: one status, its context, an account's statuses (public and unlisted
ones to a caller without a token) (tests/emulators/README.md#mastodon)."""
from __future__ import annotations

import datetime as dt

from ..wire import Request, Response
from .oauth import covers
from .state import NOT_FOUND, OUTSIDE_SCOPES, MastodonAccount, Status, error
from .text import render, status_length

IDEMPOTENCY_TTL = dt.timedelta(hours=1)
VISIBILITIES = ("public", "unlisted", "private", "direct")
UNSTATED_CHARACTERS = 500  # Mastodon's own cap, where the instance states none
NOT_PROCESSED = "Cannot attach files that have not finished processing. Try again in a moment!"


def _time(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class MastodonStatuses:
    """Status handlers, on an emulator holding `clock`, `lock`, `domain`, `max_characters`,
    `max_media_attachments`, `_users`, `_apps`, `_media`, `_statuses`, `_idempotency`,
    `_ids`, the token check `_caller` and the rate limit `_limited`."""

    def _create_status(self, request: Request) -> Response:
        with self.lock:
            account, token = self._caller(request, "write:statuses")
            key = request.headers.get("Idempotency-Key")
            kept = self._idempotency.get((account.id, key)) if key else None
            if kept is not None and self.clock.now() < kept[1]:
                return Response.json(200, self._status_view(self._statuses[kept[0]]))
            p = request.json if isinstance(request.json, dict) else request.params
            text = str(p.get("status") or "")
            spoiler = str(p.get("spoiler_text") or "")
            visibility = str(p.get("visibility") or "public")
            media_ids = p.get("media_ids") or p.get("media_ids[]") or []
            media_ids = [str(m) for m in (media_ids if isinstance(media_ids, list) else [media_ids])]
            if visibility not in VISIBILITIES:
                raise error(422, f"Validation failed: Visibility '{visibility}' is not a valid visibility")
            media = self._attachable(account, media_ids)
            if not text.strip() and not media:
                raise error(422, "Validation failed: Text can't be blank")
            reply_to = p.get("in_reply_to_id")
            if reply_to is not None and not self._visible(self._statuses.get(str(reply_to)), account):
                raise error(404, NOT_FOUND)
            cap = self.max_characters if self.max_characters is not None else UNSTATED_CHARACTERS
            if status_length(text, spoiler) > cap:
                raise error(422, f"Validation failed: Text character limit of {cap} exceeded")
            headers = self._limited(account.id, "statuses")
            app = self._apps.get(token.client_id or "")
            status = Status(self._ids.next(), account.id, text,
                            render(text, self.domain, {a.username.lower() for a in self._users.values()}),
                            spoiler, visibility, str(reply_to) if reply_to is not None else None,
                            tuple(m.id for m in media), self.clock.now(), app.name if app else None, key)
            self._statuses[status.id] = status
            for item in media:
                item.status_id = status.id
            if key:
                self._idempotency[(account.id, key)] = (status.id, self.clock.now() + IDEMPOTENCY_TTL)
            return Response.json(200, self._status_view(status), headers)

    def _attachable(self, account: MastodonAccount, media_ids: list[str]) -> list:
        if len(media_ids) > self.max_media_attachments:
            raise error(422, f"Validation failed: Cannot attach more than {self.max_media_attachments} files")
        media = []
        for media_id in media_ids:
            item = self._media.get(media_id)
            if item is None or item.account_id != account.id or item.status_id is not None:
                raise error(422, "Validation failed: Media attachments are invalid")
            if not self._ready(item):
                raise error(422, NOT_PROCESSED)
            media.append(item)
        if len(media) > 1 and any(m.type != "image" for m in media):
            raise error(422, "Cannot attach a video to a post that already contains images")
        return media

    # --- reads --------------------------------------------------------------------------------

    def _reader(self, request: Request) -> MastodonAccount | None:
        """Who reads: nobody without a token; a token must have a read scope (the lock held)."""
        if not request.bearer():
            return None
        account, token = self._caller(request)
        if not covers(token.scopes, "read:statuses"):
            raise error(403, OUTSIDE_SCOPES)
        return account

    def _visible(self, status: Status | None, reader: MastodonAccount | None) -> bool:
        if status is None:
            return False
        return status.visibility in ("public", "unlisted") or (reader is not None and reader.id == status.account_id)

    def _get_status(self, request: Request, status_id: str) -> Response:
        with self.lock:
            status = self._statuses.get(status_id)
            if not self._visible(status, self._reader(request)):
                raise error(404, NOT_FOUND)
            return Response.json(200, self._status_view(status))

    def _context(self, request: Request, status_id: str) -> Response:
        with self.lock:
            reader = self._reader(request)
            status = self._statuses.get(status_id)
            if not self._visible(status, reader):
                raise error(404, NOT_FOUND)
            ancestors, parent = [], status.in_reply_to_id
            while parent in self._statuses:
                ancestors.insert(0, self._statuses[parent])
                parent = self._statuses[parent].in_reply_to_id
            descendants, frontier = [], [status.id]
            while frontier:
                children = [s for s in self._statuses.values() if s.in_reply_to_id in frontier]
                descendants += children
                frontier = [s.id for s in children]
            return Response.json(200, {
                "ancestors": [self._status_view(s) for s in ancestors if self._visible(s, reader)],
                "descendants": [self._status_view(s) for s in descendants if self._visible(s, reader)]})

    def _account_statuses(self, request: Request, account_id: str) -> Response:
        with self.lock:
            if account_id not in self._users:
                raise error(404, NOT_FOUND)
            reader = self._reader(request)
            try:
                limit = min(max(int(request.query.get("limit", "20")), 1), 40)
            except ValueError:
                limit = 20
            max_id = request.query.get("max_id")
            found = [s for s in reversed(list(self._statuses.values()))
                     if s.account_id == account_id and self._visible(s, reader)
                     and (max_id is None or int(s.id) < int(max_id))]
            return Response.json(200, [self._status_view(s) for s in found[:limit]])

    def _status_view(self, status: Status) -> dict:
        account = self._users[status.account_id]
        reply_to = self._statuses.get(status.in_reply_to_id or "")
        return {
            "id": status.id, "created_at": _time(status.created_at), "in_reply_to_id": status.in_reply_to_id,
            "in_reply_to_account_id": reply_to.account_id if reply_to else None,
            "sensitive": bool(status.spoiler_text), "spoiler_text": status.spoiler_text,
            "visibility": status.visibility, "language": None,
            "uri": f"https://{self.domain}/users/{account.username}/statuses/{status.id}",
            "url": f"https://{self.domain}/@{account.username}/{status.id}",
            "replies_count": sum(1 for s in self._statuses.values() if s.in_reply_to_id == status.id),
            "reblogs_count": 0, "favourites_count": 0, "content": status.content, "reblog": None,
            "application": {"name": status.application, "website": None} if status.application else None,
            "account": self._account_view(account),
            "media_attachments": [self._media_view(self._media[m]) for m in status.media_ids],
            "mentions": [], "tags": [], "emojis": [], "poll": None,
        }
