"""The YouTube Data API's reads and comments as the emulator keeps them
(tests/emulators/README.md#youtube): `channels.list` (`mine=true`: the channel the token
signs in as), `videos.list`, `playlistItems.list` (a channel's uploads, newest first),
`commentThreads.insert` and `commentThreads.list`; each paid for in quota units."""
from __future__ import annotations

import hashlib
import secrets

from ..wire import Request, Response
from .state import Comment, GoogleError, GoogleUser, rfc3339

COMMENT_LIMIT = 10_000  # [U] characters of a comment's textOriginal


def _etag(value: str) -> str:
    return hashlib.sha1(value.encode()).hexdigest()[:27]


class YouTubeData:
    """Read and comment handlers, on an emulator holding `lock`, `clock`, `_users`,
    `_videos`, `_comments`, and the OAuth, quota and upload helpers."""

    def _channel_of(self, user: GoogleUser) -> str:
        """The caller's channel; a Google account without one cannot use YouTube [U]."""
        if user.channel_id is None:
            raise GoogleError(401, "youtubeSignupRequired", "Unauthorized", "youtube.header")
        return user.channel_id

    def _channel_title(self, channel_id: str) -> str:
        return next((u.name for u in self._users.values() if u.channel_id == channel_id), "")

    # --- channels.list ----------------------------------------------------------------------------

    def _channels(self, request: Request) -> Response:
        p = request.query
        with self.lock:
            user = self._caller(request, "read")
            self._charge("list")
            if not p.get("part"):
                raise GoogleError(400, "required", "Required parameter: part", "global", location="part",
                                  locationType="parameter")
            if p.get("mine") == "true":
                found = [user] if user.channel_id else []
            elif p.get("id"):
                ids = set(p["id"].split(","))
                found = [u for u in self._users.values() if u.channel_id in ids]
            elif p.get("forHandle"):
                handle = "@" + p["forHandle"].lstrip("@").lower()
                found = [u for u in self._users.values() if (u.handle or "").lower() == handle]
            else:
                raise GoogleError(400, "missingRequiredParameter", "No filter selected. Expected one of: "
                                  "forUsername, managedByMe, categoryId, id, mySubscribers, forHandle, mine", "youtube.parameter")
            parts = set(p["part"].split(","))
            items = [self._channel(u, parts) for u in found]
        return Response.json(200, {"kind": "youtube#channelListResponse", "etag": _etag(str(items)),
                                   "pageInfo": {"totalResults": len(items), "resultsPerPage": 5}, "items": items})

    def _channel(self, user: GoogleUser, parts: set[str]) -> dict:
        channel = {"kind": "youtube#channel", "etag": _etag(user.channel_id), "id": user.channel_id}
        if "snippet" in parts:
            channel["snippet"] = {"title": user.name, "description": "", "publishedAt": "2020-01-01T00:00:00Z",
                                  "thumbnails": {}, **({"customUrl": user.handle.lower()} if user.handle else {})}
        if "contentDetails" in parts:
            channel["contentDetails"] = {"relatedPlaylists": {"likes": "", "uploads": user.uploads}}
        return channel

    # --- videos.list, playlistItems.list ----------------------------------------------------------

    def _list_videos(self, request: Request) -> Response:
        p = request.query
        with self.lock:
            user = self._caller(request, "read")
            self._charge("list")
            if not p.get("part") or not p.get("id"):
                raise GoogleError(400, "required", "Required parameters: part, id", "global")
            videos = [self._videos[i] for i in p["id"].split(",") if i in self._videos]
            visible = [v for v in videos if v.channel_id == user.channel_id or v.privacy_status != "private"]
            items = [self._resource(v, p["part"], owner=v.channel_id == user.channel_id) for v in visible]
        return Response.json(200, {"kind": "youtube#videoListResponse", "etag": _etag(str(items)),
                                   "pageInfo": {"totalResults": len(items), "resultsPerPage": len(items)},
                                   "items": items})

    def _playlist_items(self, request: Request) -> Response:
        p = request.query
        with self.lock:
            user = self._caller(request, "read")
            self._charge("list")
            owner = next((u for u in self._users.values() if u.uploads and u.uploads == p.get("playlistId")), None)
            if owner is None:
                raise GoogleError(404, "playlistNotFound", "The playlist identified with the request's playlistId "
                                                           "parameter cannot be found.")
            videos = sorted((v for v in self._videos.values() if v.channel_id == owner.channel_id
                             and (owner.sub == user.sub or v.privacy_status != "private")),
                            key=lambda v: v.published_at, reverse=True)
            items = [{"kind": "youtube#playlistItem", "etag": _etag(v.id), "id": _etag(owner.uploads + v.id),
                      "snippet": {"publishedAt": rfc3339(v.published_at), "channelId": v.channel_id, "title": v.title,
                                  "playlistId": owner.uploads, "resourceId": {"kind": "youtube#video", "videoId": v.id}},
                      "contentDetails": {"videoId": v.id, "videoPublishedAt": rfc3339(v.published_at)}}
                     for v in videos[:int(p.get("maxResults") or 5)]]
        return Response.json(200, {"kind": "youtube#playlistItemListResponse", "etag": _etag(str(items)),
                                   "pageInfo": {"totalResults": len(videos), "resultsPerPage": len(items)},
                                   "items": items})

    # --- commentThreads -----------------------------------------------------------------------------

    def _insert_comment(self, request: Request) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        snippet = body.get("snippet") if isinstance(body.get("snippet"), dict) else {}
        top = snippet.get("topLevelComment") if isinstance(snippet.get("topLevelComment"), dict) else {}
        text = (top.get("snippet") or {}).get("textOriginal") if isinstance(top.get("snippet"), dict) else None
        with self.lock:
            user = self._caller(request, "comment")
            self._charge("comment")
            channel = self._channel_of(user)
            video = self._videos.get(str(snippet.get("videoId") or ""))
            if video is None or (video.privacy_status == "private" and video.channel_id != channel):
                raise GoogleError(404, "videoNotFound", "The video identified by the videoId parameter could not be "
                                                        "found.")
            if video.made_for_kids:
                raise GoogleError(403, "commentsDisabled", "The video identified by the videoId parameter has "
                                                           "disabled comments.")
            if not isinstance(text, str) or not text.strip():
                raise GoogleError(400, "commentTextRequired", "The comment resource must contain a "
                                                              "snippet.topLevelComment.snippet.textOriginal property.")
            if len(text) > COMMENT_LIMIT:
                raise GoogleError(400, "commentTextTooLong", "The comment resource contains too many characters in "
                                                             "its snippet.topLevelComment.snippet.textOriginal property.")
            comment = Comment("Ugz" + secrets.token_urlsafe(18), "Ugz" + secrets.token_urlsafe(18), video.id, channel,
                              text, self.clock.now())
            self._comments.append(comment)
            return Response.json(200, self._comment_thread(comment))

    def _list_comments(self, request: Request) -> Response:
        p = request.query
        with self.lock:
            self._caller(request, "read")
            self._charge("list")
            if not p.get("part") or not p.get("videoId"):
                raise GoogleError(400, "missingRequiredParameter", "No filter selected: videoId", "youtube.parameter")
            if p["videoId"] not in self._videos:
                raise GoogleError(404, "videoNotFound", "The video identified by the videoId parameter could not be "
                                                        "found.")
            items = [self._comment_thread(c) for c in reversed(self._comments) if c.video_id == p["videoId"]]
        return Response.json(200, {"kind": "youtube#commentThreadListResponse", "etag": _etag(str(items)),
                                   "pageInfo": {"totalResults": len(items), "resultsPerPage": 20}, "items": items})

    def _comment_thread(self, comment: Comment) -> dict:
        author = next((u for u in self._users.values() if u.channel_id == comment.channel_id), None)
        top = {"kind": "youtube#comment", "etag": _etag(comment.comment_id), "id": comment.comment_id, "snippet": {
            "channelId": comment.channel_id, "videoId": comment.video_id, "textDisplay": comment.text,
            "textOriginal": comment.text, "authorDisplayName": author.handle if author else "",
            "authorChannelId": {"value": comment.channel_id}, "canRate": True, "viewerRating": "none",
            "likeCount": 0, "publishedAt": rfc3339(comment.published_at), "updatedAt": rfc3339(comment.published_at)}}
        return {"kind": "youtube#commentThread", "etag": _etag(comment.thread_id), "id": comment.thread_id,
                "snippet": {"channelId": comment.channel_id, "videoId": comment.video_id, "topLevelComment": top,
                            "canReply": True, "totalReplyCount": 0, "isPublic": True}}
