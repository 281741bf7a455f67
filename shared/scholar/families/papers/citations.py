"""get_citations and get_references: one page of S2's list, filtered by us, bounded, cached.

S2's citation and reference endpoints cannot filter by year, field or citation count, so with a filter
we read one window of at most ``MAX_SCAN`` rows (a single request) and return the rows that pass;
``next_offset`` continues the scan. A popular paper's list is never paged through whole in one call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from scholar.core.budget import shorten_for_list
from scholar.core.errors import NotFoundError
from scholar.core.paper_mapping import from_s2
from scholar.core.records import Paper
from scholar.families.papers import autoenrich
from scholar.families.papers.budget import MAX_RESULT_CHARS
from scholar.families.papers.cache_keys import cache_key
from scholar.families.papers.fields import FIELDS
from scholar.families.papers.filters import check_years, filter_fields, has_filters, passes
from scholar.families.papers.spec_graph import (
    CitedItem,
    CitingItem,
    GetCitationsInput,
    GetCitationsResult,
    GetReferencesInput,
    GetReferencesResult,
)
from scholar.services.paper_lookup import explain_missing, s2_key_of
from scholar.sources import s2
from scholar.store.cache import Cache

Kind = Literal["citations", "references"]
# One request of S2's maximum page size: the most a filtered call reads.
MAX_SCAN = 1000


@dataclass(frozen=True)
class Listing:
    """What sets the two lists apart: S2's endpoint (also our cache key's kind), the key that holds each row's paper
    in S2's answer, the tool, and the answer's models."""

    kind: Kind
    nested: str
    tool: str
    result: type[GetCitationsResult] | type[GetReferencesResult]
    item: Callable[[Paper], CitingItem | CitedItem]


LISTINGS: dict[Kind, Listing] = {
    "citations": Listing("citations", "citingPaper", "get_citations", GetCitationsResult,
                         lambda paper: CitingItem(citingPaper=paper)),
    "references": Listing("references", "citedPaper", "get_references", GetReferencesResult,
                          lambda paper: CitedItem(citedPaper=paper)),
}


async def get_citations(args: GetCitationsInput, cache: Cache | None = None) -> GetCitationsResult:
    """One page of the papers citing ``args.identifier`` (errors as in ``list_papers``)."""
    result = await list_papers("citations", args, cache)
    assert isinstance(result, GetCitationsResult)
    return result


async def get_references(args: GetReferencesInput, cache: Cache | None = None) -> GetReferencesResult:
    """One page of the papers ``args.identifier`` cites (errors as in ``list_papers``)."""
    result = await list_papers("references", args, cache)
    assert isinstance(result, GetReferencesResult)
    return result


async def list_papers(
    kind: Kind, args: GetCitationsInput | GetReferencesInput, cache: Cache | None = None
) -> GetCitationsResult | GetReferencesResult:
    """One page of citing (``citations``) or cited (``references``) papers.

    Raises:
        InvalidArgumentError: a bad identifier or year range.
        NotFoundError: no source has such a paper.
        UnavailableError: reason ``data_not_in_sources``: another source knows the paper, but S2 (the source of
            citation lists) does not.
        RateLimitedError / UpstreamError: S2 failed (nothing cached).
    """
    listing = LISTINGS[kind]
    check_years(args)
    key = await s2_key_of(args.identifier, "identifier", tool=listing.tool)
    cache = cache or Cache()
    ckey = cache_key(kind, args, identifier=key)
    cached = await cache.aget("list", ckey)
    if cached is not None:
        return listing.result.model_validate(cached)
    limit = args.limit
    filtering = has_filters(args)
    wanted = FIELDS[args.fields]
    asked = tuple(dict.fromkeys((*wanted, *filter_fields(args))))
    window = MAX_SCAN if filtering else limit
    try:
        page = await s2.get_citation_page(key, kind, fields=asked, offset=args.offset, limit=window)
    except NotFoundError as err:
        raise await explain_missing(args.identifier, err, tool=listing.tool, what=f"its {kind}", cache=cache) from err
    rows: list[dict[str, Any]] = [r.get(listing.nested) or {} for r in page.get("data") or []]
    kept: list[tuple[int, Paper]] = []
    for index, row in enumerate(rows):
        if len(kept) == limit:
            break
        if filtering and not passes(row, args):
            continue
        paper = from_s2(row, wanted)
        kept.append((index, paper if args.fields == "full" else shorten_for_list(paper)))
    consumed = kept[-1][0] + 1 if len(kept) == limit else len(rows)
    next_offset: int | None = args.offset + consumed if (consumed < len(rows) or page.get("next")) else None
    papers, failures = await autoenrich.enrich([p for _, p in kept], crossref=False, books=True, cache=cache)
    kept = [(i, p) for (i, _), p in zip(kept, papers, strict=True)]
    kept, cut_at = _fit(kept, listing)
    truncated = cut_at is not None
    if cut_at is not None:
        consumed, next_offset = cut_at, args.offset + cut_at
    note = None
    if filtering and next_offset:
        note = (f"Filters are applied to at most {MAX_SCAN} rows per call; this call read rows {args.offset}–"
                f"{args.offset + max(consumed, 1) - 1}. Continue with offset={next_offset} for more.")
    items = [listing.item(paper) for _, paper in kept]
    result = listing.result(
        data=items,
        offset=args.offset,
        next_offset=next_offset,
        scanned=consumed,
        filtered_out=consumed - len(items) if filtering else 0,
        truncated=truncated or (filtering and len(items) < limit and next_offset is not None),
        note=note,
        failed_sources=failures,
        partial=bool(failures),
        sources=["s2", *(["openlibrary"] if any(p.book_metadata for _, p in kept) else [])],
    )
    if not failures:
        await cache.aput("list", ckey, result.model_dump(mode="json"))
    return result


def _fit(kept: list[tuple[int, Paper]], listing: Listing) -> tuple[list[tuple[int, Paper]], int | None]:
    """Keep the rows that fit the size budget; return them and the row index to continue from when cut."""
    budget = MAX_RESULT_CHARS - 2_000  # paging fields and the note
    total = 0
    for position, (index, paper) in enumerate(kept):
        total += len(paper.model_dump_json()) + len(listing.nested) + 8
        if total > budget:
            return kept[:position], index
    return kept, None
