"""Per-platform content (openapi.yaml, `Overrides`; docs/decisions.md#per-platform-content):
what one platform's targets of a post publish, and the rules that content meets.

A post has a caption and media; `overrides` may give a platform its own caption, media
and options, a thread of further parts (x, threads) and a first comment (instagram,
threads, x). `content_for` is the one place the effective content of a platform is worked
out: the upload checks it, the views show it, the engine and the sandbox publish it.

Three kinds of problem, as for a post's own caption and media:
- content that carries nothing a platform could publish (no text and no media where the
  platform needs one of them, a blank thread part or first comment): `empty_problem`,
  and content a platform refuses outright (`refused_problem`: characters YouTube's
  description refuses), 400 at upload, on an edit and in a preflight;
- what the request shows a platform cannot take at all (media it never takes, in the
  post or a part): `media_problem`, 422 at upload;
- what fails only that platform's targets (a caption, part or comment over the
  platform's cap; an option this content cannot take): `target_problems`, found before
  any platform call, by the engine, the sandbox and the preflight alike.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from .platforms.base import Job, Part
from .platforms.rules import Needs, PlatformRules
from .target_errors import CAPTION


@dataclass(frozen=True)
class Content:
    """What the targets of one platform publish."""

    caption: str
    media: tuple[Mapping[str, str], ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    thread: tuple[Part, ...] = ()
    first_comment: str | None = None
    # Whether the caption and the media are the override's and differ from the post's:
    # a target shows them only then (openapi.yaml, `Target`).
    own_caption: bool = False
    own_media: bool = False


@dataclass(frozen=True)
class Problem:
    """A target-level problem: its code (fanout/target_errors.py) and message."""

    code: str
    message: str


def parse_overrides(value: str | None) -> dict[str, dict]:
    """A post's stored overrides (JSON, None when it has none)."""
    return json.loads(value) if value else {}


def normalised(overrides: Mapping[str, Any] | None) -> dict[str, dict]:
    """Overrides as stored: media items and thread parts reduced to their fields (the
    schema allowed nothing else), empty overrides dropped."""
    stored = {}
    for platform, override in (overrides or {}).items():
        kept = {}
        if "caption" in override:
            kept["caption"] = override["caption"]
        if "media" in override:
            kept["media"] = media_items(override["media"])
        if override.get("options"):
            kept["options"] = dict(override["options"])
        if override.get("thread"):
            kept["thread"] = [{"caption": part["caption"], "media": media_items(part.get("media") or [])}
                              for part in override["thread"]]
        if override.get("first_comment") is not None:
            kept["first_comment"] = override["first_comment"]
        if kept:
            stored[platform] = kept
    return stored


def content_for(caption: str, media: list[Mapping[str, str]], overrides: Mapping[str, dict],
                platform: str) -> Content:
    """What `platform`'s targets publish: its override's fields, the post's otherwise."""
    override = overrides.get(platform) or {}
    own_caption = "caption" in override and override["caption"] != caption
    own_media = "media" in override and list(override["media"]) != list(media)
    return Content(
        caption=override["caption"] if own_caption else caption,
        media=tuple(override["media"] if own_media else media),
        options=dict(override.get("options") or {}),
        thread=tuple(Part(p["caption"], tuple(p.get("media") or ())) for p in override.get("thread") or ()),
        first_comment=override.get("first_comment"),
        own_caption=own_caption,
        own_media=own_media,
    )


def carries_nothing(rules: PlatformRules, caption: str, media) -> bool:
    """Whether a post (or a thread part) of `caption` and `media` lacks what the platform of
    `rules` needs (`PlatformRules.needs`): a blank caption is no text. No media where media
    is needed is `media_problem`'s, a 422 of its own."""
    return rules.needs is Needs.TEXT_OR_MEDIA and not caption.strip() and not media


