"""Text as the platforms' apps read it, for the emulators' caption rules: links
(twitter-text's rules, which X documents and the Threads app follows for its link cap) and
emoji sequences (Unicode's emoji sequences). Written from the platforms' documentation,
never from the service's code (tests/emulators/README.md#counting-text).

Simpler than twitter-text on purpose, where the README says so: a bare domain links only
with a TLD of `TLDS`; emoji are Unicode's sequences, not twemoji's list.
"""
from __future__ import annotations

import re
import unicodedata


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# --- links ----------------------------------------------------------------------------------

# Generic TLDs people write bare, and every country code: twitter-text links a bare
# "name.<ccTLD>" too ("example.jp", "a.ba").
_GENERIC = """
com net org edu gov mil int info biz name pro aero asia cat coop jobs mobi museum tel travel
app dev page blog shop store online site tech xyz club news live link art design cloud
"""
_COUNTRY = """
ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt
bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg
er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn
hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li
lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne
nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb
sc sd se sg sh si sj sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr
tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw
"""
TLDS = frozenset((_GENERIC + _COUNTRY).split())
_TLD = "(?:" + "|".join(sorted(TLDS, key=lambda t: (-len(t), t))) + r"|xn--[a-z0-9-]+)"

# twitter-text takes Latin letters with accents for ASCII in a bare domain ("café.com").
_LATIN = r"a-z0-9\xc0-\xd6\xd8-\xf6\xf8-\u024f"
_ASCII_LABEL = rf"[{_LATIN}](?:[{_LATIN}-]{{0,61}}[{_LATIN}])?"
_ANY_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
# A link is not after an ASCII letter or digit, @, $ or # (nor -, _, ., / for a bare
# domain), and its TLD is not followed by an ASCII letter or digit, @, + or -.
_LINK = re.compile(
    rf"(?:(?<![a-z0-9@$#＠＃])(?P<scheme>https?://)(?:{_ANY_LABEL}\.)+{_TLD}"
    rf"|(?<![a-z0-9@$#＠＃./_-])(?:{_ASCII_LABEL}\.)+{_TLD})"
    r"(?![a-z0-9@+-])(?::[0-9]+)?(?P<rest>[/?][^\s<>\"]*)?",
    re.IGNORECASE,
)
# What a link's path may not end with: sentence punctuation after it is the sentence's.
_TRAILING = ".,;:!?'\"*([{"


def links(text: str) -> list[str]:
    """The links in `text` (after NFC), in order: http(s) URLs and bare domains."""
    found = []
    for m in _LINK.finditer(nfc(text)):
        link = m.group()
        if m.group("rest"):
            link = _trim(link)
        found.append(link)
    return found


def _trim(link: str) -> str:
    while link and (link[-1] in _TRAILING or link[-1] == ")" and link.count("(") < link.count(")")):
        link = link[:-1]
    return link


def link_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each link in `text`, which must already be NFC."""
    spans = []
    for m in _LINK.finditer(text):
        link = _trim(m.group()) if m.group("rest") else m.group()
        spans.append((m.start(), m.start() + len(link)))
    return spans


# --- emoji ----------------------------------------------------------------------------------

# Pictographs: the emoji blocks, the dingbats and symbols, and the older symbols that are
# emoji (Unicode's emoji-data); © and ® only when followed by U+FE0F (emoji presentation).
_PICTOGRAPH = (
    r"[\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a\u231b\u2328\u23cf\u23e9-\u23f3"
    r"\u23f8-\u23fa\u24c2\u25aa\u25ab\u25b6\u25c0\u25fb-\u25fe\u2600-\u27bf\u2934\u2935"
    r"\u2b05-\u2b07\u2b1b\u2b1c\u2b50\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff]"
)
_TONE = r"[\U0001f3fb-\U0001f3ff]"
_ELEMENT = rf"(?:[\xa9\xae]\ufe0f|{_PICTOGRAPH}(?:\ufe0f|{_TONE})?)"
EMOJI = re.compile(
    r"[\U0001f1e6-\U0001f1ff]{2}"  # a flag: two regional indicators
    r"|[#*0-9]\ufe0f?\u20e3"  # a keycap
    r"|\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"  # a subdivision flag (tag sequence)
    rf"|{_ELEMENT}(?:\u200d{_ELEMENT})*(?!\ufe0e)"  # pictographs joined by ZWJ
)
