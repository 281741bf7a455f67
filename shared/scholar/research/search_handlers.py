"""The ``search`` tool's handler (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.catalogue import CallContext, Handler
from scholar.research import search as federated
from scholar.research.search_spec import SearchInput, SearchResult


async def search(args: SearchInput, ctx: CallContext) -> SearchResult:
    return await federated.search(args, ctx.principal)


HANDLERS: dict[str, Handler] = {"search": search}
