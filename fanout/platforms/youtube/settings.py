"""YouTube's settings beyond its app's id and secret: names, defaults and how each is read
(documented in the README's "YouTube" section and settings table;
contracts/test_platform_registry.py holds them together)."""
from dataclasses import dataclass

from ...setting_parsers import Matching, WholeNumber
from ..description import Setting

# The Cloud project's videos.insert calls a day: 100 where they have a bucket of their own
# (YouTube's newer quota page), 6 on the older 10,000 units at 1,600 each [CONFLICT].
DEFAULT_DAILY_UPLOADS = 100
DEFAULT_CATEGORY = "22"  # People & Blogs, the usual default


@dataclass(frozen=True)
class YoutubeSettings:
    # The uploads the app's project may make a day, counted from midnight Pacific Time.
    daily_uploads: int = DEFAULT_DAILY_UPLOADS
    # The `snippet.categoryId` of every video.
    category_id: str = DEFAULT_CATEGORY


SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_YOUTUBE_DAILY_UPLOADS", str(DEFAULT_DAILY_UPLOADS),
            "the uploads the app's Cloud project may make a day (its quota)", "daily_uploads",
            WholeNumber("uploads", 100_000)),
    Setting("FANOUT_YOUTUBE_CATEGORY_ID", DEFAULT_CATEGORY, "the category of every video (snippet.categoryId)",
            "category_id", Matching(r"[0-9]{1,3}", "a category id of digits, such as 22")),
)
