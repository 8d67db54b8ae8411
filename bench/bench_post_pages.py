"""First page versus a page deep in the list, on a workspace with many posts; prints figures.

Run: python bench/bench_post_pages.py [posts]   (default 200000; SQLite in a temp folder,
or FANOUT_DATABASE_URL for PostgreSQL, whose tables it truncates)
"""
from __future__ import annotations

import datetime as dt
import os
import sys
import tempfile
import time
from pathlib import Path

from fanout.app import boot
from fanout.models import MODELS, Post, PostPlatform, Target, Workspace, db
from fanout.models.post import list_posts
from fanout.models.schema import migrate
from fanout.settings import Settings
from fanout.tasks import memory_queue

KEY = "hTMUhjRO0RYW8h_LA-g_S9tTbcf3G_9pGxvX0fl-plA="


def setup(folder: Path) -> None:
    url = os.environ.get("FANOUT_DATABASE_URL") or f"sqlite:///{folder / 'bench.db'}"
    settings = Settings(data_dir=folder, database_url=url, queue_url=f"sqlite:///{folder / 'q.db'}",
                        base_url="http://bench", connect_url="http://bench", secret_key=KEY)
    boot(settings, queue=memory_queue())
    migrate()
    if not url.startswith("sqlite"):
        with db.connection_context():
            db.execute_sql("TRUNCATE " + ", ".join(m._meta.table_name for m in MODELS) + " CASCADE")


def fill(count: int) -> None:
    start = dt.datetime(2026, 1, 1)
    with db.connection_context(), db.atomic():
        Workspace.create(id="ws_bench", name="bench", plan="BUSINESS", created_at=start)
        for offset in range(0, count, 5000):
            rows, targets, platforms = [], [], []
            for i in range(offset, min(offset + 5000, count)):
                created = start + dt.timedelta(milliseconds=i)
                post_id = f"post_{i:026d}"
                status = ("pending", "completed", "failed", "partial")[i % 4]
                platform = ("x", "threads", "instagram", "tiktok")[i % 4]
                rows.append(dict(id=post_id, workspace="ws_bench", sandbox=True, caption="c", media="[]",
                                 status=status, created_at=created))
                targets.append(dict(id=f"tgt_{i:026d}", post=post_id, account_id="acc_1", platform=platform,
                                    position=0, status="pending", updated_at=created))
                platforms.append(dict(post=post_id, workspace="ws_bench", platform=platform, created_at=created))
            Post.insert_many(rows).execute()
            Target.insert_many(targets).execute()
            PostPlatform.insert_many(platforms).execute()


def timed(label: str, **kwargs) -> None:
    best = float("inf")
    with db.connection_context():
        for _ in range(20):
            started = time.perf_counter()
            list_posts("ws_bench", limit=20, **kwargs)
            best = min(best, time.perf_counter() - started)
    print(f"{label:<45} {best * 1000:8.3f} ms (best of 20)")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    with tempfile.TemporaryDirectory() as folder:
        setup(Path(folder))
        started = time.perf_counter()
        fill(count)
        print(f"{count} posts written in {time.perf_counter() - started:.1f} s")
        deep = (dt.datetime(2026, 1, 1) + dt.timedelta(milliseconds=40), f"post_{40:026d}")
        timed("first page")
        timed("page near the end", after=deep)
        timed("first page, status=failed", status="failed")
        timed("page near the end, status=failed", status="failed", after=deep)
        timed("first page, platform=threads", platform="threads")
        timed("page near the end, platform=threads", platform="threads", after=deep)


if __name__ == "__main__":
    main()
