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

import functools
from typing import Callable

from connexion.apps.asynchronous import AsyncApi, AsyncOperation
from connexion.context import receive, scope
from connexion.decorators import StarletteDecorator


class _DecoratedOnce(StarletteDecorator):
    def __init__(self, *, uri_parser, **kwargs) -> None:
        super().__init__(**kwargs)
        self._parser = uri_parser

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
