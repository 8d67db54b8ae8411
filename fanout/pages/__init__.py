"""The look every page of Fanout shares: the renderer (`render.py`), its templates and its
static files, for the dashboard (fanout/dashboard/), the connect pages and the sandbox post
page (fanout/handlers/) alike, so neither imports the other for it."""
