"""openapi.yaml's words about each platform's rules are the rules (fanout/platforms/<p>/rules.py,
on fanout/platforms/rules.py `PlatformRules`). The spec is written by hand, as the
contract, so its prose is read here: the caption caps and what they count, the platforms
it says take a text-only post or need media, the alt text and first comment caps, a TikTok
photo title's cap, how many media items a post may carry, and the rules' messages its
examples show. A number or a claim that disagrees with the rules fails naming the platform.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from fanout.platforms import PLATFORMS, RULES
from fanout.platforms.tiktok.rules import PHOTO_TITLE_LIMIT

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text())
SCHEMAS = SPEC["components"]["schemas"]
NEEDS_MEDIA = {name for name, rules in RULES.items() if not rules.text_only}
TEXT_ONLY = set(PLATFORMS) - NEEDS_MEDIA


def prose(text: str) -> str:
    """A description on one line, as it reads."""
    return " ".join(text.split())


def at(*path):
    node = SPEC
    for key in path:
        node = node[key]
    return node


def named(text: str) -> set[str]:
    """The platforms some prose names, as `x` or x (not X-Request-Id)."""
    return {p for p in PLATFORMS if re.search(rf"(?<![\w-])`?{p}`?(?![\w-])", text)}


def stated(text: str) -> dict[str, int]:
    """The caps some prose states, by what they count: "30 hashtags and 20 mentions" and
    "1 link" -> {"hashtag": 30, "mention": 20, "link": 1}."""
    return {noun.rstrip("s"): int(number) for number, noun in re.findall(r"(\d+) (\w+)", text)}


def counted(caps) -> dict[str, int]:
    """A rule's counted caps in the same terms ("@mentions", "distinct links")."""
    return {cap.what.split()[-1].lstrip("@").rstrip("s"): cap.limit for cap in caps}


