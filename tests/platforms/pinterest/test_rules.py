"""Pinterest's rules (fanout/platforms/pinterest/rules.py and boards.py): what a Pin may carry,
judged from the request alone, its description's count, and the board a post must name
(docs/platforms.md#pinterest)."""
from __future__ import annotations

import datetime as dt

from fanout.platforms.pinterest import PLATFORM, RULES
from fanout.platforms.pinterest.boards import board_problem, sandbox_details

GRINNING = "\U0001f600"


def items(kind: str, n: int, extension: str = "jpg", **fields) -> list[dict]:
    return [{"url": f"https://cdn.example.com/{kind}{i}.{extension}", "type": kind, **fields} for i in range(n)]


def test_the_description_counts_code_points_to_800():
    assert RULES.caption_problem("a" * 800) is None
    assert RULES.caption_problem(GRINNING * 800) is None  # one code point each, as JSON Schema counts
    assert RULES.caption_problem("e\u0301" * 401) == "caption is 802 characters; pinterest allows 800"


def test_a_pin_is_one_image_or_one_video_and_never_text_alone():
    assert RULES.media_problem(items("image", 1)) is None and RULES.media_problem(items("video", 1, "mov")) is None
    assert "at most 1 image" in RULES.media_problem(items("image", 2))
    assert "a text-only post is not possible; pinterest needs a video or an image" in RULES.media_problem([])
    assert "does not take .webm videos" in RULES.media_problem(items("video", 1, "webm"))
    assert RULES.media_problem(items("image", 1, "webp")) is None


def test_alt_text_goes_with_images_and_videos_up_to_500():
    assert RULES.alt_text_of(items("video", 1, "mp4", alt_text="a door")[0]) == "a door"
    assert RULES.media_problem(items("image", 1, alt_text="a" * 500)) is None
    assert RULES.media_problem(items("image", 1, alt_text="a" * 501)).endswith(
        "alt_text is 501 characters; pinterest allows 500")


def test_a_cover_frame_is_for_a_video_pin_only():
    assert RULES.options_problem({"cover_at_ms": 1000}, items("video", 1, "mp4")) is None
    assert RULES.options_problem({"cover_at_ms": 1000}, items("image", 1)) == (
        "platform_option_rejected", "options.cover_at_ms is for a video Pin; this pinterest post is an image Pin")


def boards(n: int) -> dict:
    return {"boards": [{"id": str(i + 1), "name": f"b{i}", "privacy": "public"} for i in range(n)],
            "read_at": "2026-11-22T10:00:00"}


def test_a_board_id_is_needed_unless_the_account_has_exactly_one_board():
    assert PLATFORM.account_problem is board_problem
    assert board_problem({}, boards(1), "acc_1") is None
    assert board_problem({"board_id": "2"}, boards(3), "acc_1") is None
    assert board_problem({}, boards(3), "acc_1") == (
        "overrides.pinterest.options.board_id is required: Pinterest account acc_1 has 3 boards "
        "(GET /v1/accounts/acc_1/boards lists them)")
    assert "had no board when it was last read" in board_problem({}, boards(0), "acc_1")
    assert board_problem({}, None, "acc_1") is None  # boards not known: the publish finds out


def test_a_sandbox_account_has_one_board_of_its_own():
    first, second = (sandbox_details(f"sandbox-{n}", dt.datetime(2026, 11, 22)) for n in (1, 2))
    assert len(first["boards"]) == 1 and board_problem({}, first, "acc_1") is None
    assert first["boards"][0]["id"] != second["boards"][0]["id"] and first["boards"][0]["id"].isdigit()
