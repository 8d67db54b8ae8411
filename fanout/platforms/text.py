"""The text machinery platforms count captions with: Unicode normalisation, UTF-16 units,
twitter-text's URL extraction, grapheme clusters and emoji.

Each platform's own count is in its package (`x/text.py`, `threads/text.py`,
`instagram/text.py`); the API's request rules and the adapters count with the same
functions (docs/platforms.md#caption-counting), so that a caption the API lets through is
one the adapter sends; the emulators count on their own
(tests/emulators/README.md#counting-text). Standard library only: the emoji and TLD
tables this needs are embedded at the bottom of the module.
"""
from __future__ import annotations

import bisect
import itertools
import re
import struct
import unicodedata


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def utf16_len(s: str) -> int:
    """UTF-16 code units ("runes"): TikTok's unit for titles and descriptions (docs/platforms.md#tiktok).

    Counted on the text as given, not NFC: TikTok counts what it receives.
    """
    # surrogatepass: a lone surrogate can arrive through a JSON "\ud800" escape; it is one unit.
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


# --- URLs, and text as JavaScript sees it -----------------------------------------------------


def extract_urls(s: str) -> list[str]:
    """The URLs twitter-text finds in `s` (after NFC), in order."""
    return [_from_utf16_units(url) for _, url in url_spans(utf16_units(nfc(s)))]


def utf16_units(text: str) -> str:
    """`text` as JavaScript sees it: a character per UTF-16 code unit, surrogates for astral ones.

    twitter-text's regexes have no `u` flag, so they match units: a character class takes
    one half of a pair. It shows: "@😀-example.com" links "-example.com", the first half of
    😀 taken as the character before the domain and the second as its first letter.
    """
    if text.isascii() or max(text) <= "\uffff":
        return text
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(map(chr, struct.unpack(f"<{len(data) // 2}H", data)))


def _from_utf16_units(units: str) -> str:
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def unit_offsets(text: str) -> list[int]:
    """For each code point index of `text` (and its end), the UTF-16 unit index."""
    return list(itertools.accumulate((2 if ch > "\uffff" else 1 for ch in text), initial=0))


# --- URL extraction: a port of twitter-text's extractUrlsWithIndices ------------------------
#
# Covered as twitter-text (js/src, v3) does it: http(s) URLs and bare domains. A domain is
# labels of letters and digits of any script with inner "-" (and "_" before the last label),
# ending in a TLD of twitter-text's own list (below: not today's IANA list, for the count to
# agree with twitter-text's) or any punycode "xn--" TLD; then an optional port, path
# (balanced parentheses allowed, trailing punctuation left out) and query. A t.co URL stops
# after its slug. A label over 63 characters once punycoded, or a URL over 4096 characters,
# is no URL. Bare domains (no scheme), never after "-", "_", "." or "/": only the runs of
# ASCII labels (Latin accented letters count as ASCII) before a TLD link, and that TLD may
# be any of the list ("ßgoogle.com.世界" links "google.com.世界" after the "ß" taken as the
# preceding character; "例え.jp" links nothing, "http://例え.jp" does). twitter-text 3 links
# a bare "name.<ccTLD>" too ("foo.jp", "a.ba"), where older versions took only .co and .tv.
# The patterns run on UTF-16 units and fold letter case as JavaScript does (`utf16_units`,
# `_caseless`). Not covered: hosts that are IP addresses (twitter-text extracts none either).
# Deliberate differences, so that no text can make the regex slow (twitter-text's own regex
# is quadratic on long runs of dotted words): a label is matched up to 126 units only (one
# valid once punycoded has at most 63 code points; twitter-text matched longer ones, dropped
# the URL and went on after it, where a shorter label inside the long one may link here),
# and a domain up to 32 labels (real ones have a handful; a longer run of labels links only
# its last 32 here). Worst case is then linear, under a second for 50,000 characters of
# dotted words.

