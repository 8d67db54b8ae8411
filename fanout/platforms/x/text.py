"""X's caption count: twitter-text v3's weighted length (docs/platforms.md#x), the number X's
280 limit applies to. URL extraction is shared (fanout/platforms/text.py); the emoji are
twemoji-parser's, as X counts them."""
from __future__ import annotations

import re

from ..text import SKIN_TONE, alternation, char_class, nfc, parse_ranges, unit_offsets, url_spans, utf16_units


# Code points that weigh 1 (scale 100, weight 100) are U+0000-U+10FF, U+2000-U+200D,
# U+2010-U+201F and U+2032-U+2037; everything else weighs 2, surrogates included.
_X_HEAVY = re.compile(r"[^\x00-\u10ff\u2000-\u200d\u2010-\u201f\u2032-\u2037]")
_SURROGATE_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")
_X_URL_LENGTH = 23  # transformedURLLength
_X_EMOJI_LENGTH = 2  # defaultWeight / scale


def x_weighted_length(s: str) -> int:
    """twitter-text v3 `weightedLength`, the number X's 280 limit applies to.

    NFC first; each URL `extract_urls` finds counts 23, whatever its length; each emoji of
    twemoji-parser 11's list counts 2 (see `_X_EMOJI`); any other code point counts 1 inside
    the config's ranges (Latin, Greek, Cyrillic, Hebrew, Arabic, ..., some punctuation) and 2
    outside them (CJK, Hangul syllables, astral planes, ...). tests/platforms/x/test_text_reference.py
    checks it against the official twitter-text 3.1.0.
    """
    text = nfc(s)
    # twitter-text walks the JavaScript string: UTF-16 code units, where an astral code point
    # is a surrogate pair (see `utf16_units`). The emoji are found on code points (an emoji
    # is whole pairs), then placed in units.
    units = utf16_units(text)
    unit_at = unit_offsets(text) if len(units) != len(text) else range(len(text) + 1)
    entities = {unit_at[start]: (unit_at[end], _X_EMOJI_LENGTH) for start, end in _x_emoji_spans(text)}
    # It looks for a URL first at each index, then for an emoji, and skips as many units as
    # the URL's text has (see `url_spans`); an entity starting inside a skipped one is lost.
    entities.update({start: (start + len(url), _X_URL_LENGTH) for start, url in url_spans(units)})
    total, i = 0, 0
    for start in sorted(entities):
        if start >= i:
            end, weight = entities[start]
            total += _x_plain_weight(units[i:start]) + weight
            i = end
    return total + _x_plain_weight(units[i:])


def _x_plain_weight(units: str) -> int:
    """The weight of UTF-16 units outside URLs and emoji: 1 or 2 each, but 2 for a pair."""
    return len(units) + len(_X_HEAVY.findall(units)) - 2 * len(_SURROGATE_PAIR.findall(units))


# X (`_X_EMOJI`) counts what twitter-text 3.1.0 counts: the emoji twemoji-parser 11.0.2 (its
# dependency) finds. Its regex is no rule but a list, the emoji of Emoji 11.0, tried in this
# order, the first that matches winning:
#   1. man or woman, optional skin tone, ZWJ, a role (⚕ ⚖ ✈ with U+FE0F, or 🌾 🍳 🎓 💻 ...)
#   2. 🏋 🏌 🕴 🕵 ⛹, a skin tone or U+FE0F, ZWJ, ♀ or ♂, U+FE0F
#   3. another gendered person, optional skin tone, ZWJ, ♀ or ♂, U+FE0F
#   4. the other ZWJ sequences, one by one (families, kisses, couples, 🏳️‍🌈, 🏴‍☠️, 👁‍🗨, ...)
#   5. a keycap; ©, ®, ™ or ♟ with U+FE0F
#   6. an emoji shown as text by default: with U+FE0F, or alone if U+FE0E does not follow
#   7. a person that takes a skin tone (as 6 if shown as text by default), optional skin tone
#   8. the tag flags of England, Scotland and Wales; the flags of its country list; any other
#      emoji of the list alone (a lone regional indicator or skin tone among them)
#   9. a U+FE0F alone.
# So a ZWJ chain it does not list is its parts, the ZWJ a code point of weight 1 (👨‍😀 and
# 🧑‍💻, from Emoji 12.1, weigh 5); U+FE0F after an emoji that takes none is an emoji of its
# own (😀 U+FE0F weighs 4); two regional indicators naming no country are two emoji (🇦🇦, 4);
# an emoji newer than 11.0 is no emoji, and weighs 2 as any astral code point.
# tests/data/twitter_text_v3.json has a case of each.


def _x_emoji_spans(text: str) -> list[tuple[int, int]]:
    """`_X_EMOJI.finditer`'s spans, tried only where an emoji can start: most text has none."""
    spans: list[tuple[int, int]] = []
    for candidate in _X_EMOJI_START.finditer(text):
        if not spans or candidate.start() >= spans[-1][1]:
            if m := _X_EMOJI.match(text, candidate.start()):
                spans.append(m.span())
    return spans


