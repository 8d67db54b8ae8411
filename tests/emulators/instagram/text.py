"""How Instagram counts a caption: "Maximum 2200 characters, 30 hashtags, and 20 @ tags".

Instagram names no unit for the 2200: the emulator counts code points after NFC. A hashtag
is "#" and word characters, a mention "@" and a username (letters, digits, "." and "_");
both start a word, so "C#" and e-mail addresses count nothing, and each occurrence counts.
"""
from __future__ import annotations

import re

from ..text import nfc

CAPTION_LIMIT, HASHTAG_LIMIT, MENTION_LIMIT = 2200, 30, 20

_HASHTAG = re.compile(r"(?<!\w)#\w+")
_MENTION = re.compile(r"(?<!\w)@[A-Za-z0-9._]+")


def caption_length(caption: str) -> int:
    return len(nfc(caption))


def hashtags(caption: str) -> int:
    return len(_HASHTAG.findall(caption))


def mentions(caption: str) -> int:
    return len(_MENTION.findall(caption))