_PUNCT = r"!'#%&'()*+,\\\-./:;<=>?@\[\]^_{|}~$"
_SPACES = r"\t-\r \x85\xa0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_INVALID = r"\ufffe\ufeff\uffff"
_DIRECTIONAL = r"\u202a-\u202e\u061c\u200e\u200f\u2066-\u2069"
_LATIN_ACCENTS = (
    r"\xc0-\xd6\xd8-\xf6\xf8-\xff\u0100-\u024f\u0253\u0254\u0256\u0257\u0259\u025b\u0263"
    r"\u0268\u026f\u0272\u0289\u028b\u02bb\u0300-\u036f\u1e00-\u1eff"
)
_CYRILLIC = r"\u0400-\u04ff"

_DC = rf"[^{_PUNCT}{_SPACES}{_INVALID}{_DIRECTIONAL}]"  # a domain character
# Atomic groups: a label can only end at the next dot, so retrying shorter splits is waste.
# A label up to 126 units: one that punycodes to 63 characters or fewer has no more code
# points than that, and a code point is at most 2 units.
_SUBDOMAIN = rf"(?>(?:{_DC}(?:[_-]|{_DC}){{0,124}})?{_DC}\.)"
_DOMAIN_NAME = rf"(?>(?:{_DC}(?:-|{_DC}){{0,124}})?{_DC}\.)"
_PUNYCODE = r"(?:[xX][nN]--[\-0-9a-zA-Z]+)"
_TLD_END = r"(?=[^0-9a-zA-Z@+\-]|$)"

_PATH_CHARS = rf"[a-zA-Z{_CYRILLIC}0-9!*';:=+,.$/%#\[\]\-\u2013_~@|&{_LATIN_ACCENTS}]"
_PARENS = rf"\((?:{_PATH_CHARS}+|(?:{_PATH_CHARS}*\({_PATH_CHARS}+\){_PATH_CHARS}*))\)"
_PATH_END = rf"[+\-a-zA-Z{_CYRILLIC}0-9=_#/{_LATIN_ACCENTS}]"
# As twitter-text's regex has it once its parts are pasted together: a path segment ends in
# one of `_PATH_END`, or is a parenthesised group alone ("x.com/!(a)" links "x.com/" only).
_PATH = rf"(?:{_PATH_CHARS}*(?:{_PARENS}{_PATH_CHARS}*)*{_PATH_END}|{_PARENS}|@{_PATH_CHARS}+/)"
_QUERY = r"\?[a-zA-Z0-9!?*'@();:&=+$/%#\[\]\-_.,~|]*[a-zA-Z0-9\-_&=#/]"
_PRECEDING = rf"(?:[^A-Za-z0-9@\uff20$#\uff03{_INVALID}]|[{_DIRECTIONAL}]|^)"

_MAX_URL_LENGTH = 4096
_MAX_TCO_SLUG_LENGTH = 40
_HTTP = r"[hH][tT][tT][pP][sS]?://"
_TCO = re.compile(rf"{_HTTP}[tT]\.[cC][oO]/(?P<slug>[a-zA-Z0-9]+)(?:{_QUERY})?")
_BAD_BEFORE_BARE_DOMAIN = re.compile(r"[-_./]$")


