"""A status's text as a Mastodon instance reads it (tests/emulators/README.md#mastodon):
its length, as the character cap counts it, and its content, rendered as HTML.

Length [S] (Mastodon's status length validator): the grapheme clusters of the content
warning and the text together, the text rewritten first: every link with a scheme counts
23 characters, a mention `@user@domain` as `@user`. Links are those of ../text.py that have
a scheme (a bare domain is text to Mastodon) [U approximation of twitter-text's].
"""
from __future__ import annotations

import html
import re

from ..text import link_spans, nfc
from ..threads.text import graphemes

URL_PLACEHOLDER = "x" * 23
MENTION = re.compile(r"(?<![=/\w])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)(?:@([\w.-]+\w))?", re.IGNORECASE)
HASHTAG = re.compile(r"(?<![=/\w])#(\w+)")


def _scheme_links(text: str) -> list[tuple[int, int]]:
    return [(a, b) for a, b in link_spans(text) if re.match(r"https?://", text[a:b], re.IGNORECASE)]


def status_length(text: str, spoiler_text: str = "") -> int:
    """What `configuration.statuses.max_characters` applies to."""
    text = nfc(text)
    out, at = [], 0
    for start, end in _scheme_links(text):
        out += [_mentions_local(text[at:start]), URL_PLACEHOLDER]
        at = end
    out.append(_mentions_local(text[at:]))
    return len(graphemes(nfc(spoiler_text) + "".join(out)))


def _mentions_local(text: str) -> str:
    return MENTION.sub(lambda m: f"@{m.group(1)}", text)


def render(text: str, domain: str, usernames: set[str]) -> str:
    """The status's `content` as Mastodon makes it of plain text: paragraphs, line breaks,
    links cut for display (the scheme and the tail in invisible spans), mentions of the
    instance's accounts and hashtags as links; the rest escaped."""
    text = nfc(text)
    pieces, at = [], 0
    for start, end in _scheme_links(text):
        pieces.append(_inline(text[at:start], domain, usernames))
        pieces.append(_link(text[start:end]))
        at = end
    pieces.append(_inline(text[at:], domain, usernames))
    body = "".join(pieces)
    paragraphs = [p.replace("\n", "<br />") for p in re.split(r"\n{2,}", body) if p]
    return "".join(f"<p>{p}</p>" for p in paragraphs)


def _link(url: str) -> str:
    scheme, rest = url.split("://", 1)
    shown, cut = rest[:30], rest[30:]
    return (f'<a href="{html.escape(url)}" rel="nofollow noopener" target="_blank">'
            f'<span class="invisible">{scheme}://</span><span class="{"ellipsis" if cut else ""}">'
            f'{html.escape(shown)}</span><span class="invisible">{html.escape(cut)}</span></a>')


def _inline(text: str, domain: str, usernames: set[str]) -> str:
    def mention(m: re.Match) -> str:
        user, at = m.group(1), m.group(2)
        if user.lower() not in usernames or (at and at.lower() != domain):
            return html.escape(m.group())
        return (f'<span class="h-card"><a href="https://{domain}/@{user}" class="u-url mention">'
                f"@<span>{html.escape(user)}</span></a></span>")

    def piece(chunk: str) -> str:
        out, at = [], 0
        for m in HASHTAG.finditer(chunk):
            out += [html.escape(chunk[at:m.start()]),
                    f'<a href="https://{domain}/tags/{m.group(1).lower()}" class="mention hashtag" rel="tag">'
                    f"#<span>{html.escape(m.group(1))}</span></a>"]
            at = m.end()
        return "".join(out) + html.escape(chunk[at:])

    out, at = [], 0
    for m in MENTION.finditer(text):
        out += [piece(text[at:m.start()]), mention(m)]
        at = m.end()
    return "".join(out) + piece(text[at:])
