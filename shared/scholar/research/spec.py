"""The research family's tools (DESIGN §3, seed 003), assembled from one module per topic."""

from __future__ import annotations

from scholar.research import read_spec, search_spec, spec_health

TOOLS = (*search_spec.TOOLS, *spec_health.TOOLS, *read_spec.TOOLS)
