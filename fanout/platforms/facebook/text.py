"""Facebook's caption counts (docs/platforms.md#facebook): its length, and the link a text
post shows a preview of."""
from __future__ import annotations

import re

from ..text import extract_urls

# "63,206 characters" [S]; the unit is [U]: code points of the message as sent, our choice.
MESSAGE_LIMIT = 63206
_WEB = re.compile(r"https?://", re.IGNORECASE)


def facebook_length(caption: str) -> int:
    return len(caption)


def link_of(caption: str) -> str | None:
    """The first web link of a caption (http or https, as written), which a text post sends
    as its `link` so that the Page shows its preview; None when it has none."""
    return next((url for url in extract_urls(caption) if _WEB.match(url)), None)