def empty_problem(reached: Mapping[str, tuple[PlatformRules, Content]]) -> str | None:
    """Why the content of the platforms `reached` (each platform's rules and content, in
    order) carries nothing to publish somewhere: the post's own content on each platform
    that needs text or media, named together; else a blank thread part or first comment.
    400 `validation_error` at upload, on an edit and in a preflight (fanout/models/upload.py)."""
    empty: dict[Needs, list[str]] = {}
    for platform, (rules, content) in reached.items():
        if carries_nothing(rules, content.caption, content.media):
            empty.setdefault(rules.needs, []).append(platform)
    if empty:
        names = [name for platforms in empty.values() for name in platforms]
        needs = "; ".join(f"{_and(platforms)} {'needs' if len(platforms) == 1 else 'need'} {need.value}"
                          for need, platforms in empty.items())
        those = "that platform" if len(names) == 1 else "those platforms"
        return (f"the post has no text and no media, and {needs}: write a caption, add media, "
                f"or give {those} an override's")
    for platform, (rules, content) in reached.items():
        for index, part in enumerate(content.thread):
            if carries_nothing(rules, part.caption, part.media):
                return (f"overrides.{platform}.thread[{index}] has no text and no media; {platform} needs "
                        f"{rules.needs.value}: write it or leave the part out")
        if content.first_comment is not None and not content.first_comment.strip():
            return f"overrides.{platform}.first_comment is blank: write the comment or leave it out"
    return None


def refused_problem(reached: Mapping[str, tuple[PlatformRules, Content]]) -> str | None:
    """What the rules of a platform `reached` refuse outright in its content, though no cap
    or media rule names it (`PlatformRules.request_problem`): 400 `validation_error` at
    upload, on an edit and in a preflight (fanout/models/upload.py)."""
    for rules, content in reached.values():
        if rules.request_problem is not None and (problem := rules.request_problem(content.caption, content.options)):
            return problem
    return None


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def media_problem(rules: PlatformRules, content: Content) -> str | None:
    """Why the platform of `rules` cannot take this content's media (the post's or a
    part's), as far as the request alone shows: 422 `unsupported_media_for_platform` at
    upload. `content` is a Content, or a Job (fanout/platforms/base.py), which carries the
    same fields."""
    problem = rules.media_problem(list(content.media))
    if problem:
        return problem
    for index, part in enumerate(content.thread):
        if part.media and (problem := rules.media_problem(list(part.media))):
            return problem.replace(f"{rules.platform}: ", f"{rules.platform}: thread[{index}].", 1)
    return None


def target_problems(rules: PlatformRules, content: Content) -> list[Problem]:
    """Every problem that fails the targets of the platform of `rules` before any call, in
    the order they are reported: the caption, each thread part, the first comment, the
    options. `content` is a Content, or a Job (fanout/platforms/base.py), which carries the
    same fields."""
    found = []
    if problem := rules.caption_problem(content.caption):
        found.append(Problem(CAPTION, problem))
    for index, part in enumerate(content.thread):
        if problem := rules.caption_problem(part.caption, f"thread[{index}].caption"):
            found.append(Problem(CAPTION, problem))
    if content.first_comment is not None and (problem := rules.comment_problem(content.first_comment)):
        found.append(Problem(CAPTION, problem))
    check = rules.options_problem
    if content.options and check is not None and (problem := check(content.options, content.media)):
        found.append(Problem(*problem))
    return found


def media_items(items) -> list[dict]:
    """Media items as stored: their url, type and alt text (when given)."""
    return [{"url": item["url"], "type": item["type"], **({"alt_text": item["alt_text"]} if "alt_text" in item else {})}
            for item in items]


def job_of(rt, account, content: Content, *, target_id: str, state=None, simulate_error: str | None = None,
           published_last_24h: int = 0) -> Job:
    """What an adapter is given to publish (or foresee) `content` on `account`: one
    construction for the engine and the preflight, so both hand an adapter the same job."""
    return Job(
        target_id=target_id,
        platform=account.platform,
        user_id=account.platform_user_id,
        username=account.username,
        access_token=rt.keyring.decrypt(account.access_token) if account.access_token else "",
        caption=content.caption,
        media=tuple(content.media),
        state=state or {},
        simulate_error=simulate_error,
        published_last_24h=published_last_24h,
        options=content.options,
        thread=content.thread,
        first_comment=content.first_comment,
    )
