"""The papers family's tool implementations (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.catalogue import CallContext, Handler
from scholar.papers import author, autoenrich, batch, bridge, citations, enrich, generate, graph, lookup, recommend, search
from scholar.papers.spec import GetPaperInput, PaperResult, SearchPapersInput, SearchPapersResult
from scholar.papers.spec_export import (
    BatchResolveInput,
    BatchResolveResult,
    EnrichPaperInput,
    EnrichPaperResult,
    GenerateCitationsInput,
    GenerateCitationsResult,
)
from scholar.papers.spec_graph import (
    FindBridgePapersInput,
    FindBridgePapersResult,
    GetAuthorInput,
    GetAuthorResult,
    GetCitationGraphInput,
    GetCitationGraphResult,
    GetCitationsInput,
    GetCitationsResult,
    GetReferencesInput,
    GetReferencesResult,
    RecommendPapersInput,
    RecommendPapersResult,
)


async def get_paper(args: GetPaperInput, ctx: CallContext) -> PaperResult:
    paper = await lookup.get_paper(args.identifier)
    # Seed 000 auto-enrichment: Crossref's citation fields and Open Library's book_metadata; a failing
    # enrichment source is reported (partial + failed_sources), never silently dropped.
    (paper,), failures = await autoenrich.enrich([paper], crossref=True, books=True)
    extra = {"partial": True, "failed_sources": [f.model_dump() for f in failures]} if failures else {}
    return PaperResult.model_validate({**paper.model_dump(), **extra})


async def search_papers(args: SearchPapersInput, ctx: CallContext) -> SearchPapersResult:
    return await search.search_papers(args)


async def get_author(args: GetAuthorInput, ctx: CallContext) -> GetAuthorResult:
    return await author.get_author(args)


async def get_citations(args: GetCitationsInput, ctx: CallContext) -> GetCitationsResult:
    return await citations.get_citations(args)


async def get_references(args: GetReferencesInput, ctx: CallContext) -> GetReferencesResult:
    return await citations.get_references(args)


async def get_citation_graph(args: GetCitationGraphInput, ctx: CallContext) -> GetCitationGraphResult:
    return await graph.citation_graph(args)


async def find_bridge_papers(args: FindBridgePapersInput, ctx: CallContext) -> FindBridgePapersResult:
    return await bridge.find_bridge(args)


async def recommend_papers(args: RecommendPapersInput, ctx: CallContext) -> RecommendPapersResult:
    return await recommend.recommend(args)


async def enrich_paper(args: EnrichPaperInput, ctx: CallContext) -> EnrichPaperResult:
    return await enrich.enrich_paper(args)


async def generate_citations(args: GenerateCitationsInput, ctx: CallContext) -> GenerateCitationsResult:
    return await generate.generate_citations(args)


async def batch_resolve(args: BatchResolveInput, ctx: CallContext) -> BatchResolveResult:
    return await batch.batch_resolve(args)


HANDLERS: dict[str, Handler] = {
    "get_paper": get_paper,
    "search_papers": search_papers,
    "get_author": get_author,
    "get_citations": get_citations,
    "get_references": get_references,
    "get_citation_graph": get_citation_graph,
    "find_bridge_papers": find_bridge_papers,
    "recommend_papers": recommend_papers,
    "enrich_paper": enrich_paper,
    "generate_citations": generate_citations,
    "batch_resolve": batch_resolve,
}
