"""The Pinterest emulator: OAuth 2.0, the account, boards, Pins and video uploads of API v5,
on loopback and the emulator's clock (tests/emulators/README.md#pinterest has its behaviour
and the choices it makes).

One server plays www.pinterest.com (the consent page, `/oauth/`), api.pinterest.com
(`/v5/...`) and the upload store (`POST /`, the host `upload_url` names);
FANOUT_PLATFORM_HOSTS sends the three to it (`hosts_setting`). OAuth is in oauth.py, boards
and Pins in pins.py, video uploads in media.py, the records and error bodies in state.py.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable

from ..base import EmulatorServer
from ..wire import Request, Response
from .media import PinterestMedia, media_ids
from .oauth import SCOPES, PinterestOAuth
from .pins import PinterestPins, pin_ids
from .state import Board, Media, Pin, PinterestUser, error_body

HOSTS = ("www.pinterest.com", "api.pinterest.com", "pinterest-media-upload.s3-accelerate.amazonaws.com")


class PinterestEmulator(PinterestOAuth, PinterestPins, PinterestMedia, EmulatorServer):
    name = "pinterest"
    HOSTS, SCOPES = HOSTS, SCOPES
    DEFAULT_USER = PinterestUser("1150000000000000001", "emu_pinterest")

    def __init__(self, client_id: str = "pinterest-app-id", client_secret: str = "pinterest-app-secret", *,
                 users: Iterable[PinterestUser | tuple[str, ...]] | None = None,
                 boards: Iterable[tuple[str, str] | Board] | None = None,
                 redirect_uris: Iterable[str] | None = None, video_seconds: float = 3,
                 pin_writes_per_minute: int = 100, **server):
        """`boards`: (user id, name) pairs, or Boards; None gives each user one board."""
        super().__init__(**server)
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        self.video_seconds, self.pin_writes_per_minute = video_seconds, pin_writes_per_minute
        users = [self.DEFAULT_USER] if users is None else users
        self._users = {u.id: u for u in (u if isinstance(u, PinterestUser) else PinterestUser(*u) for u in users)}
        self._consenting = next(iter(self._users), None)
        self._board_ids = itertools.count(1_140_000_000_000_000_001)
        made = [(uid, f"{user.username}'s board") for uid, user in self._users.items()] if boards is None else boards
        self._initial_boards = [b if isinstance(b, Board) else Board(str(next(self._board_ids)), b[0], b[1])
                                for b in made]
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/oauth/?", self._authorize),
            ("POST", r"/v5/oauth/token", self._token),
            ("GET", r"/v5/user_account", self._user_account),
            ("GET", r"/v5/boards", self._list_boards),
            ("GET", r"/v5/boards/(?P<board_id>[^/]+)/pins", self._board_pins),
            ("POST", r"/v5/pins", self._create_pin),
            ("GET", r"/v5/pins/(?P<pin_id>[^/]+)", self._get_pin),
            ("POST", r"/v5/media", self._register),
            ("GET", r"/v5/media/(?P<media_id>[^/]+)", self._status),
            ("POST", r"/", self._store),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, add_board=self.add_board, consent_as=self.consent_as,
            deny_consent=self.deny_consent, issue_token=self.issue_token, expire_tokens=self.expire_tokens,
            revoke_tokens=self.revoke_tokens, exhaust=self.exhaust, configure=self.configure,
            fail_next_video=self.fail_next_video,
        )
        self.views.update(users=lambda: self.users, boards=lambda: self.boards, pins=lambda: self.pins,
                          media=lambda: self.media)

    def _reset_state(self) -> None:
        self._codes: dict = {}
        self._tokens: dict = {}
        self._boards: dict[str, Board] = {b.id: b for b in self._initial_boards}
        self._pins: list[Pin] = []
        self._media: dict[str, Media] = {}
        self.stored: dict[str, str] = {}  # media id: the SHA-256 of the bytes the store took
        self._pin_writes: dict[str, list] = {}
        self._forced_failures: list[str] = []
        self._ids = pin_ids()
        self._media_ids = media_ids()
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every Pinterest host here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    def not_found(self, request: Request) -> Response:
        return Response.json(404, error_body(404, f"No route for {request.method} {request.path}"))

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def users(self) -> list[PinterestUser]:
        with self.lock:
            return list(self._users.values())

    @property
    def boards(self) -> dict[str, list[Board]]:
        """Boards by user id, in the order made; every user has an entry."""
        with self.lock:
            return {uid: [b for b in self._boards.values() if b.owner == uid] for uid in self._users}

    @property
    def pins(self) -> dict[str, list[Pin]]:
        """Pins by user id, oldest first; every user has an entry."""
        with self.lock:
            return {uid: [p for p in self._pins if p.owner == uid] for uid in self._users}

    @property
    def media(self) -> dict[str, dict]:
        with self.lock:
            return {media_id: self.media_view(m) for media_id, m in self._media.items()}

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, username: str, user_id: str | None = None, account_type: str = "BUSINESS", *,
                 board: str | None = None) -> PinterestUser:
        """Another user (an id is made up if none is given), with a board of that name if given."""
        with self.lock:
            user = PinterestUser(user_id or f"11500000000000000{len(self._users) + 1:02d}", username, account_type)
            self._users[user.id] = user
            if self._consenting is None:
                self._consenting = user.id
        if board:
            self.add_board(board, user.id)
        return user

    def add_board(self, name: str, user_id: str | None = None, privacy: str = "PUBLIC") -> Board:
        """Another board of the user (the consenting one by default); `reset` forgets it."""
        with self.lock:
            user_id = user_id or self._consenting
            if user_id not in self._users:
                raise KeyError(f"no user {user_id}")
            board = Board(str(next(self._board_ids)), user_id, name, privacy.upper(), self.clock.now())
            self._boards[board.id] = board
            return board

    def exhaust(self, user_id: str | None = None) -> None:
        """The user has made this minute's Pin writes: the next is 429."""
        with self.lock:
            user_id = user_id or self._consenting
            self._pin_writes[user_id] = [self.clock.now()] * self.pin_writes_per_minute

    def configure(self, **settings) -> dict:
        """Change any of the constructor's settings (video_seconds, pin_writes_per_minute,
        redirect_uris) from now."""
        for name, value in settings.items():
            if name.startswith("_") or not hasattr(self, name) or callable(getattr(self, name)):
                raise KeyError(f"no setting {name}")
            setattr(self, name, set(value) if name == "redirect_uris" and value is not None else value)
        return settings


__all__ = ["HOSTS", "PinterestEmulator"]
