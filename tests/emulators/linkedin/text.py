"""LinkedIn's "little text format", the format of a post's `commentary` (reference: the
Little Text Format page of LinkedIn's Marketing API docs).

The characters `\\ | { } @ [ ] ( ) < > # * _ ~` are reserved: written with a backslash before
them they show as themselves. Unescaped, they are syntax: `@[Name](urn:li:person:...)` a
mention, `#word` a hashtag. An unescaped reserved character that starts nothing LinkedIn
knows cuts the post there: the call succeeds, the feed shows the text before it (seen by
clients, [S]). The 3,000-character cap counts the commentary as sent, escapes included
[U], in code points.
"""
from __future__ import annotations

import re

RESERVED = frozenset("\\|{}@[]()<>#*_~")
COMMENTARY_LIMIT = 3000
_MENTION = re.compile(r"@\[([^\]\\]*)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)")
_HASHTAG = re.compile(r"#(\w+)")


def shown(commentary: str) -> str:
    """What the feed shows for `commentary`."""
    out, i = [], 0
    while i < len(commentary):
        ch = commentary[i]
        if ch == "\\" and i + 1 < len(commentary) and commentary[i + 1] in RESERVED:
            out.append(commentary[i + 1])
            i += 2
            continue
        if ch == "@" and (m := _MENTION.match(commentary, i)):
            out.append(m.group(1))
            i = m.end()
            continue
        if ch == "#" and (m := _HASHTAG.match(commentary, i)):
            out.append(m.group())
            i = m.end()
            continue
        if ch in RESERVED:
            break  # cut here
        out.append(ch)
        i += 1
    return "".join(out)


def length(commentary: str) -> int:
    return len(commentary)
