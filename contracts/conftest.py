"""The contract suite reuses the fixtures of tests/conftest.py (`settings`, `rt`, `app`,
`client`, `workspace`, `sandbox_key`, `auth`, `resolver`, `process_env`, `cli`, `server`...).

`import *` skips underscore names, so the autouse fixtures (the loopback guard, a clean
FANOUT_* environment, reachable external backends) and the migrated SQLite file `rt` copies
are imported by name: contract tests start from the same state. The guard's report hook
comes with `import *`.
"""
from tests.conftest import *  # noqa: F401,F403
from tests.conftest import _clean_environ, _external_backends_reachable, _loopback_only, _migrated_sqlite  # noqa: F401
