"""Where a handler runs: on the event loop or in a thread pool, on which database
connection (docs/architecture.md#where-a-requests-time-goes).

The API's handlers (fanout/handlers/) and the dashboard's pages (fanout/dashboard/) run
through these; neither decides it for itself.
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from .. import runtime
from ..models import db
from ..models.db import is_sqlite


def fixed_signature(function):
    """`function` with its signature worked out once.

    Connexion inspects a handler's and a security function's signature on every request
    (to pick the arguments to pass); `inspect.signature` returns a `__signature__` at
    once instead of rebuilding it from the code object and the wrapper chain.
    """
    function.__signature__ = inspect.signature(function)
    return function


def api_call(handler):
    """Runs the handler on a pooled connection; the Problems it raises reach the app's
    error handler (fanout/http/errors.py), which answers them.

    For a handler that waits on nothing but the stores (see `on_the_stores`).
    """
    run = _on_a_connection(handler)

    @functools.wraps(handler)
    async def wrapper(*args, **kwargs):
        return await on_the_stores(run, *args, **kwargs)

    return fixed_signature(wrapper)


async def on_the_stores(function, *args, **kwargs):
    """`function(*args, **kwargs)`, which waits on nothing but the database, the queue and
    the rate-limit store.

    When those are files on this machine (the embedded default) it runs right on the event
    loop: its statements take microseconds, and a trip to the thread pool and back, with
    the GIL passed between threads at every statement, costs more than the work
    (docs/architecture.md#where-a-requests-time-goes). When they are across a network it
    runs in the thread pool, so that one slow round trip stalls one request, not all.
    """
    if runtime.current().settings.local_stores:
        return function(*args, **kwargs)
    # In the request's context (Connexion's `request` is a context variable), as
    # run_in_threadpool would; on a thread of the stores' own pool.
    call = functools.partial(contextvars.copy_context().run, _on_held_connection, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_store_threads(), call)


# Threads that wait on stores across a network (PostgreSQL, Redis), each holding a
# connection of the database's pool for as long as it lives: taking one from the pool and
# giving it back twice a request had the threads queue on the pool's lock, a third of a
# request's time under load. A fixed number, well under the pool's 32 connections
# (fanout/models/db.py), so the handlers run in Starlette's thread pool (`network_call`)
# still find connections free.
STORE_THREADS = 8
_threads: ThreadPoolExecutor | None = None
_thread_lock = threading.Lock()
_held = threading.local()


def _store_threads() -> ThreadPoolExecutor:
    global _threads
    if _threads is None:
        with _thread_lock:
            if _threads is None:
                _threads = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="fanout-stores")
    return _threads


def _on_held_connection(function, *args, **kwargs):
    """`function` on this thread's held connection: taken again when the database was
    replaced or the connection can no longer be used (the server went away, an error left
    it aborted), the old one going back to the pool, which discards it if broken."""
    held = getattr(_held, "connection", None)
    if held is None or held[0] is not db.obj or not db.is_connection_usable():
        if held is not None and held[0] is db.obj:
            held[1].__exit__(None, None, None)
        context = db.connection_context()
        context.__enter__()
        _held.connection = (db.obj, context)
    return function(*args, **kwargs)


class HeldConnection:
    """The event loop thread's database connection, held open while requests keep coming.

    With the stores in local files, requests run their statements on the event loop's
    thread (`on_the_stores`), one after the other. Taking that thread's connection from the
    pool and giving it back around each lookup and handler cost more than the statements
    of a read; so the first request takes it, and it goes back to the pool once `idle`
    seconds pass with no request in flight. Every `db.connection_context()` on the thread
    meanwhile finds it open and leaves it so.
    """

    def __init__(self, idle: float = 1.0) -> None:
        self.idle = idle
        self._held = None  # (the database it was taken from, its connection context)
        self._in_flight = 0
        self._last = 0.0
        self._timer = None

    @contextmanager
    def request(self):
        if self._held is None or self._held[0] is not db.obj:
            self._take()
        self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1
            self._last = time.monotonic()

    def _take(self) -> None:
        if not is_sqlite():
            return  # only a local file is opened on the loop: a server could stall it
        context = db.connection_context()
        try:
            context.__enter__()
        except Exception:
            # No connection now (the database went away): the request goes on without one
            # held, and whatever needs the database fails where it handles that (/readyz
            # reports it, /healthz never asks).
            return
        self._held = (db.obj, context)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.idle, self._check)

    def _check(self) -> None:
        self._timer = None
        if self._held is None:
            return
        wait = self._last + self.idle - time.monotonic()
        if self._in_flight or wait > 0:
            self._timer = asyncio.get_running_loop().call_later(max(wait, 0.05), self._check)
            return
        database, context = self._held
        self._held = None
        if database is db.obj:  # else that database was closed by whoever replaced it
            context.__exit__(None, None, None)


def network_call(handler):
    """`api_call` for a handler that also waits on the network (a DNS lookup): always in
    the thread pool, whatever the stores are."""
    return fixed_signature(functools.wraps(handler)(_on_a_connection(handler)))


def _on_a_connection(handler):
    def run(*args, **kwargs):
        with db.connection_context():
            return handler(*args, **kwargs)

    return run
