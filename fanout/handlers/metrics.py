"""GET /metrics: the Prometheus text format, behind FANOUT_METRICS_TOKEN when it is set.

The spec makes the token optional (`security: [metricsToken, {}]`), so Connexion lets a
request without it through; the handler decides, since only it knows whether this server
sets one.
"""
from __future__ import annotations

import hmac

from connexion.lifecycle import ConnexionResponse

from .. import runtime
from ..ops.metrics import CONTENT_TYPE, DatabaseGauges
from ..problems import InvalidMetricsToken


def _matches(token: str) -> bool:
    expected = runtime.current().settings.metrics_token
    return expected is not None and hmac.compare_digest(token.encode(), expected.encode())


async def authenticate(token: str) -> dict | None:
    """Token info for the metrics token (`x-bearerInfoFunc` of metricsToken), else None."""
    return {"metrics": True} if _matches(token) else None


def get_metrics(token_info=None):
    rt = runtime.current()
    if rt.settings.metrics_token is not None and not (token_info or {}).get("metrics"):
        raise InvalidMetricsToken("send the metrics token (FANOUT_METRICS_TOKEN) as 'Authorization: Bearer <token>'")
    return ConnexionResponse(status_code=200, body=rt.metrics.exposition(DatabaseGauges(rt)),
                             mimetype="text/plain", content_type=CONTENT_TYPE)