def alternation(words: list[str], char=re.escape) -> str:
    """A regex matching any of `words`, longest first, factored as a trie; `char` gives the
    pattern for one character.

    A flat alternation of 1,400 TLDs is tried branch by branch at every backtracking step;
    the trie costs a few steps, and its greedy optional groups still prefer "community" to
    "com" and fall back to the shorter word when the longer one does not fit.
    """
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word.lower():
            node = node.setdefault(ch, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        branches = [char(ch) + pattern(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:
            return body + "?" if len(branches) == 1 and len(body) == 1 else "(?:" + body + ")?"
        return body

    return pattern(trie)


def _caseless(ch: str) -> str:
    """`ch` in either case as JavaScript's `i` flag (without `u`) takes it.

    That is why no URL pattern is compiled with IGNORECASE: Python's would also take "ſ"
    for "s", "K" (Kelvin) for "k", "İ" and "ı" for "i", which JavaScript never folds into
    ASCII ("example.comı" is a URL to twitter-text, the "ı" after it).
    """
    if ch.isascii():
        return f"[{ch.lower()}{ch.upper()}]" if ch.isalpha() else re.escape(ch)
    return f"(?i:{ch})" if ch.lower() != ch.upper() else ch


def _is_valid_domain(domain: str) -> bool:
    """twitter-text's light IDNA check (lib/idna.js): each label 1..63 characters once punycoded.

    As its `punycode.toASCII` does, a label is cut again at the dots "。", "．" and "｡", each
    part punycoded if not ASCII, the parts joined by ".".
    """
    if domain[:4] == "xn--" and not _ASCII_DOMAIN.search(domain):
        return False
    for label in domain.split("."):
        parts = [_from_utf16_units(part) for part in _IDN_DOTS.split(label)]
        ascii_label = ".".join(p if p.isascii() else "xn--" + p.encode("punycode").decode() for p in parts)
        if not 1 <= len(ascii_label) <= 63:
            return False
    return True


_IDN_DOTS = re.compile(r"[\u3002\uff0e\uff61]")


def url_spans(text: str) -> list[tuple[int, str]]:
    """(start, URL) for each URL in `text`: NFC, in UTF-16 units (`utf16_units`), as are the results."""
    if not _TLD_AFTER_DOT.search(text):  # no URL without one; spares most captions the regex
        return []
    urls: list[tuple[int, str]] = []
    for m in _EXTRACT_URL.finditer(text):
        url, protocol, domain, path = m.group("url", "protocol", "domain", "path")
        start, end = m.span("url")
        # twitter-text means to count the domain punycoded here, but its toAscii gives the
        # domain back as it was: the URL's own length is what counts.
        if not _is_valid_domain(domain) or len(protocol or "https://") + len(url) > _MAX_URL_LENGTH:
            continue
        if protocol:
            tco = _TCO.match(url)
            if tco:
                if len(tco.group("slug")) > _MAX_TCO_SLUG_LENGTH:
                    continue
                url = tco.group()
            urls.append((start, url))
            continue
        if _BAD_BEFORE_BARE_DOMAIN.search(m.group("before")):
            continue
        # Without a scheme only the ASCII parts of the domain link. The last takes what
        # follows the domain if there is a path, but nothing between: in "foo.co.jp例え.jp/x"
        # the URL is "foo.co.jp/x", and x_weighted_length skips its 11 characters only.
        found = [(start + a.start(), a.group()) for a in _ASCII_DOMAIN.finditer(domain)]
        if found and path:
            found[-1] = (found[-1][0], found[-1][1] + url[len(domain):])
        urls.extend(found)
    return urls


# --- Emoji: Unicode's notion (X counts twemoji-parser's list instead: x/text.py) ------------
#
# `EMOJI`, on a grapheme (Threads counts these): a flag (two regional indicators); a keycap ("#", "*" or
# a digit, optional U+FE0F, U+20E3); a tag flag (🏴, tag letters, cancel tag); one or more
# pictographs joined by ZWJ, each optionally followed by U+FE0F or a skin tone; or a lone
# regional indicator or skin tone. A pictograph is Unicode's Extended_Pictographic (table at
# the bottom), so emoji newer than any list count too. As twemoji-parser: ©, ®, ™ and ♟ are
# emoji only with U+FE0F, and a pictograph followed by U+FE0E (text presentation) is none.


_NEEDS_VS16 = (0xA9, 0xAE, 0x2122, 0x265F)


def parse_ranges(table: str) -> list[tuple[int, int]]:
    ranges = []
    for item in table.split():
        lo, _, hi = item.partition("-")
        ranges.append((int(lo, 16), int(hi or lo, 16)))
    return ranges


def char_class(ranges: list[tuple[int, int]], without: tuple[int, ...] = ()) -> str:
    parts = []
    for lo, hi in ranges:
        for cp in sorted(c for c in without if lo <= c <= hi):
            if lo < cp:
                parts.append((lo, cp - 1))
            lo = cp + 1
        if lo <= hi:
            parts.append((lo, hi))
    return "[" + "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in parts) + "]"


# --- Graphemes (Unicode UAX #29 extended grapheme clusters) ---------------------------------
#
# Rules GB3-GB13, with properties derived from Python's `unicodedata`: marks (Mn, Me, Mc),
# ZWJ, ZWNJ, skin tones, tag characters and a few listed characters attach to the previous
# character; Hangul jamo and syllables combine; CR LF is one grapheme; regional indicators
# pair; pictographs join across ZWJ. Not covered: GB9c (Indic conjuncts, Unicode 15.1), and
# marks newer than Python's Unicode database (14.0 on 3.11) count as graphemes of their own.

_PREPEND = [
    (0x600, 0x605), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2),
    (0xD4E, 0xD4E), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x111C2, 0x111C3),
    (0x113D1, 0x113D1), (0x1193F, 0x1193F), (0x11941, 0x11941), (0x11A84, 0x11A89),
    (0x11D46, 0x11D46), (0x11F02, 0x11F02),
]
_HANGUL_JOINS = {
    ("L", "L"), ("L", "V"), ("L", "LV"), ("L", "LVT"), ("LV", "V"), ("LV", "T"),
    ("V", "V"), ("V", "T"), ("LVT", "T"), ("T", "T"),
}


