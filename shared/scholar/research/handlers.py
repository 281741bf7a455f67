"""The research family's tool implementations, assembled from its topics' subpackages (as ``spec.py`` is)."""

from __future__ import annotations

from scholar.catalogue import Handler
from scholar.research.keep import handlers as keep
from scholar.research.library import handlers as library
from scholar.research.library import index_handlers as library_index
from scholar.research.operations import handlers as operations
from scholar.research.read import handlers as read
from scholar.research.search import handlers as search

HANDLERS: dict[str, Handler] = {
    **search.HANDLERS,
    **read.HANDLERS,
    **keep.HANDLERS,
    **library.HANDLERS,
    **library_index.HANDLERS,
    **operations.HANDLERS,
}
