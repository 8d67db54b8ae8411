"""The service imports no test client.

Connexion imports `starlette.testclient` as it is imported, only for `App.test_client()`.
That module imports httpx, and without the `httpx2` package (the README's plain install)
Starlette warns about it on every start. The service never makes a test client, so until
something does, `starlette.testclient` is a stand-in: calling its `TestClient` (as
`App.test_client()` does in the tests) or reading anything else from it imports the real
module, which then takes the stand-in's place.
"""
from __future__ import annotations

import importlib
import sys
import types

NAME = "starlette.testclient"


class _StandIn(types.ModuleType):
    @staticmethod
    def TestClient(*args, **kwargs):  # the one name Connexion imports from the module
        return _real().TestClient(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):  # the import system probes __path__ and the like
            raise AttributeError(name)
        return getattr(_real(), name)


def _real() -> types.ModuleType:
    module = sys.modules.get(NAME)
    if isinstance(module, _StandIn):
        del sys.modules[NAME]
        module = importlib.import_module(NAME)
    return module


def defer_test_client() -> None:
    """Put the stand-in in place, unless the real module is imported already."""
    if NAME in sys.modules:
        return
    import starlette

    stand_in = _StandIn(NAME)
    sys.modules[NAME] = stand_in
    starlette.testclient = stand_in
