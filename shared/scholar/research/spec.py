"""The research family's tools (DESIGN §3, seed 003), assembled from one module per topic."""

from __future__ import annotations

from scholar.research import (
    download_spec,
    library_index_spec,
    library_spec,
    read_spec,
    search_spec,
    spec_health,
)

TOOLS = (
    *search_spec.TOOLS,
    *read_spec.TOOLS,
    *download_spec.TOOLS,
    *library_spec.TOOLS,
    *library_index_spec.TOOLS,
    *spec_health.TOOLS,
)
