"""The research family's tools (DESIGN §3, seed 003).

Until the federated search and library tools join (issue of the research helper), this family holds
the operations tools of ``spec_health``.
"""

from __future__ import annotations

from scholar.research import spec_health

TOOLS = (*spec_health.TOOLS,)
