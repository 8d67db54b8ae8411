"""ASGI entry point for server processes: `uvicorn fanout.asgi:app`."""
from .app import create_app
from .requestlog import configure_logging
from .settings import Settings

settings = Settings.from_env()
configure_logging(log_format=settings.log_format)
app = create_app(settings)
