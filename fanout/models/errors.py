"""Domain failures raised by model functions; the API and the CLI render them.

Each carries the HTTP status and stable error code it is answered with, so the mapping
lives here once rather than in every caller.
"""


class DomainError(Exception):
    status = 400
    code = "validation_error"


class InvalidRequest(DomainError):
    """A rule of the request that the schema cannot state (400 validation_error)."""


class SandboxKeyNotAllowed(DomainError):
    status, code = 403, "sandbox_key_not_allowed"


class PlanLimitExceeded(DomainError):
    status, code = 403, "plan_limit_exceeded"


class NotFound(DomainError, LookupError):
    status, code = 404, "not_found"


class DuplicateRequest(DomainError):
    status, code = 409, "duplicate_request"


class AccountNotConnected(DomainError):
    status, code = 422, "account_not_connected"


class UnsupportedMedia(DomainError):
    status, code = 422, "unsupported_media_for_platform"