def _in(cp: int, ranges: list[tuple[int, int]]) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


def _is_pictograph(cp: int) -> bool:
    i = bisect.bisect_right(_PICTOGRAPH_STARTS, cp) - 1
    return i >= 0 and cp <= _PICTOGRAPHS[i][1]


def _break_class(cp: int) -> str:
    """The Grapheme_Cluster_Break property, as far as counting needs it."""
    if cp == 0x0D:
        return "CR"
    if cp == 0x0A:
        return "LF"
    if cp == 0x200D:
        return "ZWJ"
    if 0x1F1E6 <= cp <= 0x1F1FF:
        return "RI"
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return "L"
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return "V"
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return "T"
    if 0xAC00 <= cp <= 0xD7A3:
        return "LV" if (cp - 0xAC00) % 28 == 0 else "LVT"
    if _in(cp, _PREPEND):
        return "Prepend"
    if cp == 0x200C or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F or 0xFF9E <= cp <= 0xFF9F:
        return "Extend"
    category = unicodedata.category(chr(cp))
    if category in ("Mn", "Me"):
        return "Extend"
    if category == "Mc" or cp in (0x0E33, 0x0EB3):  # Thai and Lao AM are spacing marks too
        return "SpacingMark"
    if category in ("Cc", "Cf", "Zl", "Zp", "Cs"):
        return "Control"
    if _is_pictograph(cp):
        return "ExtPict"
    return "Other"


def graphemes(s: str) -> list[str]:
    """`s` cut into user-perceived characters (extended grapheme clusters)."""
    out: list[str] = []
    start, prev = 0, ""
    pictograph = False  # GB11: inside "ExtPict Extend*"
    pictograph_zwj = False  # GB11: right after "ExtPict Extend* ZWJ"
    regional = 0  # GB12/13: regional indicators since the last break
    for i, ch in enumerate(s):
        cur = _break_class(ord(ch))
        if i and _breaks(prev, cur, pictograph_zwj, regional):
            out.append(s[start:i])
            start, regional = i, 0
        pictograph_zwj = cur == "ZWJ" and pictograph
        pictograph = cur == "ExtPict" or (cur == "Extend" and pictograph)
        regional = regional + 1 if cur == "RI" else 0
        prev = cur
    if s:
        out.append(s[start:])
    return out


def _breaks(prev: str, cur: str, pictograph_zwj: bool, regional: int) -> bool:
    if prev == "CR" and cur == "LF":
        return False
    if prev in ("Control", "CR", "LF") or cur in ("Control", "CR", "LF"):
        return True
    if (prev, cur) in _HANGUL_JOINS:
        return False
    if cur in ("Extend", "ZWJ", "SpacingMark") or prev == "Prepend":
        return False
    if pictograph_zwj and cur == "ExtPict":
        return False
    if prev == "RI" and cur == "RI":
        return regional % 2 == 0  # an odd count before this one: it completes a flag
    return True


