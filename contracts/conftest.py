"""The contract suite reuses the fixtures of tests/conftest.py (`settings`, `rt`, `app`,
`client`, `workspace`, `sandbox_key`, `auth`, `resolver`, `process_env`, `cli`, `server`...).

`import *` skips underscore names, so the autouse fixture that clears FANOUT_* variables
is imported by name: contract tests start from the same known environment.
"""
from tests.conftest import *  # noqa: F401,F403
from tests.conftest import _clean_environ  # noqa: F401
