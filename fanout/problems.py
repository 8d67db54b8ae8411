"""Every failure Fanout reports on purpose, each class with its stable code and HTTP status.

Model functions, handlers and middlewares raise these; two places render them: the API's
error handler (`fanout/http/errors.py`: the `{"error": {"code", "message"}}` object, with the
class's status and headers) and the CLI (`fanout/cli.py`: the same object or the message,
and exit status 1). The API's codes are `ErrorCode` in openapi.yaml
(tests/http/test_errors.py::test_every_code_the_api_answers_is_documented).

Pure Python on purpose: commands that serve no HTTP import this without Connexion.
"""
from __future__ import annotations


class Problem(Exception):
    """A failure with a stable code, a status and a message for whoever made the request."""

    status: int
    code: str
    # Headers every answer of this kind carries, e.g. WWW-Authenticate on a 401.
    default_headers: dict[str, str] = {}

    def __init__(self, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        self.headers = {**self.default_headers, **(headers or {})}


# --- what the API answers ----------------------------------------------------------------


class InvalidRequest(Problem):
    """A request that breaks the schema, or a rule of it the schema cannot state."""

    status, code = 400, "validation_error"


class MissingApiKey(Problem):
    status, code = 401, "missing_api_key"
    default_headers = {"WWW-Authenticate": "Bearer"}


class InvalidApiKey(Problem):
    status, code = 401, "invalid_api_key"
    default_headers = {"WWW-Authenticate": "Bearer"}


class InvalidMetricsToken(Problem):
    status, code = 401, "invalid_metrics_token"
    default_headers = {"WWW-Authenticate": "Bearer"}


class SandboxKeyNotAllowed(Problem):
    status, code = 403, "sandbox_key_not_allowed"


class PlanLimitExceeded(Problem):
    status, code = 403, "plan_limit_exceeded"


class NotFound(Problem, LookupError):
    status, code = 404, "not_found"


class MethodNotAllowed(Problem):
    """Raised with the `Allow` header naming the methods the path has."""

    status, code = 405, "method_not_allowed"


class DuplicateRequest(Problem):
    status, code = 409, "duplicate_request"


class PostNotEditable(Problem):
    """An edit or cancel of a post a worker has started publishing (or that has finished)."""

    status, code = 409, "post_not_editable"


class PayloadTooLarge(Problem):
    status, code = 413, "payload_too_large"
    # Closing spares reading the rest of a body nobody will use.
    default_headers = {"Connection": "close"}


class AccountNotConnected(Problem):
    status, code = 422, "account_not_connected"


class UnsupportedMedia(Problem):
    status, code = 422, "unsupported_media_for_platform"


class PlatformNotConfigured(Problem):
    """A live connect flow for a platform whose OAuth app this server lacks."""

    status, code = 422, "platform_not_configured"


class RateLimited(Problem):
    status, code = 429, "rate_limited"


class HeadersTooLarge(Problem):
    status, code = 431, "headers_too_large"


class InternalError(Problem):
    """Our fault: the message says so and names the request id, never what went wrong."""

    status, code = 500, "internal_error"


class NotReady(Problem):
    """/readyz while a part the server needs is failing (its report comes with it)."""

    status, code = 503, "not_ready"


# --- what only commands report -----------------------------------------------------------


class CommandFailure(Problem):
    """A command could not do its work because of how the service is set up; the API
    never meets these (its process would not have started)."""

    status = 500


class InvalidSetting(CommandFailure):
    code = "invalid_setting"


class NoDatabase(CommandFailure):
    code = "no_database"


class SchemaOutOfDate(CommandFailure):
    code = "schema_out_of_date"


class NotStarted(CommandFailure):
    code = "not_started"


class UnsafeDataFolder(CommandFailure):
    """A folder holding the key or a database that other users could write to."""

    code = "unsafe_data_folder"
