"""A request's `Content-Type` reduced to its media type, in lower case, before anything reads it.

Media types are case-insensitive (RFC 9110 §8.3.1), but Connexion compares them as written:
it finds an operation's body schema, and the validator for it, by matching the header
case-sensitively, and reads a body as JSON only when the type is spelled in lower case.
`APPLICATION/JSON` so skipped validation and reached a handler as bytes (a 500). Written
once here, the canonical form is what every later step sees: Connexion's validation, its
request parsing and ours (fanout/http/validation.py).

The parameters go: the API takes only JSON, and JSON has none (RFC 8259 §11: a `charset`
"has no effect on compliant recipients"); a JSON body is UTF-8 whatever it declares.
Connexion would otherwise decode the body it validates by `charset` while the handler
reads the same bytes as UTF-8, so the two could see different text.
`tests/http/test_mediatype.py` pins it.
"""
from __future__ import annotations

_CONTENT_TYPE = b"content-type"


def media_type(value: bytes) -> bytes:
    """`type/subtype` of a Content-Type value, lower case, without parameters or spaces."""
    return value.split(b";", 1)[0].strip(b" \t").lower()


class MediaTypeMiddleware:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and any(name.lower() == _CONTENT_TYPE for name, _ in scope["headers"]):
            scope = dict(scope)
            scope["headers"] = [
                (name, media_type(value)) if name.lower() == _CONTENT_TYPE else (name, value)
                for name, value in scope["headers"]
            ]
        await self.app(scope, receive, send)
