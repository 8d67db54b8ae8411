"""Domain failures raised by model functions; the API and the CLI render them."""


class PlanLimitExceeded(Exception):
    code = "plan_limit_exceeded"


class NotFound(LookupError):
    code = "not_found"
