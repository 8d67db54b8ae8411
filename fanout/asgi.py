"""ASGI entry point for server processes: `uvicorn fanout.asgi:app`."""
from .app import create_app
from .requestlog import configure_logging
from .settings import Settings

configure_logging()
app = create_app(Settings.from_env())
