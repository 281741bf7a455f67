"""get_citing_patents: an OPS citation search (``ct=``) on the paper's DOI, then on its title.

OPS indexes the non-patent literature cited in search reports; a DOI finds the reports that printed it,
the quoted title finds many that did not. Semantic Scholar supplies the DOI or title the caller did not
give (any source that knows the paper: scholar.services.paper_lookup). Coverage is incomplete by nature, and the answer
says so.
"""

from __future__ import annotations

from scholar.core.budget import fit_field
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.records import PatentRecord
from scholar.families.patents.models import CitingPatent, CitingPatentsResult
from scholar.families.patents.search import SEARCH_PATH, parse_search, quote_term
from scholar.families.patents.spec import GetCitingPatentsInput
from scholar.services.paper_lookup import parse_identifier, resolve
from scholar.sources import epo_ops
from scholar.store.cache import Cache

NOTE = (
    "Coverage is incomplete. Results come from EPO OPS citation search, which only knows the non-patent "
    "literature printed in search reports; use this for discovery, not exhaustive analysis."
)


async def _paper_facts(paper_id: str) -> tuple[str | None, str | None]:
    """(doi, title) of the paper: the DOI as given, the rest from the paper's record (any source that has it)."""
    pid = parse_identifier(paper_id, "paper_id", tool="get_citing_patents")
    doi = pid.value if pid.kind == "doi" else None
    try:
        paper = await resolve(pid)
    except ScholarError:
        if doi is None:
            raise
        return doi, None  # no source knows it or one failed: the DOI alone still searches OPS
    return doi or (paper.externalIds or {}).get("DOI", "").lower() or None, paper.title


async def _search(cql: str, limit: int) -> tuple[int, list[PatentRecord], str]:
    try:
        response = await epo_ops.call("GET", SEARCH_PATH, service="search", what="citing patents",
                                      params={"q": cql, "Range": f"1-{limit}"})
    except NotFoundError:
        return 0, [], cql
    page = parse_search(response.content, 0, limit, cql)
    return page.total_count, page.references, cql


async def get_citing_patents(args: GetCitingPatentsInput) -> CitingPatentsResult:
    """Patents whose search reports cite the paper.

    Raises:
        InvalidArgumentError: not a paper identifier.
        NotFoundError: no source knows a non-DOI identifier.
        RateLimitedError, UpstreamError: OPS (or S2) failed.
    """
    cache = Cache()
    key = f"patents:citing:{args.limit}:{args.paper_id.strip().lower()}"
    held = await cache.aget("search", key)
    if isinstance(held, dict):
        return CitingPatentsResult.model_validate(held)
    doi, title = await _paper_facts(args.paper_id)
    hits: list[PatentRecord] = []
    cql: str | None = None
    total, matched_on = 0, "doi"
    if doi:
        total, hits, cql = await _search(f"ct={quote_term(doi)}", args.limit)
    if not hits and title:
        total, hits, cql = await _search(f"ct={quote_term(title)}", args.limit)
        matched_on = "title"
    patents = [
        CitingPatent(patent_id=r.patent_id, publication_number=r.publication_number, title=r.title,
                     publication_date=r.publication_date, applicants=r.applicants, family_id=r.family_id,
                     matched_on=matched_on)
        for r in hits
    ]
    result = CitingPatentsResult(paper_id=args.paper_id, doi=doi, title=title, patents=patents,
                                 total_count=total if patents else 0, effective_query=cql, note=NOTE)
    result, _ = fit_field(result, "patents", flag="truncated")
    await cache.aput("search", key, result.model_dump(mode="json"))
    return result