def _hex_sequence(codes: str) -> str:
    """ "1f441-200d-1f5e8" (twemoji's file names) as the string it names."""
    return "".join(chr(int(code, 16)) for code in codes.split("-"))


# twemoji-parser 11.0.2's list (its dist/lib/regex.js) as code points in hex; the Emoji
# section's comment says how `_X_EMOJI` uses each table.
_TWEMOJI_ROLES = "1F33E 1F373 1F393 1F3A4 1F3A8 1F3EB 1F3ED 1F4BB 1F4BC 1F527 1F52C 1F680 1F692 1F9B0-1F9B3"
_TWEMOJI_GENDERED = """
1F3C3-1F3C4 1F3CA 1F46E 1F471 1F473 1F477 1F481-1F482 1F486-1F487 1F645-1F647 1F64B 1F64D-1F64E
1F6A3 1F6B4-1F6B6 1F926 1F935 1F937-1F939 1F93D-1F93E 1F9B8-1F9B9 1F9D6-1F9DD
"""
_TWEMOJI_SEQUENCES = """
1f468-200d-2764-fe0f-200d-1f48b-200d-1f468 1f469-200d-2764-fe0f-200d-1f48b-200d-1f468
1f469-200d-2764-fe0f-200d-1f48b-200d-1f469 1f468-200d-2764-fe0f-200d-1f468
1f469-200d-2764-fe0f-200d-1f468 1f469-200d-2764-fe0f-200d-1f469
1f468-200d-1f468-200d-1f466-200d-1f466 1f468-200d-1f468-200d-1f467-200d-1f466
1f468-200d-1f468-200d-1f467-200d-1f467 1f468-200d-1f469-200d-1f466-200d-1f466
1f468-200d-1f469-200d-1f467-200d-1f466 1f468-200d-1f469-200d-1f467-200d-1f467
1f469-200d-1f469-200d-1f466-200d-1f466 1f469-200d-1f469-200d-1f467-200d-1f466
1f469-200d-1f469-200d-1f467-200d-1f467 1f468-200d-1f468-200d-1f466 1f468-200d-1f468-200d-1f467
1f468-200d-1f469-200d-1f466 1f468-200d-1f469-200d-1f467 1f469-200d-1f469-200d-1f466
1f469-200d-1f469-200d-1f467 1f468-200d-1f466-200d-1f466 1f468-200d-1f467-200d-1f466
1f468-200d-1f467-200d-1f467 1f469-200d-1f466-200d-1f466 1f469-200d-1f467-200d-1f466
1f469-200d-1f467-200d-1f467 1f468-200d-1f466 1f468-200d-1f467 1f469-200d-1f466 1f469-200d-1f467
1f3f3-fe0f-200d-1f308 1f3f4-200d-2620-fe0f 1f441-200d-1f5e8 1f46f-200d-2640-fe0f
1f46f-200d-2642-fe0f 1f93c-200d-2640-fe0f 1f93c-200d-2642-fe0f 1f9de-200d-2640-fe0f
1f9de-200d-2642-fe0f 1f9df-200d-2640-fe0f 1f9df-200d-2642-fe0f
"""
_TWEMOJI_TEXT_DEFAULT = """
203C 2049 2139 2194-2199 21A9-21AA 231A-231B 2328 23CF 23ED-23EF 23F1-23F2 23F8-23FA 24C2
25AA-25AB 25B6 25C0 25FB-25FE 2600-2604 260E 2611 2614-2615 2618 2620 2622-2623 2626 262A
262E-262F 2638-263A 2640 2642 2648-2653 2660 2663 2665-2666 2668 267B 267F 2692-2697 2699
269B-269C 26A0-26A1 26AA-26AB 26B0-26B1 26BD-26BE 26C4-26C5 26C8 26CF 26D1 26D3-26D4 26E9-26EA
26F0-26F5 26F8 26FA 26FD 2702 2708-2709 270F 2712 2714 2716 271D 2721 2733-2734 2744 2747 2757
2763-2764 27A1 2934-2935 2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299 1F004 1F170-1F171
1F17E-1F17F 1F202 1F21A 1F22F 1F237 1F321 1F324-1F32C 1F336 1F37D 1F396-1F397 1F399-1F39B
1F39E-1F39F 1F3CD-1F3CE 1F3D4-1F3DF 1F3F3 1F3F5 1F3F7 1F43F 1F441 1F4FD 1F549-1F54A 1F56F-1F570
1F573 1F576-1F579 1F587 1F58A-1F58D 1F5A5 1F5A8 1F5B1-1F5B2 1F5BC 1F5C2-1F5C4 1F5D1-1F5D3
1F5DC-1F5DE 1F5E1 1F5E3 1F5E8 1F5EF 1F5F3 1F5FA 1F6CB 1F6CD-1F6CF 1F6E0-1F6E5 1F6E9 1F6F0 1F6F3
"""
_TWEMOJI_TEXT_DEFAULT_TONED = "261D 26F7 26F9 270C-270D 1F3CB-1F3CC 1F574-1F575 1F590"
_TWEMOJI_TONED = """
270A-270B 1F385 1F3C2-1F3C4 1F3C7 1F3CA 1F442-1F443 1F446-1F450 1F466-1F469 1F46E 1F470-1F478
1F47C 1F481-1F483 1F485-1F487 1F4AA 1F57A 1F595-1F596 1F645-1F647 1F64B-1F64F 1F6A3 1F6B4-1F6B6
1F6C0 1F6CC 1F918-1F91C 1F91E-1F91F 1F926 1F930-1F939 1F93D-1F93E 1F9B5-1F9B6 1F9B8-1F9B9
1F9D1-1F9DD
"""
_TWEMOJI_FLAGS = """
AC AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR
BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CP CR CU CV CW CX CY CZ DE DG DJ DK DM DO
DZ EA EC EE EG EH ER ES ET EU FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT
GU GW GY HK HM HN HR HT HU IC ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR
KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU
MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY
QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TF TG
TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM UN US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA
ZM ZW
"""
# U+E50A, a private-use code point, is in twemoji-parser's list too, so it is an emoji to X.
_TWEMOJI_SINGLE = """
23E9-23EC 23F0 23F3 267E 26CE 2705 2728 274C 274E 2753-2755 2795-2797 27B0 27BF E50A 1F0CF 1F18E
1F191-1F19A 1F1E6-1F1FF 1F201 1F232-1F236 1F238-1F23A 1F250-1F251 1F300-1F320 1F32D-1F335
1F337-1F37C 1F37E-1F384 1F386-1F393 1F3A0-1F3C1 1F3C5-1F3C6 1F3C8-1F3C9 1F3CF-1F3D3 1F3E0-1F3F0
1F3F4 1F3F8-1F43E 1F440 1F444-1F445 1F451-1F465 1F46A-1F46D 1F46F 1F479-1F47B 1F47D-1F480 1F484
1F488-1F4A9 1F4AB-1F4FC 1F4FF-1F53D 1F54B-1F54E 1F550-1F567 1F5A4 1F5FB-1F644 1F648-1F64A
1F680-1F6A2 1F6A4-1F6B3 1F6B7-1F6BF 1F6C1-1F6C5 1F6D0-1F6D2 1F6EB-1F6EC 1F6F4-1F6F9 1F910-1F917
1F91D 1F920-1F925 1F927-1F92F 1F93A 1F93C 1F940-1F945 1F947-1F970 1F973-1F976 1F97A 1F97C-1F9A2
1F9B4 1F9B7 1F9C0-1F9C2 1F9D0 1F9DE-1F9FF
"""