def descriptions(node, path=()):
    """(path, text) of every description in the spec."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield path + (key,), prose(value)
            yield from descriptions(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from descriptions(value, path + (i,))


# --- caption caps ------------------------------------------------------------------------

CAPTION = ("components", "schemas", "UploadRequest", "properties", "caption", "description")


def caption_caps() -> dict[str, str]:
    """{platform: its words} of "Platform caps (threads 500 with 5 links, x 280 weighted, ...)"."""
    listed = re.search(r"Platform caps \((.*?)\) fail", prose(at(*CAPTION))).group(1).split(", ")
    caps = {words.split()[0]: words for words in listed}
    assert len(caps) == len(listed) and set(caps) <= set(PLATFORMS), listed
    return caps


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_specs_caption_cap_of_each_platform_is_its_rules(platform):
    rules = RULES[platform]
    assert platform in caption_caps(), f"{platform}: UploadRequest.caption states no cap for it"
    number, rest = re.fullmatch(r"\w+ (\d+)(.*)", caption_caps()[platform]).groups()
    assert int(number) == rules.caption_limit, \
        f"{platform}: UploadRequest.caption says {number}, its rules {rules.caption_limit}"
    said = stated(rest.split(" with ", 1)[1]) if " with " in rest else {}
    assert said == counted(rules.counted), f"{platform}: UploadRequest.caption says {said}, its rules {counted(rules.counted)}"


def test_a_tiktok_photo_titles_cap_is_its_rules():
    said = re.search(r"TikTok's cap (\d+)", prose(SCHEMAS["TiktokOptions"]["properties"]["title"]["description"]))
    assert int(said.group(1)) == PHOTO_TITLE_LIMIT, f"tiktok: TiktokOptions.title says {said.group(1)}, its rules {PHOTO_TITLE_LIMIT}"


# --- what a post must carry ----------------------------------------------------------------

# Each claim of which platforms take a text-only post: where it is, the words naming them,
# and which platforms those must be.
CLAIMS = [
    (("paths", "/v1/upload", "post", "description"), r"a text-only post to (.*?), too many", NEEDS_MEDIA),
    (CAPTION, r"every platform but (.*?), which need media", NEEDS_MEDIA),
    (("components", "schemas", "UploadRequest", "properties", "media", "description"),
     r"for a text-only post, which (.*?) take\.", TEXT_ONLY),
]


@pytest.mark.parametrize(("path", "words", "platforms"), CLAIMS, ids=[".".join(path[-3:-1]) for path, _, _ in CLAIMS])
def test_the_platforms_the_spec_says_take_a_text_only_post_are_those_whose_rules_do(path, words, platforms):
    said = named(re.search(words, prose(at(*path))).group(1))
    assert said == platforms, f"{'/'.join(path)}: wrong about {sorted(said ^ platforms)}"


def test_every_text_only_claim_naming_platforms_is_checked_above():
    claims = {"/".join(path) for path, text in descriptions(SPEC)
              if re.search(r"text-only|text only|needs? media", text) and named(text)}
    checked = {"/".join(path) for path, _, _ in CLAIMS}
    assert claims - checked == set(), "text-only claims not held to the rules here"
    assert checked - claims == set(), "claims no longer in the spec"


# --- alt text, first comments ----------------------------------------------------------

ALT_TEXT = prose(SCHEMAS["MediaItem"]["properties"]["alt_text"]["description"])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_specs_alt_text_of_each_platform_is_its_rules(platform):
    alt_text = RULES[platform].alt_text
    takes, takes_none = re.search(r"takes alt text \((.*?); (.*?) take none", ALT_TEXT).groups()
    ways = {words.split()[0]: words for words in takes.split(", ")}
    caps = {name: int(n) for name, n in re.findall(r"(\w+) (\d+)", re.search(r"own cap \((.*?)\)", ALT_TEXT).group(1))}
    if alt_text is None:
        assert platform in named(takes_none) and platform not in ways, f"{platform} takes no alt text"
        return
    assert platform in ways and platform not in named(takes_none), f"{platform} takes alt text"
    kinds = {kind for kind in ("image", "video") if f"{kind}s" in ways[platform]}
    assert kinds == alt_text.kinds, f"{platform}: MediaItem.alt_text says on {sorted(kinds)}, its rules {sorted(alt_text.kinds)}"
    assert caps.get(platform) == alt_text.limit, \
        f"{platform}: MediaItem.alt_text says a cap of {caps.get(platform)}, its rules {alt_text.limit}"


def first_comments() -> dict[str, str]:
    """{platform: the description of its override's first_comment}, for those that take one."""
    found = {}
    for platform, ref in SCHEMAS["Overrides"]["properties"].items():
        override = SCHEMAS[ref["$ref"].rsplit("/", 1)[1]]
        if "first_comment" in override["properties"]:
            found[platform] = prose(override["properties"]["first_comment"]["description"])
    return found


@pytest.mark.parametrize("platform", sorted(first_comments()))
def test_the_specs_first_comment_cap_of_each_platform_is_its_rules(platform):
    rules, words = RULES[platform], first_comments()[platform]
    (number, *_), *others = re.findall(r"(\d+) (\w+)", words)
    assert int(number) == rules.comment.limit, f"{platform}: its first_comment says {number}, its rules {rules.comment.limit}"
    if "counted as a post's text" in words:
        assert rules.comment_cap is None, f"{platform}: a first comment has caps of its own, not a post's"
    else:
        said = {noun.rstrip("s"): int(n) for n, noun in others}
        assert said == counted(rules.comment.counted), \
            f"{platform}: its first_comment says {said}, its rules {counted(rules.comment.counted)}"


# --- media -------------------------------------------------------------------------------


def media_lists(node, path=()):
    """(path, schema) of every array of media items in the spec."""
    if isinstance(node, dict):
        if node.get("type") == "array" and node.get("items") == {"$ref": "#/components/schemas/MediaItem"}:
            yield "/".join(map(str, path)), node
        for key, value in node.items():
            yield from media_lists(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from media_lists(value, path + (i,))


def test_every_bound_on_a_media_list_is_what_the_most_generous_platform_takes():
    """A request may carry as many items as some platform takes (the rules judge each
    platform's); the answers' lists are not bounded."""
    generous = max(PLATFORMS, key=lambda name: RULES[name].max_items)
    most = RULES[generous].max_items
    bounds = {path: schema["maxItems"] for path, schema in media_lists(SPEC) if "maxItems" in schema}
    assert len(bounds) >= 4 and bounds == {path: most for path in bounds}, f"{generous} takes {most}"


def example_messages(node):
    """(code, message) of every error or problem the spec's examples show."""
    if isinstance(node, dict):
        if isinstance(node.get("code"), str) and isinstance(node.get("message"), str):
            yield node["code"], node["message"]
        for value in node.values():
            yield from example_messages(value)
    elif isinstance(node, list):
        for value in node:
            yield from example_messages(value)


def test_the_rules_messages_in_the_examples_are_the_rules():
    """What a caption over its cap is told is the rules' message (its length as the platform
    counts it, the cap); a media refusal states the platform's own count."""
    checked = 0
    for code, message in example_messages(SPEC):
        if over := re.fullmatch(r"caption is (\d+) characters.*; (\w+) allows \d+", message):
            length, platform = int(over.group(1)), over.group(2)
            assert message == RULES[platform].caption_problem("a" * length), f"{platform}: not its rules' message"
            checked += 1
        for platform, most, noun in re.findall(r"(\w+) takes at most (\d+) (images|photos|videos|media items)", message):
            rules = RULES[platform]
            cap = {"videos": rules.max_videos, "media items": rules.max_items}.get(noun, rules.max_images)
            assert int(most) == cap, f"{platform}: an example says at most {most} {noun}, its rules {cap}"
            checked += 1
    assert checked
