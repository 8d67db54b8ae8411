"""What an adapter offers the engine, the connect flow and the preflight, and the check
that holds every registered adapter to it (contracts/test_platform_registry.py).

An adapter is a module (fanout/platforms/threads/adapter.py is the shape). Every one has
`HOSTS` (the real hosts it calls; a server-style one may have none), `publish`, `refresh` and `refresh_due`. By its
`CONNECT_STYLE` (docs/architecture.md#connect-styles) it also has:

- OAUTH, the default: `authorize` (the consent page's URL, a PKCE verifier made from
  `randbytes`, the engine's randomness) and `exchange` (the code for a `Grant`, its expiry
  counted from `now`, the engine's clock; or `Choices`, several accounts the consent
  granted, one to pick on the connect page); `DENIED` optionally, the platform's own
  `error` values for a user's "no" besides OAuth's `access_denied`.
- SERVER: the user names a server on Fanout's connect page (`server_field`, optional, its
  label and hint); `register` makes this server's app there (once per server: the app is
  kept, fanout/models/instance_apps.py), then `authorize` and `exchange` as OAUTH's, on
  that server (`server`, its host name). The account's `user_id` names the server too.
- CREDENTIALS: `fields`, the form's two inputs (the identifier, then the secret), and
  `sign_in`, which exchanges them for a `Grant` at once; the password goes no further than
  that one call. It raises SignInRefused for a wrong identifier or password,
  AccountNotEligible for an account that cannot publish, PlatformUnreachable when the
  platform cannot be asked.

Optional: `NOT_ELIGIBLE`, what the connect pages tell a user whose account cannot publish;
`foresee(step, job)`, the failures a publish now would meet before creating
anything, for a preflight (its `step` records nothing); `UPLOADS_MEDIA = True` when the
adapter fetches the media itself (fanout/outbound/media_fetch.py), so the engine does not
(a preflight does, as the adapter would: fanout/before_platform.py).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType

from .base import CREDENTIALS, OAUTH, SERVER, Field, connect_style


@dataclass(frozen=True)
class Hook:
    """A function an adapter offers, with the parameter names its callers pass, in order."""

    name: str
    parameters: tuple[str, ...]


EVERY = (
    Hook("publish", ("step", "job")),
    # `settings`, where taken: the server's (fanout.settings.Settings), for an API version.
    Hook("refresh", ("http", "app", "access_token", "refresh_token", "now")),
    Hook("refresh_due", ("expires_at",)),
)
BY_STYLE = {
    OAUTH: (
        Hook("authorize", ("app", "redirect_uri", "state", "randbytes")),
        Hook("exchange", ("http", "app", "code", "redirect_uri", "verifier", "now", "settings")),
    ),
    CREDENTIALS: (Hook("sign_in", ("http", "identifier", "password", "now", "settings")),),
    SERVER: (
        Hook("register", ("http", "server", "redirect_uri", "settings")),
        Hook("authorize", ("app", "redirect_uri", "state", "randbytes", "server")),
        Hook("exchange", ("http", "app", "code", "redirect_uri", "verifier", "now", "settings", "server")),
    ),
}
OPTIONAL = (Hook("foresee", ("step", "job")),)


def problems(adapter: ModuleType) -> list[str]:
    """What `adapter` lacks or gets wrong of the surface above, one line each; [] if none."""
    style = connect_style(adapter)
    if style not in BY_STYLE:
        return [f"CONNECT_STYLE is {style!r}, not one of {sorted(BY_STYLE)}"]
    found = []
    for hook in EVERY + BY_STYLE[style]:
        function = getattr(adapter, hook.name, None)
        found.append(f"no {hook.name}()" if function is None else _parameters_problem(hook, function))
    for hook in OPTIONAL:
        function = getattr(adapter, hook.name, None)
        if function is not None:
            found.append(_parameters_problem(hook, function))
    hosts = getattr(adapter, "HOSTS", None)
    # A server-style platform's hosts are the servers its users name: it may list none.
    if not (isinstance(hosts, tuple) and (hosts or style == SERVER) and all(isinstance(h, str) and h for h in hosts)):
        found.append("HOSTS is not a tuple of host names")
    if not isinstance(getattr(adapter, "UPLOADS_MEDIA", False), bool):
        found.append("UPLOADS_MEDIA is not True or False")
    denied = getattr(adapter, "DENIED", ())
    if not (isinstance(denied, tuple) and all(isinstance(d, str) for d in denied)):
        found.append("DENIED is not a tuple of error values")
    not_eligible = getattr(adapter, "NOT_ELIGIBLE", "words")
    if not (isinstance(not_eligible, str) and not_eligible):
        found.append("NOT_ELIGIBLE is not words for the user")
    if style == CREDENTIALS:
        found.append(_fields_problem(getattr(adapter, "fields", None)))
    if style == SERVER and not isinstance(getattr(adapter, "server_field", Field("server", "server")), Field):
        found.append("server_field is not a Field")
    return [problem for problem in found if problem]


def _parameters_problem(hook: Hook, function) -> str:
    if not callable(function):
        return f"{hook.name} is not a function"
    taken = tuple(inspect.signature(function).parameters)
    if taken != hook.parameters:
        return f"{hook.name}{taken} is called as {hook.name}{hook.parameters}"
    return ""


def _fields_problem(fields) -> str:
    if not (isinstance(fields, tuple) and len(fields) == 2 and all(isinstance(f, Field) for f in fields)):
        return "fields is not two Fields (the identifier, then the secret)"
    if fields[0].secret or not fields[1].secret:
        return "fields are not the identifier first, then the secret"
    return ""
