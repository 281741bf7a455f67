"""The papers family's tool implementations (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.core.budget import fit_paper
from scholar.core.catalogue import CallContext, Handler, args_only
from scholar.families.papers import (
    author,
    autoenrich,
    batch,
    check,
    citations,
    enrich,
    generate,
    graph_formats,
    recommend,
    search,
)
from scholar.families.papers.spec import GetPaperInput, PaperResult
from scholar.services import paper_lookup


async def get_paper(args: GetPaperInput, ctx: CallContext) -> PaperResult:
    paper = await paper_lookup.get_paper(args.identifier, principal=ctx.principal)
    # Seed 000 auto-enrichment: Crossref's citation fields and Open Library's book_metadata; a failing
    # enrichment source is reported (partial + failed_sources), never silently dropped.
    (paper,), failures = await autoenrich.enrich([paper], crossref=True, books=True)
    paper = fit_paper(paper)
    extra = {"partial": True, "failed_sources": [f.model_dump() for f in failures]} if failures else {}
    return PaperResult.model_validate({**paper.model_dump(), **extra})


HANDLERS: dict[str, Handler] = {
    "get_paper": get_paper,
    "search_papers": args_only(search.search_papers),
    "get_author": args_only(author.get_author),
    "get_citations": args_only(citations.get_citations),
    "get_references": args_only(citations.get_references),
    "get_citation_graph": args_only(graph_formats.citation_graph),
    "find_bridge_papers": args_only(graph_formats.find_bridge),
    "recommend_papers": args_only(recommend.recommend),
    "enrich_paper": args_only(enrich.enrich_paper),
    "generate_citations": generate.generate_citations_for,
    "batch_resolve": args_only(batch.batch_resolve),
    "check_references": args_only(check.check_references),
}
