"""Connexion's operations, with their handlers decorated once instead of on every request.

Connexion 3.3 (`connexion.apps.asynchronous.AsyncOperation`) wraps the handler in its
decorators (parameters, response, sync to async) anew for each request, and builds a new
URI parser for each; the profile of `GET /v1/posts/{id}` showed that work at some 10% of
the request (bench/README.md). Neither holds anything of one request: the wrappers read
the request from Connexion's context variables when called, and a parser is made from
the operation's parameter definitions alone. So both are made once here, and reused.
`tests/test_operations.py` pins that what a handler receives is unchanged.
"""
from __future__ import annotations

import functools
from typing import Callable

from connexion.apps.asynchronous import AsyncApi, AsyncOperation
from connexion.context import _operation, receive, scope
from connexion.decorators import StarletteDecorator


class _DecoratedOnce(StarletteDecorator):
    def __call__(self, function: Callable) -> Callable:
        decorated = self.decorate(function)
        parsers: dict[int, tuple[object, object]] = {}

        def uri_parser():
            current = _operation.get()
            known = parsers.get(id(current))
            if known is None or known[0] is not current:
                known = parsers[id(current)] = (current, self.uri_parser)
            return known[1]

        @functools.wraps(function)
        async def wrapper(*args, **kwargs):
            request = self.framework.get_request(uri_parser=uri_parser(), scope=scope, receive=receive)
            return await decorated(request)

        return wrapper


class DecoratedOnceOperation(AsyncOperation):
    @functools.cached_property
    def fn(self) -> Callable:
        return _DecoratedOnce(pythonic_params=self.pythonic_params, jsonifier=self.jsonifier)(self._fn)


class DecoratedOnceApi(AsyncApi):
    def make_operation(self, operation) -> AsyncOperation:
        return DecoratedOnceOperation.from_operation(
            operation, pythonic_params=self.pythonic_params, jsonifier=self.jsonifier)
