"""ASGI entry point for server processes: `uvicorn fanout.asgi:app`.

Each of the N processes of `fanout api --processes N` (uvicorn's `--workers N`) imports
this module; one whose parent is killed stops within seconds instead of holding the port
(fanout/ops/supervise.py).
"""
from .app import create_app
from .http.requestlog import configure_logging
from .ops.supervise import stop_with_spawning_parent
from .settings import Settings

settings = Settings.from_env()
configure_logging(log_format=settings.log_format)
stop_with_spawning_parent()
app = create_app(settings)