# --- Tables and the patterns built from them ------------------------------------------------

# Extended_Pictographic from Unicode's emoji-data.txt (Unicode 16), code point ranges in hex.
_PICTOGRAPHS = parse_ranges("""
A9 AE 203C 2049 2122 2139 2194-2199 21A9-21AA 231A-231B 2328 23CF 23E9-23F3 23F8-23FA 24C2
25AA-25AB 25B6 25C0 25FB-25FE 2600-2604 260E 2611 2614-2615 2618 261D 2620 2622-2623 2626 262A
262E-262F 2638-263A 2640 2642 2648-2653 265F-2660 2663 2665-2666 2668 267B 267E-267F 2692-2697
2699 269B-269C 26A0-26A1 26A7 26AA-26AB 26B0-26B1 26BD-26BE 26C4-26C5 26C8 26CE-26CF 26D1
26D3-26D4 26E9-26EA 26F0-26F5 26F7-26FA 26FD 2702 2705 2708-270D 270F 2712 2714 2716 271D 2721
2728 2733-2734 2744 2747 274C 274E 2753-2755 2757 2763-2764 2795-2797 27A1 27B0 27BF 2934-2935
2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299 1F004 1F02C-1F02F 1F094-1F09F 1F0AF-1F0B0
1F0C0 1F0CF-1F0D0 1F0F6-1F0FF 1F170-1F171 1F17E-1F17F 1F18E 1F191-1F19A 1F1AE-1F1E5 1F201-1F20F
1F21A 1F22F 1F232-1F23A 1F23C-1F23F 1F249-1F25F 1F266-1F321 1F324-1F393 1F396-1F397 1F399-1F39B
1F39E-1F3F0 1F3F3-1F3F5 1F3F7-1F3FA 1F400-1F4FD 1F4FF-1F53D 1F549-1F54E 1F550-1F567 1F56F-1F570
1F573-1F57A 1F587 1F58A-1F58D 1F590 1F595-1F596 1F5A4-1F5A5 1F5A8 1F5B1-1F5B2 1F5BC 1F5C2-1F5C4
1F5D1-1F5D3 1F5DC-1F5DE 1F5E1 1F5E3 1F5E8 1F5EF 1F5F3 1F5FA-1F64F 1F680-1F6C5 1F6CB-1F6D2
1F6D5-1F6E5 1F6E9 1F6EB-1F6F0 1F6F3-1F6FF 1F7DA-1F7FF 1F80C-1F80F 1F848-1F84F 1F85A-1F85F
1F888-1F88F 1F8AE-1F8AF 1F8BC-1F8BF 1F8C2-1F8CF 1F8D9-1F8FF 1F90C-1F93A 1F93C-1F945 1F947-1F9FF
1FA58-1FA5F 1FA6E-1FAFF 1FC00-1FFFD
""")
_PICTOGRAPH_STARTS = [lo for lo, _ in _PICTOGRAPHS]

