"""Connexion's operations, with their handlers decorated once instead of on every request.

Connexion 3.3 (`connexion.apps.asynchronous.AsyncOperation`) wraps the handler in its
decorators (parameters, response, sync to async) anew for each request, and builds a new
URI parser for each; the profile of `GET /v1/posts/{id}` showed that work at some 10% of
the request (bench/README.md). Neither holds anything of one request: the wrappers read
the request from Connexion's context variables when called, and a parser is made from
the operation's parameter and body definitions alone. So both are made once, when the
operation is, and reused. `tests/http/test_operations.py` pins that what a handler receives is
unchanged.
"""
from __future__ import annotations

import asyncio
import functools
from typing import Callable

from connexion.apps.asynchronous import AsyncApi, AsyncOperation
from connexion.context import operation, receive, scope
from connexion.decorators import StarletteDecorator
from connexion.decorators.parameter import AsyncParameterDecorator, prep_kwargs, unwrap_decorators
from connexion.http_facts import FORM_CONTENT_TYPES
from connexion.utils import inspect_function_arguments, is_json_mimetype


PARSED_BODY = "fanout.parsed_body"
_ABSENT = object()


class _Parameters(AsyncParameterDecorator):
    """Connexion's parameter decorator, less work it repeats on every request: the JSON body
    the request validator parsed (fanout/http/validation.py, the one parse the service
    makes) is handed to the handler instead of being parsed again, a request that is not a
    form is not read as one to find no files in it, and parameter names are made into
    Python names once each."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sanitize_fn = functools.lru_cache(maxsize=1024)(self.sanitize_fn)

    def _maybe_get_body(self, request, *, arguments, has_kwargs):
        parsed = request.scope.get("extensions", {}).get(PARSED_BODY, _ABSENT)
        if parsed is _ABSENT or not is_json_mimetype(request.content_type):
            return super()._maybe_get_body(request, arguments=arguments, has_kwargs=has_kwargs)
        if self.sanitize_fn(operation.body_name(request.content_type)) in arguments or has_kwargs:
            return parsed
        return None

    def __call__(self, function: Callable) -> Callable:
        arguments, has_kwargs = inspect_function_arguments(unwrap_decorators(function))

        @functools.wraps(function)
        async def wrapper(request):
            body = self._maybe_get_body(request, arguments=arguments, has_kwargs=has_kwargs)
            while asyncio.iscoroutine(body):
                body = await body
            files = await request.files() if request.mimetype in FORM_CONTENT_TYPES else {}
            kwargs = prep_kwargs(request, request_body=body, files=files, arguments=arguments,
                                 has_kwargs=has_kwargs, sanitize=self.sanitize_fn)
            return await function(**kwargs)

        return wrapper


class _DecoratedOnce(StarletteDecorator):
    def __init__(self, *, uri_parser, **kwargs) -> None:
        super().__init__(**kwargs)
        self._parser = uri_parser

    @property
    def _parameter_decorator_cls(self):
        return _Parameters

    def __call__(self, function: Callable) -> Callable:
        decorated = self.decorate(function)

        @functools.wraps(function)
        async def wrapper(*args, **kwargs):
            request = self.framework.get_request(uri_parser=self._parser, scope=scope, receive=receive)
            return await decorated(request)

        return wrapper


class DecoratedOnceOperation(AsyncOperation):
    def __init__(self, fn: Callable, *, uri_parser, **kwargs) -> None:
        super().__init__(fn, **kwargs)
        self.uri_parser = uri_parser

    @functools.cached_property
    def fn(self) -> Callable:
        return _DecoratedOnce(uri_parser=self.uri_parser, pythonic_params=self.pythonic_params,
                              jsonifier=self.jsonifier)(self._fn)


class DecoratedOnceApi(AsyncApi):
    def make_operation(self, operation) -> AsyncOperation:
        # The parser Connexion's decorator would make for each request (`uri_parser`).
        parser = operation.uri_parser_class(operation.parameters, operation.body_definition())
        return DecoratedOnceOperation(operation.function, uri_parser=parser, jsonifier=self.jsonifier,
                                      operation_id=operation.operation_id, pythonic_params=self.pythonic_params)
