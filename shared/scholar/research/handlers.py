"""The research family's tool implementations (for now the operations tools of handlers_health)."""

from __future__ import annotations

from scholar.catalogue import Handler
from scholar.research import handlers_health

HANDLERS: dict[str, Handler] = {**handlers_health.HANDLERS}
