"""Prometheus metrics: what each process records, and what GET /metrics shows.

One `Metrics` per runtime, with a registry of its own (tests each see theirs). The
service records each event where its rule lives, through the methods below:
- requests: fanout.http.requestlog (route template, not the raw path), with the access line;
- posts created: fanout.models.upload, once the post's transaction committed;
- targets reaching a final status, and how long after their post was created:
  fanout.models.lifecycle.resolve, the one place a target becomes final;
- webhook attempts: fanout.tasks.webhooks.attempt;
- 429s by plan: fanout.http.throttle.

Several processes (`fanout api --processes N`, `serve` and its worker, `fanout worker`) share
a folder of metrics files (fanout/ops/metrics_dir.py); a scrape then sums them all. Queue
depths and worker heartbeats are not recorded by anyone: they are read from the database
at scrape time (`DatabaseGauges`), once, so they are never multiplied by the number of
processes.
"""
from __future__ import annotations

import datetime as _dt
import logging
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import generate_latest
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from . import metrics_dir

log = logging.getLogger(__name__)

# No `_created` series beside each counter and histogram: Prometheus does not need them,
# and the multi-process collector never shows them, so one process would differ from many.
disable_created_metrics()

# The text format generate_latest writes (openapi.yaml, GET /metrics).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Label values for what a client chose: a route outside the spec, a method HTTP does not
# define. Labels take only known values, so requests cannot grow the number of series.
UNMATCHED = "unmatched"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})

# Seconds. Requests are mostly milliseconds; publishing waits for a worker and may take a
# lease (5 min) to come back; a webhook attempt has a 10-second deadline.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
PUBLISH_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)
WEBHOOK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None, folder: Path | None = None):
        """`folder`: the shared metrics folder when this process is one of several, else None."""
        self.registry = registry or CollectorRegistry()
        self.folder = folder
        if folder is not None:
            metrics_dir.claim_files(folder)
        r = self.registry
        self._requests = Counter(
            "fanout_http_requests", "HTTP requests answered, by method, route (the spec's path template) and status.",
            ["method", "route", "status"], registry=r)
        self._request_seconds = Histogram(
            "fanout_http_request_duration_seconds", "Time to answer an HTTP request, by method and route.",
            ["method", "route"], buckets=REQUEST_BUCKETS, registry=r)
        self._request_series: dict[tuple[str, str, int], tuple] = {}
        self._in_progress = Gauge(
            "fanout_http_requests_in_progress", "HTTP requests being answered now.",
            multiprocess_mode="livesum", registry=r)
        self._posts = Counter(
            "fanout_posts_created", "Posts created (POST /v1/upload answered 201), by mode.", ["mode"], registry=r)
        self._targets = Counter(
            "fanout_targets_finished", "Targets that reached a final status, by platform and status.",
            ["platform", "status"], registry=r)
        self._publish_seconds = Histogram(
            "fanout_publish_latency_seconds",
            "Seconds from when a target was due (its post's creation, or its scheduled time) to its final status, by platform and status.",
            ["platform", "status"], buckets=PUBLISH_BUCKETS, registry=r)
        self._attempts = Counter(
            "fanout_webhook_attempts",
            "Webhook delivery attempts, by outcome (succeeded, retrying, failed: the last attempt failed; "
            "dropped: the registration was deleted meanwhile) and result (the HTTP status class or the error).",
            ["outcome", "result"], registry=r)
        self._attempt_seconds = Histogram(
            "fanout_webhook_attempt_duration_seconds", "Duration of a webhook delivery attempt, by outcome.",
            ["outcome"], buckets=WEBHOOK_BUCKETS, registry=r)
        self._rate_limited = Counter(
            "fanout_rate_limited_requests", "Requests refused with 429 rate_limited, by workspace plan.",
            ["plan"], registry=r)

    # --- recording -----------------------------------------------------------------------

    def request_started(self) -> None:
        self._in_progress.inc()

    def request_finished(self, method: str, route: str | None, status: int, seconds: float) -> None:
        route = route or UNMATCHED
        method = method if method in METHODS else "OTHER"
        self._in_progress.dec()
        # The series of a (method, route, status), found once: `labels` takes a lock and
        # builds its key anew on every call. Labels take only known values (above), so
        # the dict holds as many entries as there are series.
        series = self._request_series.get((method, route, status))
        if series is None:
            series = self._request_series[method, route, status] = (
                self._requests.labels(method, route, str(status)), self._request_seconds.labels(method, route))
        series[0].inc()
        series[1].observe(seconds)

    def post_created(self, sandbox: bool) -> None:
        self._posts.labels("sandbox" if sandbox else "live").inc()

    def target_finished(self, platform: str, status: str, since_due: _dt.timedelta) -> None:
        self._targets.labels(platform, status).inc()
        self._publish_seconds.labels(platform, status).observe(max(since_due.total_seconds(), 0.0))

    def webhook_attempt(self, outcome: str, result: str, seconds: float) -> None:
        self._attempts.labels(outcome, result).inc()
        self._attempt_seconds.labels(outcome).observe(seconds)

    def rate_limited(self, plan: str) -> None:
        self._rate_limited.labels(plan).inc()

    # --- exposition ----------------------------------------------------------------------

    def exposition(self, *collectors) -> bytes:
        """Every metric in the text format: this process's, or all processes' of the
        folder, plus `collectors` (read once, here)."""
        registry = CollectorRegistry()
        if self.folder is not None:
            # Live gauges of processes that died (a crash, a restarted worker) would count forever.
            for pid in metrics_dir.dead_pids(self.folder):
                mark_process_dead(pid, str(self.folder))
            MultiProcessCollector(registry, str(self.folder))
        else:
            registry.register(_Delegate(self.registry))
        for collector in collectors:
            registry.register(collector)
        return generate_latest(registry)


class _Delegate:
    """Another registry's metrics, collected at scrape time."""

    def __init__(self, registry: CollectorRegistry):
        self._registry = registry

    def collect(self):
        return self._registry.collect()


class DatabaseGauges:
    """Queue depths and worker heartbeats, read from the database when scraped.

    A query that fails leaves its gauges out of the scrape (and logs why); the rest still
    shows.
    """

    def __init__(self, rt):
        self.rt = rt

    def collect(self):
        from ..models import db
        from ..models.deliveries import count_due
        from ..models.heartbeat import live_count, newest
        from ..models.post import count_in_flight

        now = self.rt.now()
        stale = _dt.timedelta(seconds=self.rt.settings.heartbeat_stale)
        try:
            with db.connection_context():
                targets = count_in_flight(now)
                due = count_due(now)
                latest = newest()
                live = live_count(now - stale)
        except Exception as e:
            log.error("metrics: could not read queue depths from the database: %s", e)
            return
        family = GaugeMetricFamily("fanout_targets", "Targets due and not final yet, by status, read from the database when scraped.",
                                   labels=["status"])
        for status, count in targets.items():
            family.add_metric([status], count)
        yield family
        yield GaugeMetricFamily("fanout_deliveries_due",
                                "Webhook deliveries due for an attempt that no worker is sending, read from the database.",
                                value=due)
        yield GaugeMetricFamily("fanout_workers_live", "Queue workers whose heartbeat is fresh.", value=live)
        if latest is not None:
            yield GaugeMetricFamily("fanout_worker_heartbeat_age_seconds",
                                    "Age of the newest queue worker heartbeat (absent when there is none).",
                                    value=max((now - latest.last_seen_at).total_seconds(), 0.0))