# twitter-text 3.1.0's TLDs (its regexp/validGTLD.js and validCCTLD.js), IDN TLDs in Unicode
# form as it has them. Its list, not IANA's, as X counts with it: "x.music" (a TLD since 2021)
# is no URL to it, and "x.an" (retired in 2015) is one.
_TLD_TABLE = """
aaa aarp abarth abb abbott abbvie abc able abogado abudhabi ac academy accenture accountant
accountants aco active actor ad adac ads adult ae aeg aero aetna af afamilycompany afl africa ag
agakhan agency ai aig aigo airbus airforce airtel akdn al alfaromeo alibaba alipay allfinanz
allstate ally alsace alstom am americanexpress americanfamily amex amfam amica amsterdam an
analytics android anquan anz ao aol apartments app apple aq aquarelle ar arab aramco archi army
arpa art arte as asda asia associates at athleta attorney au auction audi audible audio auspost
author auto autos avianca aw aws ax axa az azure ba baby baidu banamex bananarepublic band bank
bar barcelona barclaycard barclays barefoot bargains baseball basketball bauhaus bayern bb bbc
bbt bbva bcg bcn bd be beats beauty beer bentley berlin best bestbuy bet bf bg bh bharti bi
bible bid bike bing bingo bio biz bj bl black blackfriday blanco blockbuster blog bloomberg blue
bm bms bmw bn bnl bnpparibas bo boats boehringer bofa bom bond boo book booking boots bosch
bostik boston bot boutique box bq br bradesco bridgestone broadway broker brother brussels bs bt
budapest bugatti build builders business buy buzz bv bw by bz bzh ca cab cafe cal call
calvinklein cam camera camp cancerresearch canon capetown capital capitalone car caravan cards
care career careers cars cartier casa case caseih cash casino cat catering catholic cba cbn cbre
cbs cc cd ceb center ceo cern cf cfa cfd cg ch chanel channel charity chase chat cheap chintai
chloe christmas chrome chrysler church ci cipriani circle cisco citadel citi citic city cityeats
ck cl claims cleaning click clinic clinique clothing cloud club clubmed cm cn co coach codes
coffee college cologne com comcast commbank community company compare computer comsec condos
construction consulting contact contractors cooking cookingchannel cool coop corsica country
coupon coupons courses cpa cr credit creditcard creditunion cricket crown crs cruise cruises csc
cu cuisinella cv cw cx cy cymru cyou cz dabur dad dance data date dating datsun day dclk dds de
deal dealer deals degree delivery dell deloitte delta democrat dental dentist desi design dev
dhl diamonds diet digital direct directory discount discover dish diy dj dk dm dnp do docs
doctor dodge dog doha domains doosan dot download drive dtv dubai duck dunlop duns dupont durban
dvag dvr dz earth eat ec eco edeka edu education ee eg eh email emerck energy engineer
engineering enterprises epost epson equipment er ericsson erni es esq estate esurance et
etisalat eu eurovision eus events everbank exchange expert exposed express extraspace fage fail
fairwinds faith family fan fans farm farmers fashion fast fedex feedback ferrari ferrero fi fiat
fidelity fido film final finance financial fire firestone firmdale fish fishing fit fitness fj
fk flickr flights flir florist flowers flsmidth fly fm fo foo food foodnetwork football ford
forex forsale forum foundation fox fr free fresenius frl frogans frontdoor frontier ftr fujitsu
fujixerox fun fund furniture futbol fyi ga gal gallery gallo gallup game games gap garden gay gb
gbiz gd gdn ge gea gent genting george gf gg ggee gh gi gift gifts gives giving gl glade glass
gle global globo gm gmail gmbh gmo gmx gn godaddy gold goldpoint golf goo goodhands goodyear
goog google gop got gov gp gq gr grainger graphics gratis green gripe grocery group gs gt gu
guardian gucci guge guide guitars guru gw gy hair hamburg hangout haus hbo hdfc hdfcbank health
healthcare help helsinki here hermes hgtv hiphop hisamitsu hitachi hiv hk hkt hm hn hockey
holdings holiday homedepot homegoods homes homesense honda honeywell horse hospital host hosting
hot hoteles hotels hotmail house how hr hsbc ht htc hu hughes hyatt hyundai ibm icbc ice icu id
ie ieee ifm iinet ikano il im imamat imdb immo immobilien in inc industries infiniti info ing
ink institute insurance insure int intel international intuit investments io ipiranga iq ir
irish is iselect ismaili ist istanbul it itau itv iveco iwc jaguar java jcb jcp je jeep jetzt
jewelry jio jlc jll jm jmp jnj jo jobs joburg jot joy jp jpmorgan jprs juegos juniper kaufen
kddi ke kerryhotels kerrylogistics kerryproperties kfh kg kh ki kia kim kinder kindle kitchen
kiwi km kn koeln komatsu kosher kp kpmg kpn kr krd kred kuokgroup kw ky kyoto kz la lacaixa
ladbrokes lamborghini lamer lancaster lancia lancome land landrover lanxess lasalle lat latino
latrobe law lawyer lb lc lds lease leclerc lefrak legal lego lexus lgbt li liaison lidl life
lifeinsurance lifestyle lighting like lilly limited limo lincoln linde link lipsy live living
lixil lk llc llp loan loans locker locus loft lol london lotte lotto love lpl lplfinancial lr ls
lt ltd ltda lu lundbeck lupin luxe luxury lv ly ma macys madrid maif maison makeup man
management mango map market marketing markets marriott marshalls maserati mattel mba mc mcd
mcdonalds mckinsey md me med media meet melbourne meme memorial men menu meo merckmsd metlife mf
mg mh miami microsoft mil mini mint mit mitsubishi mk ml mlb mls mm mma mn mo mobi mobile mobily
moda moe moi mom monash money monster montblanc mopar mormon mortgage moscow moto motorcycles
mov movie movistar mp mq mr ms msd mt mtn mtpc mtr mu museum mutual mutuelle mv mw mx my mz na
nab nadex nagoya name nationwide natura navy nba nc ne nec net netbank netflix network neustar
new newholland news next nextdirect nexus nf nfl ng ngo nhk ni nico nike nikon ninja nissan
nissay nl no nokia northwesternmutual norton now nowruz nowtv np nr nra nrw ntt nu nyc nz obi
observer off office okinawa olayan olayangroup oldnavy ollo om omega one ong onion onl online
onyourside ooo open oracle orange org organic orientexpress origins osaka otsuka ott ovh pa page
pamperedchef panasonic panerai paris pars partners parts party passagens pay pccw pe pet pf
pfizer pg ph pharmacy phd philips phone photo photography photos physio piaget pics pictet
pictures pid pin ping pink pioneer pizza pk pl place play playstation plumbing plus pm pn pnc
pohl poker politie porn post pr pramerica praxi press prime pro prod productions prof
progressive promo properties property protection pru prudential ps pt pub pw pwc py qa qpon
quebec quest qvc racing radio raid re read realestate realtor realty recipes red redstone
redumbrella rehab reise reisen reit reliance ren rent rentals repair report republican rest
restaurant review reviews rexroth rich richardli ricoh rightathome ril rio rip rmit ro rocher
rocks rodeo rogers room rs rsvp ru rugby ruhr run rw rwe ryukyu sa saarland safe safety sakura
sale salon samsclub samsung sandvik sandvikcoromant sanofi sap sapo sarl sas save saxo sb sbi
sbs sc sca scb schaeffler schmidt scholarships school schule schwarz science scjohnson scor scot
sd se search seat secure security seek select sener services ses seven sew sex sexy sfr sg sh
shangrila sharp shaw shell shia shiksha shoes shop shopping shouji show showtime shriram si silk
sina singles site sj sk ski skin sky skype sl sling sm smart smile sn sncf so soccer social
softbank software sohu solar solutions song sony soy space spiegel sport spot spreadbetting sr
srl srt ss st stada staples star starhub statebank statefarm statoil stc stcgroup stockholm
storage store stream studio study style su sucks supplies supply support surf surgery suzuki sv
swatch swiftcover swiss sx sy sydney symantec systems sz tab taipei talk taobao target
tatamotors tatar tattoo tax taxi tc tci td tdk team tech technology tel telecity telefonica
temasek tennis teva tf tg th thd theater theatre tiaa tickets tienda tiffany tips tires tirol tj
tjmaxx tjx tk tkmaxx tl tm tmall tn to today tokyo tools top toray toshiba total tours town
toyota toys tp tr trade trading training travel travelchannel travelers travelersinsurance trust
trv tt tube tui tunes tushu tv tvs tw tz ua ubank ubs uconnect ug uk um unicom university uno
uol ups us uy uz va vacations vana vanguard vc ve vegas ventures verisign versicherung vet vg vi
viajes video vig viking villas vin vip virgin visa vision vista vistaprint viva vivo vlaanderen
vn vodka volkswagen volvo vote voting voto voyage vu vuelos wales walmart walter wang wanggou
warman watch watches weather weatherchannel webcam weber website wed wedding weibo weir wf
whoswho wien wiki williamhill win windows wine winners wme wolterskluwer woodside work works
world wow ws wtc wtf xbox xerox xfinity xihuan xin xperia xxx xyz yachts yahoo yamaxun yandex ye
yodobashi yoga yokohama you youtube yt yun za zappos zara zero zip zippo zm zone zuerich zw
vermögensberater vermögensberatung ελ ευ бг бел дети ею католик ком мкд мон москва онлайн орг
рус рф сайт срб укр қаз հայ קום ابوظبي اتصالات ارامكو الاردن البحرين الجزائر السعودية العليان
المغرب امارات ایران بارت بازار بيتك بھارت تونس سودان سورية شبكة عراق عرب عمان فلسطين قطر كاثوليك
كوم مصر مليسيا موبايلي موريتانيا موقع همراه پاکستان ڀارت कॉम नेट भारत भारतम् भारोत संगठन বাংলা
ভারত ভাৰত ਭਾਰਤ ભારત ଭାରତ இந்தியா இலங்கை சிங்கப்பூர் భారత్ ಭಾರತ ഭാരതം ලංකා คอม ไทย ລາວ გე みんな
クラウド グーグル コム ストア セール ファッション ポイント 世界 中信 中国 中國 中文网 企业 佛山 信息 健康 八卦 公司 公益 台湾 台灣 商城 商店 商标 嘉里 嘉里大酒店 在线
大众汽车 大拿 天主教 娱乐 家電 工行 广东 微博 慈善 我爱你 手机 手表 招聘 政务 政府 新加坡 新闻 时尚 書籍 机构 淡马锡 游戏 澳門 点看 珠宝 移动 组织机构 网址 网店
网站 网络 联通 诺基亚 谷歌 购物 通販 集团 電訊盈科 飞利浦 食品 餐厅 香格里拉 香港 닷넷 닷컴 삼성 한국
"""
_TLD = rf"(?:(?:{alternation(_TLD_TABLE.split(), char=_caseless)}){_TLD_END})"
_EXTRACT_URL = re.compile(
    rf"(?P<before>{_PRECEDING})"
    rf"(?P<url>(?P<protocol>{_HTTP})?"
    rf"(?P<domain>{_SUBDOMAIN}{{0,30}}{_DOMAIN_NAME}(?:{_TLD}|{_PUNYCODE}))"
    rf"(?::[0-9]+)?(?P<path>/{_PATH}*)?(?:{_QUERY})?)"
)
_TLD_AFTER_DOT = re.compile(rf"\.(?:{_TLD}|{_PUNYCODE})")
# ASCII labels, but any TLD of the list, as twitter-text's validAsciiDomain.
_ASCII_DOMAIN = re.compile(rf"(?:[\-a-zA-Z0-9{_LATIN_ACCENTS}]+\.)+(?:{_TLD}|{_PUNYCODE})")

_PICTOGRAPH = char_class(_PICTOGRAPHS, without=_NEEDS_VS16)
SKIN_TONE = r"[\U0001f3fb-\U0001f3ff]"
_REGIONAL = r"[\U0001f1e6-\U0001f1ff]"
_ELEMENT = (
    rf"(?:[{''.join(chr(c) for c in _NEEDS_VS16)}]\ufe0f"
    rf"|{_PICTOGRAPH}(?:\ufe0f|{SKIN_TONE})?)"
)
EMOJI = re.compile(
    rf"{_REGIONAL}{{2}}"
    r"|[0-9#*]\ufe0f?\u20e3"
    r"|\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"
    rf"|{_ELEMENT}(?:\u200d{_ELEMENT})*(?!\ufe0e)"
    rf"|{_REGIONAL}|{SKIN_TONE}"
)
