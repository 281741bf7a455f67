"""The research family's tools, assembled from one module per topic (search; health adds its own)."""

from __future__ import annotations

from scholar.research import search_spec

TOOLS = (*search_spec.TOOLS,)
