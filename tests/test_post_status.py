"""A post's stored status always equals the rule over its targets, however they resolve.

Sibling targets resolved by different worker threads at the same moment each re-derive the
post's status; on PostgreSQL (READ COMMITTED) neither sees the other's uncommitted target
unless the post row is locked first. The stored status feeds the `status=` list filter.
"""
from fanout.models import Post, Target, db
from fanout.models.post import derive_status

from .conftest import connect_sandbox_account, start_worker, wait_for

PLATFORMS = ["x", "threads", "instagram"]


def stored_statuses(post_ids):
    """{post id: (stored status, status the rule derives from its targets now)}."""
    with db.connection_context():
        posts = {p.id: p.status for p in Post.select().where(Post.id.in_(post_ids))}
        targets = {}
        for t in Target.select().where(Target.post.in_(post_ids)):
            targets.setdefault(t.post_id, []).append(t.status)
    return {pid: (posts[pid], derive_status(targets[pid])) for pid in post_ids}


def test_forty_posts_of_three_targets_resolved_by_four_worker_threads_each_store_the_derived_status(
        client, auth, real_queue, process_env, tmp_path):
    for platform in PLATFORMS:
        connect_sandbox_account(client, auth, platform)
    posts = [client.post("/v1/upload", headers=auth, json={
        "caption": f"post {n}", "platforms": PLATFORMS, "media": [{"url": "https://cdn.example.com/a.jpg", "type": "image"}],
    }).json() for n in range(40)]
    # Siblings queued next to each other, so four threads take them up together.
    for post in posts:
        for target in post["targets"]:
            real_queue.publish(target["id"])
    ids = [p["id"] for p in posts]

    worker = start_worker(process_env, tmp_path / "w.log", threads=4)
    try:
        wait_for(lambda: all(derived == "completed" for _, derived in stored_statuses(ids).values()),
                 60, "every target to publish")
    finally:
        worker.send_signal(2)
        worker.wait(30)
    wrong = {pid: pair for pid, pair in stored_statuses(ids).items() if pair[0] != pair[1]}
    assert wrong == {}
    filtered = client.get("/v1/posts?status=completed&limit=100", headers=auth).json()["data"]
    assert len(filtered) == 40