def _twemoji(table: str) -> str:
    return char_class(parse_ranges(table))


_NOT_AS_TEXT = r"(?:\ufe0f|(?!\ufe0e))"
_AS_WOMAN_OR_MAN = "\u200d[\u2640\u2642]\ufe0f"
# twemoji-parser's alternatives in its order (1 to 9 in the comment above `_x_emoji_spans`); a
# `alternation` tries longer sequences first, as twemoji-parser's own order does.
_X_EMOJI = re.compile("|".join([
    rf"[\U0001f468\U0001f469]{SKIN_TONE}?\u200d(?:[\u2695\u2696\u2708]\ufe0f|{_twemoji(_TWEMOJI_ROLES)})",
    rf"[\U0001f3cb\U0001f3cc\U0001f574\U0001f575\u26f9](?:{SKIN_TONE}|\ufe0f){_AS_WOMAN_OR_MAN}",
    rf"{_twemoji(_TWEMOJI_GENDERED)}{SKIN_TONE}?{_AS_WOMAN_OR_MAN}",
    alternation([_hex_sequence(codes) for codes in _TWEMOJI_SEQUENCES.split()]),
    r"[#*0-9]\ufe0f?\u20e3",
    "[\xa9\xae\u2122\u265f]\ufe0f",
    rf"{_twemoji(_TWEMOJI_TEXT_DEFAULT)}{_NOT_AS_TEXT}",
    rf"(?:{_twemoji(_TWEMOJI_TEXT_DEFAULT_TONED)}{_NOT_AS_TEXT}|{_twemoji(_TWEMOJI_TONED)}){SKIN_TONE}?",
    alternation(["\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in tag) + "\U000e007f"
                  for tag in ("gbeng", "gbsct", "gbwls")]),
    alternation([chr(0x1F1A5 + ord(a)) + chr(0x1F1A5 + ord(b)) for a, b in _TWEMOJI_FLAGS.split()]),
    _twemoji(_TWEMOJI_SINGLE),
    "\ufe0f",
]))
# Where one can start: the first code points of the alternatives above.
_X_EMOJI_START = re.compile(char_class(
    [r for t in (_TWEMOJI_GENDERED, _TWEMOJI_TEXT_DEFAULT, _TWEMOJI_TEXT_DEFAULT_TONED, _TWEMOJI_TONED,
                 _TWEMOJI_SINGLE) for r in parse_ranges(t)]
    + [(int(codes[:codes.index("-")], 16),) * 2 for codes in _TWEMOJI_SEQUENCES.split()]
    + [(ord(c), ord(c)) for c in "#*0123456789\xa9\xae\u2122\u265f\ufe0f"]
))
