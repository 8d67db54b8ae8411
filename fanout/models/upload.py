"""POST /v1/upload: the rules of a request (docs/decisions.md#destinations, #mode, #media,
#posts-in-time) and the transaction that turns it into a post.

Rules that need no database are checked by `draft_from_request`; the destinations are
resolved and the media checked against each platform by `check_destinations`, and the
monthly cap counted and the post written in one write transaction, so a request that fails
any rule leaves nothing behind and counts nothing. The same functions judge an edit
(fanout/models/edits.py) and a preflight (fanout/preflight.py): one set of rules.
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field

from ..content import content_for, empty_problem, media_items, media_problem, normalised, refused_problem
from ..outbound.guard import UnsafeURL, parse_url
from ..problems import AccountNotConnected, InvalidRequest, SandboxKeyNotAllowed, UnsupportedMedia
from ..times import UTC, isoformat, parse_timestamp
from . import caps
from .account import details_of
from .db import Compiled, CompiledInsert, write_transaction
from .post import derive_status
from .tables.account import Account
from .tables.post import Post
from .tables.post_platform import PostPlatform
from .tables.target import Target
from .workspace import lock_workspace

# How far from now `scheduled_at` may be: a little in the past (a clock a bit behind, a
# request a while in flight), up to a year ahead.
SCHEDULE_PAST = _dt.timedelta(seconds=60)
SCHEDULE_AHEAD = _dt.timedelta(days=365)


@dataclass(frozen=True)
class Draft:
    caption: str
    media: list[dict]
    sandbox: bool
    simulate_error: str | None
    account_ids: list[str] | None
    platforms: list[str] | None
    accounts: dict[str, str]
    overrides: dict[str, dict] = field(default_factory=dict)  # by platform, as stored (fanout/content.py)
    scheduled_at: _dt.datetime | None = None  # naive UTC, milliseconds; None: publish at once


def draft_from_request(body: dict, key_mode: str, *, now: _dt.datetime | None = None,
                       insecure_urls: bool = False) -> Draft:
    """The request's rules that need no database; InvalidRequest or SandboxKeyNotAllowed.

    The destinations' shape (exactly one of `account_ids` or `platforms`, `accounts` only
    with `platforms`) is stated by the rules of openapi.yaml's `UploadRequest`: the body is
    validated against them before a handler runs, and a 400 quotes the broken rule's
    description (fanout/http/validation.py). That `accounts` and `overrides` name only
    platforms listed in `platforms` is checked here (`_named_not_listed`): as a schema it
    takes a rule per platform, which tools that combine the rules cannot handle once there
    are more than a few platforms. `now` is what `scheduled_at` is judged against (needed
    when the body has one).
    """
    _named_not_listed(body)
    sandbox = body.get("sandbox")
    if sandbox is None:
        sandbox = key_mode == "sandbox"
    elif key_mode == "sandbox" and not sandbox:
        raise SandboxKeyNotAllowed("a sandbox key can only make sandbox posts; use a live key for sandbox: false")
    simulate_error = body.get("simulate_error")
    if simulate_error is not None and not sandbox:
        raise InvalidRequest("simulate_error is for sandbox posts only")

    media = body.get("media") or []
    overrides = normalised(body.get("overrides"))
    for where, url in _urls(media, overrides):
        try:
            parse_url(url, insecure=insecure_urls)
        except UnsafeURL as e:
            raise InvalidRequest(f"{where} {e}") from None
    return Draft(
        caption=body["caption"],
        media=media_items(media),
        sandbox=sandbox,
        simulate_error=simulate_error,
        account_ids=body.get("account_ids"),
        platforms=body.get("platforms"),
        accounts=body.get("accounts") or {},
        overrides=overrides,
        scheduled_at=scheduled_time(body.get("scheduled_at"), now),
    )


def _named_not_listed(body: dict) -> None:
    """InvalidRequest when, with `platforms`, `accounts` or `overrides` names a platform not
    listed there (openapi.yaml, the descriptions of `AccountsByPlatform` and `Overrides`),
    in the words the schema's rules used when it stated this: "body: accounts names x,
    which is not in platforms". With `account_ids`, `check_content` judges `overrides`
    once the accounts are known."""
    platforms = body.get("platforms")
    if platforms is None:
        return
    for field_name in ("accounts", "overrides"):
        for platform in body.get(field_name) or {}:
            if platform not in platforms:
                raise InvalidRequest(f"body: {field_name} names {platform}, which is not in platforms")


def _urls(media: list[dict], overrides: dict[str, dict]):
    """Every URL of the request the service or a platform will fetch, with where it is."""
    for i, item in enumerate(media):
        yield f"media[{i}].url", item["url"]
    for platform, override in overrides.items():
        at = f"overrides.{platform}"
        for i, item in enumerate(override.get("media") or ()):
            yield f"{at}.media[{i}].url", item["url"]
        for n, part in enumerate(override.get("thread") or ()):
            for i, item in enumerate(part["media"]):
                yield f"{at}.thread[{n}].media[{i}].url", item["url"]
        if "cover_url" in (override.get("options") or {}):
            yield f"{at}.options.cover_url", override["options"]["cover_url"]


def scheduled_time(value: str | None, now: _dt.datetime | None) -> _dt.datetime | None:
    """`scheduled_at` as stored (naive UTC, milliseconds), or None for "at once";
    InvalidRequest naming the field when it is no time, or too far in the past or ahead.

    The schema holds it to the same rule (`format: date-time`, fanout/times.py `parse_timestamp`).
    """
    if value is None:
        return None
    try:
        parsed = parse_timestamp(value)
    except ValueError as e:
        raise InvalidRequest(f"scheduled_at: {e}") from None
    try:
        at = parsed.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:
        raise InvalidRequest(f"scheduled_at: {value[:40]!r} is out of range; send a time between years 1 and 9999") from None
    at = at.replace(microsecond=at.microsecond // 1000 * 1000)
    if now is None:
        raise ValueError("judging scheduled_at needs the time now")
    if at < now - SCHEDULE_PAST:
        raise InvalidRequest(f"scheduled_at: {isoformat(at)} is more than {int(SCHEDULE_PAST.total_seconds())} s "
                             f"in the past (now is {isoformat(now)}); send null to publish at once")
    if at > now + SCHEDULE_AHEAD:
        raise InvalidRequest(f"scheduled_at: {isoformat(at)} is more than {SCHEDULE_AHEAD.days} days ahead "
                             f"(now is {isoformat(now)}); send a time within {SCHEDULE_AHEAD.days} days")
    return at


def _unusable(account: Account | None, account_id: str, sandbox: bool, platform: str | None = None) -> str | None:
    """Why this account cannot take the post, or None."""
    mode = "sandbox" if sandbox else "live"
    if account is None:
        return f"account {account_id!r} is not connected to this workspace"
    if platform is not None and account.platform != platform:
        return f"account {account_id!r} is on {account.platform}, not {platform}"
    if account.status != "active":
        return f"account {account_id!r} ({account.platform}) is {account.status}; reconnect it"
    if account.sandbox != sandbox:
        other = "sandbox" if account.sandbox else "live"
        return f"account {account_id!r} is a {other} account and this is a {mode} post"
    return None


def resolve_destinations(workspace_id: str, draft: Draft) -> list[Account]:
    """The destination accounts, in the order requested; AccountNotConnected otherwise."""
    if draft.account_ids:
        found = {a.id: a for a in _accounts(len(draft.account_ids)).rows(workspace_id, *draft.account_ids)}
        for account_id in draft.account_ids:
            problem = _unusable(found.get(account_id), account_id, draft.sandbox)
            if problem:
                raise AccountNotConnected(problem)
        return [found[i] for i in draft.account_ids]

    destinations = []
    for platform in draft.platforms:
        if platform in draft.accounts:
            account_id = draft.accounts[platform]
            account = Account.get_or_none((Account.id == account_id) & (Account.workspace == workspace_id))
            problem = _unusable(account, account_id, draft.sandbox, platform)
            if problem:
                raise AccountNotConnected(problem)
            destinations.append(account)
            continue
        candidates = list(Account.select().where(
            (Account.workspace == workspace_id) & (Account.platform == platform)
            & (Account.status == "active") & (Account.sandbox == draft.sandbox)).limit(2))
        mode = "sandbox" if draft.sandbox else "live"
        if not candidates:
            raise AccountNotConnected(f"no active {mode} {platform} account is connected; connect one first")
        if len(candidates) > 1:
            raise AccountNotConnected(
                f"several active {mode} {platform} accounts are connected; pick one with accounts or account_ids"
            )
        destinations.append(candidates[0])
    return destinations


def check_content(platforms, destinations: list[Account], draft: Draft) -> None:
    """Overrides only for the platforms the post reaches (400); something to publish on each
    platform, the post's, each thread part and the first comment, and nothing its rules
    refuse outright (400); what each destination account's stored details show its
    platform's content lacks (400, `Platform.account_problem`: a Pinterest board to pin
    to); each platform's media (of `platforms`, the runtime's), the post's or its
    override's and its thread's, as far as the request shows (422)."""
    reached = list(dict.fromkeys(a.platform for a in destinations))
    for platform in draft.overrides:
        if platform not in reached:
            raise InvalidRequest(f"overrides names {platform}, which this post does not reach "
                                 f"(its destinations are on {', '.join(reached)})")
    contents = {platform: (platforms[platform].rules, content_for(draft.caption, draft.media, draft.overrides, platform))
                for platform in reached}
    problem = empty_problem(contents) or refused_problem(contents)
    if problem:
        raise InvalidRequest(problem)
    for account in destinations:
        check = platforms[account.platform].account_problem
        problem = check(contents[account.platform][1].options, details_of(account), account.id) if check else None
        if problem:
            raise InvalidRequest(problem)
    for rules, content in contents.values():
        problem = media_problem(rules, content)
        if problem:
            raise UnsupportedMedia(problem)


def check_destinations(platforms, workspace_id: str, draft: Draft) -> list[Account]:
    """The rules of a draft that need the database: its destination accounts, in order
    (AccountNotConnected otherwise), overrides only for the platforms reached (400), each
    platform able to take its media as far as the request shows (UnsupportedMedia
    otherwise), by the rules of `platforms` (the runtime's)."""
    destinations = resolve_destinations(workspace_id, draft)
    check_content(platforms, destinations, draft)
    return destinations


# A wake-up task is enqueued with the post only for a target falling due within this; the
# sweeper enqueues the others' as their time comes near (fanout/tasks/publishing.py), so
# the queue holds what falls due in the next minutes, never every scheduled post.
WAKE_AHEAD = _dt.timedelta(minutes=5)


def due_time(draft_or_at, now: _dt.datetime) -> _dt.datetime:
    """When a post's targets may be claimed: its scheduled time, or now."""
    at = draft_or_at.scheduled_at if isinstance(draft_or_at, Draft) else draft_or_at
    return now if at is None else at


def wake_time(due_at: _dt.datetime, now: _dt.datetime) -> _dt.datetime | None:
    """The due time a wake-up is enqueued for at once, or None when the sweeper will do it."""
    return due_at if due_at <= now + WAKE_AHEAD else None


def create_post(rt, workspace_id: str, draft: Draft) -> tuple[Post, list[Target]]:
    """Write the post and its pending targets and count it, in one write transaction (a
    savepoint of the caller's, when the idempotency key's record is written with it)."""
    now = rt.now()
    due_at = due_time(draft, now)
    with write_transaction():
        workspace = lock_workspace(workspace_id)
        destinations = check_destinations(rt.platforms, workspace_id, draft)
        caps.count_post(workspace, now)
        # The rows go in by statements compiled once (every upload writes them), made from
        # the instances answered, without reading them back.
        post = Post(id=rt.new_id("post"), workspace=workspace, sandbox=draft.sandbox, caption=draft.caption,
                    media=json.dumps(draft.media), simulate_error=draft.simulate_error,
                    overrides=json.dumps(draft.overrides) if draft.overrides else None,
                    status=derive_status(["pending"] * len(destinations)), created_at=now,
                    scheduled_at=draft.scheduled_at)
        _INSERT_POST.execute(post)
        targets = []
        for position, account in enumerate(destinations):
            target = Target(id=rt.new_id("tgt"), post=post, account_id=account.id, platform=account.platform,
                            position=position, status="pending", attempts=0, updated_at=now, due_at=due_at,
                            wake_at=wake_time(due_at, now))
            _INSERT_TARGET.execute(target)
            targets.append(target)
        for platform in dict.fromkeys(a.platform for a in destinations):
            _INSERT_POST_PLATFORM.execute(PostPlatform(post=post, workspace=workspace, platform=platform, created_at=now))
    return post, targets


_ACCOUNTS: dict[int, Compiled] = {}


def _accounts(count: int) -> Compiled:
    """The query of `count` accounts of a workspace by id, compiled once for each count."""
    if count not in _ACCOUNTS:
        _ACCOUNTS[count] = Compiled(Account, lambda workspace, *ids: Account.select().where(
            (Account.workspace == workspace) & Account.id.in_(list(ids))), arity=count + 1)
    return _ACCOUNTS[count]


_INSERT_POST = CompiledInsert(Post)
_INSERT_TARGET = CompiledInsert(Target)
_INSERT_POST_PLATFORM = CompiledInsert(PostPlatform)
