"""The research family's tools (DESIGN §3, seed 003).

The operations tools live in ``spec_health``; the federated search and library tools join them here.
"""

from __future__ import annotations

from scholar.research import spec_health

TOOLS = (*spec_health.TOOLS,)
