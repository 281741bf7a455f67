"""The research family's tool implementations, assembled from one module per topic."""

from __future__ import annotations

from scholar.catalogue import Handler
from scholar.research import download_handlers, handlers_health, search_handlers

HANDLERS: dict[str, Handler] = {**search_handlers.HANDLERS, **handlers_health.HANDLERS, **download_handlers.HANDLERS}
