"""The research family's tool implementations, assembled from one module per topic."""

from __future__ import annotations

from scholar.catalogue import Handler
from scholar.research import handlers_health, read_handlers, search_handlers

HANDLERS: dict[str, Handler] = {**search_handlers.HANDLERS, **handlers_health.HANDLERS, **read_handlers.HANDLERS}
