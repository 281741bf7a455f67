"""The research family's tools (DESIGN §3, seed 003), assembled from its topics' subpackages.

search (federated search), read (read_paper), fetch (ChatGPT's connector contract), keep (download_paper), library
(library_*), operations (source_health, get_server_info). The catalogue reads ``TOOLS`` here, at the family root.
"""

from __future__ import annotations

from scholar.families.research.connectors import spec as connectors
from scholar.families.research.fetch import spec as fetch
from scholar.families.research.keep import spec as keep
from scholar.families.research.library_tools import index_spec as library_index
from scholar.families.research.library_tools import spec as library
from scholar.families.research.operations import spec as operations
from scholar.families.research.read import spec as read
from scholar.families.research.search import spec as search

TOOLS = (
    *search.TOOLS,
    *read.TOOLS,
    *fetch.TOOLS,
    *keep.TOOLS,
    *library.TOOLS,
    *library_index.TOOLS,
    *connectors.TOOLS,
    *operations.TOOLS,
)
