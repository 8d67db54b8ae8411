"""Python runs this at start when this folder is on PYTHONPATH: the processes the tests
start get the same loopback guard as the test session (see loopback_guard.py), and say
on stderr (a server's log) each connection it refused."""
import os

import loopback_guard

loopback_guard.install(os.environ.get(loopback_guard.LOG_VARIABLE) or None, echo=True)
