"""Writes twitter_text_v3.json: strings with the weighted length the official twitter-text gives.

The reference is the JavaScript package twitter-text 3.1.0 from npm (its emoji parser is the
twemoji-parser 11.0.2 it depends on), run by node: `parseTweet(s)` with the default (v3)
config gives `weightedLength` and `valid`; the URLs it finds (`extractUrls` on the NFC text)
and its emoji count are recorded too, so that tests/platforms/x/test_text_reference.py can check what
the strings cover. Tests only read the JSON; this script is the one place node runs.

    mkdir /tmp/ttjs && cd /tmp/ttjs && npm init -y && npm install twitter-text@3.1.0
    python tests/data/twitter_text_v3.py /tmp/ttjs   # from the repository root

The strings are the hand-picked HARD_CASES, then random mixes of PIECES (seeded: the same
script writes the same file).
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

PACKAGE = "twitter-text@3.1.0"
EMOJI_PARSER = "twemoji-parser@11.0.2"  # the version twitter-text 3.1.0 installs
OUT = Path(__file__).with_name("twitter_text_v3.json")
RANDOM_STRINGS = 2000
SEED = 14  # fixed, so the generated file is the same on every run

ZWJ, VS16, VS15, ACUTE, DIAERESIS = "\u200d", "\ufe0f", "\ufe0e", "\u0301", "\u0308"

PIECES = [
    # words, spaces and punctuation around them
    "hello", "a", "é", "ß", "Ünïcode", "\u0663", " ", " ", " ", "\n", "—", "…", ".", "/", "-",
    "_", "@", "#", "(", ")", "?",
    # URLs, bare domains and things that look like them
    "https://example.com/path?q=1", "http://example.com", "example.com", "www.twitter.com",
    "a.b", "a.ba", "email@example.com", "t.co", "https://t.co/abc123", "google.com.",
    "foo.co.jp", "bit.ly/abc", "https://例え.jp", "例え.jp", "http://foobar.みんな/",
    "https://en.wikipedia.org/wiki/Primer_(film)",
    # emoji: ZWJ sequences, presentation selectors, keycaps, flags, skin tones
    "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧\u200d👦", "🏳\ufe0f\u200d🌈", "😀", "❤\ufe0f", "❤",
    "❤\ufe0e", "1\ufe0f\u20e3", "1\u20e3", "🇫🇷", "🇫",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "👍🏽", "🏽", "©", "©\ufe0f", "™\ufe0f",
    "🥱", "🧑\u200d💻",
    # lone joiners, selectors and combining marks
    ZWJ, VS16, VS15, ACUTE, DIAERESIS, "e\u0301", "A\u030a",
    # CJK, Hangul, kana
    "世界", "한국어", "日本語", "あい",
]

# Written by hand: each kind of string where a port is easy to get wrong, and the examples
# X's counting documentation gives (the first three).
HARD_CASES = [
    "helloa.b Ünïcodea.ba.b email@example.comé",
    "👨\u200d👩\u200d👧\u200d😀",
    "ßgoogle.com.世界©\u0663",
    # URLs: a Unicode domain with and without a scheme, short ccTLD domains, trailing dots,
    # e-mail addresses, a TLD followed by a letter of another script
    "https://例え.jp", "例え.jp", "http://例え.テスト", "foo.jp", "foo.co", "t.co", "foo.tv",
    "google.com.", "google.com..", "a.b.c.com.", "email@example.com", "x email@example.com y",
    "example.comé", "example.com世界", "example.世界", "Ünïcode.com", "www.Ünïcode.com/é",
    "http://example.com.", "https://t.co/abc123?x=1.", "t.co/abc", "a.ba.b", "a.ba",
    "-example.com", "_example.com", "/example.com", ".example.com", "$example.com", "#example.com",
    "@example.com", "example.com/path(with)parens)", "example.com:8080/x", "http://example.com:80",
    "https://xn--ls8h.la/", "EXAMPLE.COM", "Example.Com/Path", "foo.co.uk/bar",
    # emoji: ZWJ chains twemoji 11 does not know, lone selectors and joiners, text and emoji
    # presentation, keycaps with and without U+FE0F, single regional indicators, skin tones
    # alone, tag flags, newer emoji
    "👩\u200d💻", "🧑\u200d💻", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧\u200d👦", "👨\u200d😀",
    "😀\u200d😀", "\u200d", "\ufe0f", "\ufe0e", "a\ufe0fb", "😀\ufe0f", "😀\ufe0e", "❤", "❤\ufe0f",
    "❤\ufe0e", "☺", "☺\ufe0f", "⌚", "⌚\ufe0e", "©", "©\ufe0f", "®\ufe0f", "™", "™\ufe0f", "♟", "♟\ufe0f",
    "1\u20e3", "1\ufe0f\u20e3", "#\u20e3", "*\ufe0f\u20e3", "🇫", "🇫🇷", "🇫🇷🇫", "🇦🇦", "🏽", "👍🏽",
    "👍\ufe0f🏽", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "🏴", "🏳\ufe0f\u200d🌈",
    "🏳\u200d🌈", "🥱", "🫠", "👁\u200d🗨", "🏃\u200d♀\ufe0f", "🏃🏽\u200d♀\ufe0f", "🧟\u200d♂\ufe0f",
    "👩\u200d❤\ufe0f\u200d💋\u200d👨", "\U0001f004", "\U0001f004\ufe0e", "\ue50a",
    # combining marks: composed by NFC, or not
    "e\u0301", "A\u030a", "\u0301", "a\u0301\u0301", "\u1100\u1161\u11a8", "\ufb2c",
    # CJK and Hangul, the weight-1 ranges' edges
    "世界", "한국어", "\u10ff\u1100", "\u2000\u200d\u200e", "\u2010\u201f\u2020", "\u2032\u2037\u2038",
    # invalid characters (valid: false)
    "a\ufffe", "\ufeff", "a\uffff",
    # JavaScript's UTF-16: the half of an astral character before a domain is the character
    # before it, the other half the domain's first letter; a lone surrogate; a URL's length
    # skipped in units, landing inside a pair
    "@😀-example.com", "#😀-日本語t.co", "\ud83dexample.com", "a\udc00",
    "👍🏽🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f👨\u200d👩\u200d👧🏳\ufe0f\u200d🌈🇫🇷foo.co.jp",
    "foo.co.jp😀😀.jp/x", "foo.co.jp例😀.jp/xy", "foo.co.jp例え.jp/한국어",
    # letter case as JavaScript's regexes fold it (never "ı", "İ", "ſ" or "K" into ASCII)
    "example.comı", "İexample.com", "ſ.co", "x.coſ", "K.com", "www.ı.com", "example.Com",
    "EXAMPLE.РФ", "HTTPS://EXAMPLE.COM/ABC", "hTtP://t.CO/AbC?x=1", "XN--ls8h.la",
    # paths: parentheses, "@user/", a query; the ideographic full stop in a label; the length cap
    "x.com/!(a)", "t.co/(a)", "x.com/a(b)c", "x.com/(a(b)c)d", "x.com/@user/", "x.com?q=(a)",
    "http://" + "a" * 57 + "。b.com", "http://例え。jp",
    "https://例え.jp/" + "a" * (4088 - len("https://例え.jp/")),
    "https://例え.jp/" + "a" * (4089 - len("https://例え.jp/")),
]


def random_strings(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8))) for _ in range(n)]


NODE = r"""
const tt = require('twitter-text');
const twemoji = require('twemoji-parser');
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(text => {
    const parsed = tt.parseTweet(text);
    const nfc = text.normalize();
    return {text, weightedLength: parsed.weightedLength, valid: parsed.valid,
            urls: tt.extractUrls(nfc), emoji: twemoji.parse(nfc).length};
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def main(node_dir: str) -> None:
    for package in (PACKAGE, EMOJI_PARSER):
        name, _, wanted = package.partition("@")
        version = subprocess.run(
            ["node", "-p", f"require('{name}/package.json').version"],
            cwd=node_dir, capture_output=True, text=True, check=True,
        ).stdout.strip()
        if version != wanted:
            sys.exit(f"{node_dir} has {name} {version}, not {wanted}")
    texts = list(dict.fromkeys(HARD_CASES + random_strings(RANDOM_STRINGS, SEED)))
    result = subprocess.run(
        ["node", "-e", NODE], cwd=node_dir, input=json.dumps(texts),
        capture_output=True, text=True, check=True,
    )
    cases = json.loads(result.stdout)
    with OUT.open("w", encoding="utf-8") as f:
        f.write('{"reference": "%s (npm, with %s), parseTweet with the default v3 config",\n'
                % (PACKAGE, EMOJI_PARSER))
        f.write(' "generator": "tests/data/twitter_text_v3.py",\n "cases": [\n')
        f.write(",\n".join(json.dumps(case, sort_keys=True) for case in cases))
        f.write("\n]}\n")
    print(f"{len(cases)} strings written to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ttjs")
