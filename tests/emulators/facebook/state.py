"""What the Facebook emulator remembers: users and the Pages they manage, Page tokens, and
what Pages publish (posts, photos, videos and Reels, comments), with the Graph errors its
rules answer (tests/emulators/README.md#facebook)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..graph import GraphError
from ..graph.oauth import SESSION_INVALIDATED, Token

# What a Page's publishing needs of the token, and what a comment as the Page needs.
PUBLISH_SCOPES = ("pages_read_engagement", "pages_manage_posts")
COMMENT_SCOPE = "pages_manage_engagement"
EVERY_TASK = ("ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT", "MANAGE")
NEVER = dt.datetime(9999, 12, 31, tzinfo=dt.timezone.utc)  # a Page token from a long-lived user token

# What a revoked token answers, by its error_subcode (code 190).
REVOKED = {
    458: "Error validating access token: The user has not authorized application {client_id}.",
    459: "Error validating access token: You cannot access the app till you log in to www.facebook.com and follow "
         "the instructions given.",
    460: SESSION_INVALIDATED,
    464: "Error validating access token: Sessions for the user are not allowed because the user is not a confirmed "
         "user.",
    467: "Error validating access token: The access token is invalid.",
    492: "Error validating access token: The user must be an administrator, editor, or moderator of the Page.",
}
# A Page's request limits, by code: what `exhaust` makes its calls answer.
THROTTLED = {
    4: "(#4) Application request limit reached",
    17: "(#17) User request limit reached",
    32: "(#32) Page request limit reached",
    613: "(#613) Calls to this api have exceeded the rate limit.",
    80001: "(#80001) There have been too many calls to this Page account. Wait a bit and try again.",
}
BLOCKED = ("It looks like you were misusing this feature by going too fast. You've been temporarily blocked from "
           "using it.")


@dataclass(frozen=True)
class FacebookPage:
    id: str  # digits
    name: str
    username: str | None = None
    category: str = "Local business"

    @property
    def path(self) -> str:
        """How the Page's URLs name it: its username, else its id."""
        return self.username or self.id


@dataclass
class FacebookUser:
    """A person who logs in. `pages` maps each Page they have a role on to their tasks
    there; at the consent they decline `declined` and select `granted_pages` (None: every
    Page) for the app."""

    id: str
    name: str
    pages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    declined: frozenset = frozenset()
    granted_pages: tuple[str, ...] | None = None
    app_installed: bool = True


@dataclass(frozen=True)
class PageToken(Token):
    """A Page's token, read from /me/accounts with a user's token (`user_id`'s)."""

    page_id: str = ""


@dataclass
class Post:
    id: str  # <page id>_<post id>
    page_id: str
    message: str
    link: str | None
    photos: tuple[str, ...]
    created_at: dt.datetime
    permalink_url: str


@dataclass
class Photo:
    id: str
    page_id: str
    url: str | None
    sha256: str | None
    alt_text: str | None
    published: bool
    created_at: dt.datetime
    post_id: str | None = None  # the feed post it is attached to, or was published as


@dataclass
class Video:
    """A Page video or a Reel. Its status is read from the clock (`videos.status_of`):
    the bytes, then processing from `finished_at` for the processing time, then its
    outcome (`error` once processed, or ready)."""

    id: str
    page_id: str
    kind: str  # "video" | "reel"
    created_at: dt.datetime
    description: str = ""
    title: str = ""
    how: str = ""  # file_url, source, chunked, rupload, rupload file_url
    file_size: int | None = None
    data: bytearray = field(default_factory=bytearray, repr=False)
    session_id: str | None = None  # a chunked upload's
    finished_at: dt.datetime | None = None  # the upload's end (a video), the finish phase (a Reel)
    ready_at: dt.datetime | None = None
    finish_state: str | None = None  # a Reel's video_state at finish
    error: str | None = None  # decided when processing ends
    published: bool = True

    @property
    def received(self) -> int:
        return len(self.data)


@dataclass(frozen=True)
class Comment:
    id: str
    object_id: str
    page_id: str  # who commented: the Page
    message: str
    created_at: dt.datetime


def param_error(message: str, subcode: int | None = None) -> GraphError:
    return GraphError(message, code=100, subcode=subcode)


def permission_error(message: str = "(#200) If posting to a page, requires both pages_read_engagement and "
                                    "pages_manage_posts as an admin with sufficient administrative permission"
                     ) -> GraphError:
    return GraphError(message, code=200, status=403)
