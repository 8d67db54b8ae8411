"""Reply chains, as the platforms whose posts name the post they reply to walk them."""
from __future__ import annotations

from collections.abc import Callable, Iterable


def reply_chain(posts: Iterable, post_id: str, parent_of: Callable) -> list:
    """`post_id` and the posts it replies to, by `parent_of(post)`, up to the first, first first."""
    by_id = {p.id: p for p in posts}
    found = []
    while post_id in by_id:
        found.insert(0, by_id[post_id])
        post_id = parent_of(by_id[post_id])
    return found
