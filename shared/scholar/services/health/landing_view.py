"""The landing page's view of the sources: one status per source that has usage records.

Read by ``scholar.gateway.mcp.landing`` (the page shows nothing while no usage table is configured). The page
caches its answer for a few minutes, so this runs at most that often per gateway instance.
"""

from __future__ import annotations

from scholar.core.config import get_settings
from scholar.services.health.report import source_status as _statuses


def source_status() -> list[dict[str, str]]:
    """``[{source, status}]`` for every source with records, sorted by name; ``[]`` without a usage table.

    Raises:
        UsageReadError: the table could not be read (the page then says the status is unknown).
    """
    if not get_settings().resources.usage_table:
        return []
    return [{"source": source, "status": status} for source, status in sorted(_statuses().items())]
