"""The HTTP layer around the handlers: the server protocol, the middlewares, request
validation and the access log, and the rendering of every error answer (docs/architecture.md)."""
