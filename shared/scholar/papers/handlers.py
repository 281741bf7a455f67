"""The papers family's tool implementations (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.catalogue import CallContext, Handler
from scholar.papers import lookup, search
from scholar.papers.spec import GetPaperInput, PaperResult, SearchPapersInput, SearchPapersResult


async def get_paper(args: GetPaperInput, ctx: CallContext) -> PaperResult:
    paper = await lookup.get_paper(args.identifier)
    return PaperResult.model_validate(paper.model_dump())


async def search_papers(args: SearchPapersInput, ctx: CallContext) -> SearchPapersResult:
    return await search.search_papers(args)


HANDLERS: dict[str, Handler] = {"get_paper": get_paper, "search_papers": search_papers}
