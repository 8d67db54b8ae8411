"""What the dashboard's forms take from openapi.yaml: the request bodies they build, checked
by the API's own schemas (fanout/http/validation.py `RequestBody`), and the lists of
values they offer (statuses, events, simulated errors), so a form offers what the API
takes and grows with it. A form field for an API field that does not exist yet (a post's
`scheduled_at`) shows only once the spec has the field."""
from __future__ import annotations

import functools
from dataclasses import dataclass

from .. import spec as _spec
from ..http.validation import RequestBody


@dataclass(frozen=True)
class Contract:
    upload: RequestBody
    webhook: RequestBody
    webhook_update: RequestBody
    rotation: RequestBody
    schemas: dict

    def enum(self, schema: str) -> list[str]:
        return list(self.schemas[schema]["enum"])

    def description(self, schema: str) -> str:
        return self.schemas[schema].get("description", "")

    @property
    def scheduling(self) -> bool:
        """Whether an upload takes `scheduled_at` (the post form's schedule field)."""
        return "scheduled_at" in self.upload.properties


@functools.cache
def contract(insecure_urls: bool) -> Contract:
    """The contract as this server enforces it (FANOUT_INSECURE_URLS relaxes URL patterns)."""
    spec = _spec.load(insecure_urls=insecure_urls)
    return Contract(RequestBody(spec, "create_post"), RequestBody(spec, "create_webhook"),
                    RequestBody(spec, "update_webhook"), RequestBody(spec, "rotate_webhook_secret"),
                    spec["components"]["schemas"])
