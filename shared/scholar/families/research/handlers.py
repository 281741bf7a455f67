"""The research family's tool implementations, assembled from its topics' subpackages (as ``spec.py`` is).

``ACTIONS`` are the internal operations the gateway invokes besides tools (never in tools/list): the caller's
library as MCP resources and its completions (``scholar.families.research.resources``).
"""

from __future__ import annotations

from scholar.core.catalogue import Handler
from scholar.core.resource_actions import COMPLETE_ACTION, LIST_ACTION, READ_ACTION
from scholar.families.research.connectors import handlers as connectors
from scholar.families.research.fetch import handlers as fetch
from scholar.families.research.keep import handlers as keep
from scholar.families.research.library_tools import handlers as library
from scholar.families.research.library_tools import index_handlers as library_index
from scholar.families.research.operations import handlers as operations
from scholar.families.research.read import handlers as read
from scholar.families.research.resources import handlers as resources
from scholar.families.research.search import handlers as search
from scholar.runtime.family import answering

HANDLERS: dict[str, Handler] = {
    **search.HANDLERS,
    **read.HANDLERS,
    **fetch.HANDLERS,
    **keep.HANDLERS,
    **library.HANDLERS,
    **library_index.HANDLERS,
    **connectors.HANDLERS,
    **operations.HANDLERS,
}
ACTIONS = {
    LIST_ACTION: answering(resources.resources_list),
    READ_ACTION: answering(resources.resource_read),
    COMPLETE_ACTION: answering(resources.library_completions),
}
