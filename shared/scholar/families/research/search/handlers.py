"""The ``search`` tool's handler (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.core.catalogue import CallContext, Handler
from scholar.families.research.search import federated
from scholar.families.research.search.spec import SearchInput, SearchResult


async def search(args: SearchInput, ctx: CallContext) -> SearchResult:
    return await federated.search(args, ctx.principal)


HANDLERS: dict[str, Handler] = {"search": search}
