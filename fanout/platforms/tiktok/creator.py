"""What TikTok's creator info decides of a post (docs/platforms.md#the-tiktok-adapter): its
privacy level, among those the creator is offered; the settings the creator turned off,
which stay off; the longest video the creator may post. TikTok requires the info read
before every post (the adapter's `creator_info`)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...target_errors import OPTION, UNKNOWN, UNSUPPORTED
from ..base import Job, Stop, failed
from ..mapping import number
from .oauth import TITLE

# Most public first: the default privacy level is the first of these the creator offers.
PRIVACY_ORDER = ("PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY")
# (the option, the creator info's setting that turns it on for good, what it turns off)
CREATOR_OFF = (("disable_comment", "comment_disabled", "comments"), ("disable_duet", "duet_disabled", "duets"),
               ("disable_stitch", "stitch_disabled", "stitches"))


def post_info(creator: Mapping[str, Any], job: Job, setting: str | None, *, title: bool) -> dict:
    """The post's `post_info`: the privacy level (the post's option, else the server's
    `setting`, else the most public the creator is offered), the creator's settings with
    the post's options, the title (the caption, when `title`)."""
    options = [o for o in creator.get("privacy_level_options") or [] if isinstance(o, str)]
    offered = ", ".join(options) or "no level"
    chosen = job.options.get("privacy_level")
    if chosen is not None and chosen not in options:
        raise Stop(failed(OPTION, f"options.privacy_level is {chosen}, which TikTok does not offer this creator; "
                                  f"it offers {offered}"))
    wanted = chosen or setting
    if wanted is not None and wanted not in options:
        raise Stop(failed(UNKNOWN, f"FANOUT_TIKTOK_PRIVACY_LEVEL is {wanted}, which this creator does not "
                                    f"offer; TikTok offers {offered}"))
    level = wanted or next((o for o in PRIVACY_ORDER if o in options), options[0] if options else None)
    if level is None:
        raise Stop(failed(UNKNOWN, f"{TITLE} offers this creator no privacy level to post with"))
    info: dict[str, Any] = {"privacy_level": level}
    for option, setting_, noun in CREATOR_OFF:
        # A setting the creator turned off stays off (TikTok's content sharing guidelines).
        off, asked = bool(creator.get(setting_)), job.options.get(option)
        if off and asked is False:
            raise Stop(failed(OPTION, f"options.{option} is false, but this creator turned {noun} off on "
                                      f"{TITLE}, where they stay off"))
        info[option] = off or bool(asked)
    for option in ("brand_content_toggle", "brand_organic_toggle", "is_aigc"):
        if option in job.options:
            info[option] = bool(job.options[option])
    if title and job.caption:
        info["title"] = job.caption
    return info


def check_duration(info, creator: Mapping[str, Any]) -> None:
    """A video longer than the creator may post fails before it is started."""
    longest = number(creator.get("max_video_post_duration_sec"))
    if longest and info.duration is not None and info.duration > longest:
        raise Stop(failed(UNSUPPORTED,
                           f"media[0]: the video lasts {info.duration:.1f} s; this TikTok creator may post "
                           f"videos of {longest} s at most"))
