"""The research family's tool implementations, assembled from one module per topic."""

from __future__ import annotations

from scholar.catalogue import Handler
from scholar.research import (
    download_handlers,
    handlers_health,
    library_handlers,
    library_index_handlers,
    read_handlers,
    search_handlers,
)

HANDLERS: dict[str, Handler] = {
    **search_handlers.HANDLERS,
    **read_handlers.HANDLERS,
    **download_handlers.HANDLERS,
    **library_handlers.HANDLERS,
    **library_index_handlers.HANDLERS,
    **handlers_health.HANDLERS,
}
