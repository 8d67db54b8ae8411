"""The private names of Connexion, uvicorn and Huey the service relies on, each with the
module that uses it: an upgrade that moves or renames one fails here, naming it, rather
than deep inside a request or a worker's shutdown.

"Private" is a name starting with `_`, or an internal hook the service overrides or calls
on the framework's own objects (a validator's `wrap_receive`, uvicorn's
`send_400_response`). Public API (`AsyncApp`, `add_api`, `run_in_threadpool`) is not
listed. Starlette's own private names are used nowhere in the service.
"""
from __future__ import annotations

import importlib
import inspect

# One name a line: the class, the name, and either `has` (the class has it: a method, a
# property or a class attribute) or `sets` (the class or a base assigns `self.<name>`),
# then who uses it.
SEAM = """
connexion.spec:OpenAPISpecification                     _validate_spec            has   fanout/http/spec_check.py replaces it
connexion.spec:Specification                            load                      has   fanout/http/specification.py lets a built one through
connexion.spec:Specification                            raw                       has   fanout/app.py reads the document from it
connexion.apps.asynchronous:AsyncASGIApp                api_cls                   has   fanout/app.py sets it on the middleware app
connexion.apps.asynchronous:AsyncApi                    make_operation            has   fanout/http/operations.py overrides it
connexion.apps.asynchronous:AsyncOperation              fn                        has   fanout/http/operations.py overrides it
connexion.decorators:StarletteDecorator                 _parameter_decorator_cls  has   fanout/http/operations.py overrides it
connexion.decorators:StarletteDecorator                 decorate                  has   fanout/http/operations.py calls it
connexion.decorators:StarletteDecorator                 framework                 has   fanout/http/operations.py asks it for the request
connexion.decorators.parameter:AsyncParameterDecorator  _maybe_get_body           has   fanout/http/operations.py overrides and calls it
connexion.validators:JSONRequestBodyValidator           wrap_receive              has   fanout/http/validation.py overrides it
connexion.validators:JSONRequestBodyValidator           _parse                    has   fanout/http/validation.py overrides it
connexion.validators:JSONRequestBodyValidator           _validate                 has   fanout/http/validation.py overrides it
connexion.validators:JSONRequestBodyValidator           _validator                has   fanout/http/validation.py overrides it
connexion.validators:JSONRequestBodyValidator           _insert_messages          has   fanout/http/validation.py calls it
uvicorn.protocols.http.h11_impl:H11Protocol             send_400_response         has   fanout/http/server.py overrides it
huey.consumer:Consumer                                  _set_signal_handlers      has   fanout/cli.py calls it before the consumer starts
uvicorn.server:Server                                   startup                   has   fanout/http/server.py says "serving" after it
connexion.apps.asynchronous:AsyncApp                    _middleware_app           sets  fanout/app.py reaches the middleware app
connexion.apps.asynchronous:AsyncOperation              _fn                       sets  fanout/http/operations.py decorates it once
connexion.apps.asynchronous:AsyncOperation              pythonic_params           sets  fanout/http/operations.py
connexion.apps.asynchronous:AsyncOperation              jsonifier                 sets  fanout/http/operations.py
connexion.decorators.parameter:AsyncParameterDecorator  sanitize_fn               sets  fanout/http/operations.py caches it
connexion.validators:JSONRequestBodyValidator           _schema                   sets  fanout/http/validation.py
connexion.validators:JSONRequestBodyValidator           _nullable                 sets  fanout/http/validation.py
connexion.validators:JSONRequestBodyValidator           _required                 sets  fanout/http/validation.py
connexion.validators:JSONRequestBodyValidator           _encoding                 sets  fanout/http/validation.py
uvicorn.protocols.http.h11_impl:H11Protocol             conn                      sets  fanout/http/server.py bounds the request head
uvicorn.protocols.http.h11_impl:H11Protocol             transport                 sets  fanout/http/server.py writes the refusal
huey.consumer:Consumer                                  _signal_actions           sets  fanout/cli.py makes SIGTERM graceful
uvicorn.server:Server                                   started                   sets  fanout/http/server.py, fanout/cli.py
"""
NAMES = [line.split(None, 3) for line in SEAM.strip().splitlines()]

# (class, method, the parameter names our override or call passes, self aside); a method
# of None: the path names the function itself.
PARAMETERS = [
    # Connexion's own, which fanout/http/specification.py keeps and calls.
    ("fanout.http.specification:_load", None, ["spec", "arguments"]),
    ("connexion.decorators.parameter:AsyncParameterDecorator", "_maybe_get_body",
     ["request", "arguments", "has_kwargs"]),
    ("connexion.apps.asynchronous:AsyncApi", "make_operation", ["operation"]),
    ("connexion.validators:JSONRequestBodyValidator", "wrap_receive", ["receive", "scope"]),
    ("connexion.validators:JSONRequestBodyValidator", "_parse", ["stream", "scope"]),
    ("connexion.validators:JSONRequestBodyValidator", "_validate", ["body"]),
    ("connexion.validators:JSONRequestBodyValidator", "_insert_messages", ["receive", "messages"]),
    ("uvicorn.protocols.http.h11_impl:H11Protocol", "send_400_response", ["msg"]),
    ("uvicorn.server:Server", "startup", ["sockets"]),
]


def found(path: str):
    """The class at `module:Class`, or None when either is gone."""
    module_name, _, qualname = path.partition(":")
    try:
        target = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return None
    return target


def sets(cls, attribute: str) -> bool:
    """Whether the class or a base assigns `self.<attribute>` in its source."""
    for klass in cls.__mro__:
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):  # builtins
            continue
        if f"self.{attribute} =" in source or f"self.{attribute}: " in source:
            return True
    return False


def test_every_private_name_the_service_uses_is_where_it_was():
    missing = []
    for path, name, kind, user in NAMES:
        cls = found(path)
        there = cls is not None and (hasattr(cls, name) if kind == "has" else sets(cls, name))
        if not there:
            missing.append(f"{path} {name} ({user})")
    assert not missing, "moved or renamed by an upgrade:\n" + "\n".join(missing)


def test_every_hook_the_service_overrides_takes_the_parameters_it_passes():
    changed = []
    for path, method, names in PARAMETERS:
        cls = found(path)
        function = cls if method is None else getattr(cls, method, None) if cls is not None else None
        if function is None:
            changed.append(f"{path}.{method}: gone")
            continue
        function = getattr(function, "__func__", function)
        taken = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
        if taken != names:
            changed.append(f"{path}.{method} takes {taken}, the service passes {names}")
    assert not changed, "\n".join(changed)


def test_a_name_that_is_gone_is_named():
    assert found("connexion.spec:NoSuchSpecification") is None
    assert not sets(found("connexion.spec:Specification"), "no_such_attribute")
