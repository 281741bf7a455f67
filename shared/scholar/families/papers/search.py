"""search_papers: relevance search, or bulk search when sorted (relevance search ignores sort)."""

from __future__ import annotations

import json
from typing import Any

from scholar.core.budget import fit_papers, shorten_for_list
from scholar.core.errors import InvalidArgumentError
from scholar.core.paper_mapping import from_s2
from scholar.families.papers.fields import BULK_UNSUPPORTED, FIELDS
from scholar.families.papers.spec import SearchPapersInput, SearchPapersResult
from scholar.sources import s2
from scholar.store.cache import Cache

# S2 relevance search serves at most the first 1,000 results (offset + limit ≤ 1000).
MAX_WINDOW = 1000
_SORT = {"citations": "citationCount:desc", "year": "publicationDate:desc"}


def _filters(args: SearchPapersInput) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if args.year_start is not None or args.year_end is not None:
        if args.year_start and args.year_end and args.year_start > args.year_end:
            raise InvalidArgumentError(
                f"year_start ({args.year_start}) must not be after year_end ({args.year_end})", field="year_start"
            )
        params["year"] = f"{args.year_start or ''}-{args.year_end or ''}"
    if args.fields_of_study:
        params["fieldsOfStudy"] = ",".join(args.fields_of_study)
    if args.venue:
        params["venue"] = args.venue
    if args.min_citations is not None:
        params["minCitationCount"] = str(args.min_citations)
    return params


async def search_papers(args: SearchPapersInput, cache: Cache | None = None) -> SearchPapersResult:
    """One page of search results (cached for a day under the normalised parameters)."""
    if args.offset + args.limit > MAX_WINDOW:
        raise InvalidArgumentError(
            f"offset + limit must be at most {MAX_WINDOW} (got {args.offset + args.limit}); narrow the query instead",
            field="offset",
        )
    cache = cache or Cache()
    key = json.dumps(args.model_dump(mode="json"), sort_keys=True)
    cached = await cache.aget("search", f"papers:{key}")
    if cached is not None:
        return SearchPapersResult.model_validate(cached)
    fields = FIELDS[args.fields]
    bulk = args.sort != "relevance"
    asked = tuple(f for f in fields if not (bulk and f in BULK_UNSUPPORTED))
    params: dict[str, Any] = {"query": args.query, "fields": ",".join(asked), **_filters(args)}
    if bulk:
        # Bulk search pages by token (1,000 per page), not offset: one page covers offset + limit ≤ 1000.
        params["sort"] = _SORT[args.sort]
        data = await s2.search_papers(params, bulk=True)
        rows = (data.get("data") or [])[args.offset : args.offset + args.limit]
    else:
        params.update(offset=str(args.offset), limit=str(args.limit))
        data = await s2.search_papers(params, bulk=False)
        # S2 may send more rows than asked (seen on relevance search): the page is what the caller asked for.
        rows = (data.get("data") or [])[: args.limit]
    total = int(data.get("total") or 0)
    papers = [from_s2(row, fields) for row in rows]
    if args.fields != "full":
        papers = [shorten_for_list(p) for p in papers]
    # A hundred full records can pass the size budget: one too long alone is shortened (authorCount,
    # abstractTruncated), and the page ends where they fit.
    papers, cut = fit_papers(papers)
    end = args.offset + len(papers)
    has_more = (cut or len(papers) == args.limit) and end < min(total, MAX_WINDOW)
    result = SearchPapersResult(
        data=papers, total=total, offset=args.offset, next_offset=end if has_more else None, sort=args.sort,
        truncated=cut,
    )
    await cache.aput("search", f"papers:{key}", result.model_dump(mode="json"))
    return result
