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
from scholar.core.errors import NotFoundError, UnavailableError
from scholar.core.paper_mapping import from_s2
from scholar.core.records import Paper
from scholar.families.papers import autoenrich
from scholar.families.papers.budget import MAX_RESULT_CHARS
from scholar.families.papers.cache_keys import cache_key
from scholar.families.papers.citation_window import window
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
from scholar.services import citation_graph
from scholar.services.paper_lookup import explain_missing, s2_key_of
from scholar.services.paper_lookup.s2_forms import DATA_NOT_IN_SOURCES
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
    item: Callable[[Paper, list[str] | None], CitingItem | CitedItem]


LISTINGS: dict[Kind, Listing] = {
    "citations": Listing("citations", "citingPaper", "get_citations", GetCitationsResult,
                         lambda paper, sources: CitingItem(citingPaper=paper, sources=sources)),
    "references": Listing("references", "citedPaper", "get_references", GetReferencesResult,
                          lambda paper, sources: CitedItem(citedPaper=paper, sources=sources)),
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
    merged = citation_graph.enabled() != ("s2",)
    key = await graph_key(args.identifier, "identifier", tool=listing.tool, merged=merged)
    cache = cache or Cache()
    # The merged graph's answers are keyed by its sources too (a narrower setting never reads a wider answer).
    extra = {"graph": ",".join(citation_graph.enabled())} if merged else {}
    ckey = cache_key(kind, args, identifier=key or args.identifier, **extra)
    cached = await cache.aget("list", ckey)
    if cached is not None:
        return listing.result.model_validate(cached)
    result = await (merged_page(listing, args, key, cache) if merged else _s2_list(listing, args, key or "", cache))
    if not result.failed_sources:
        await cache.aput("list", ckey, result.model_dump(mode="json"))
    return result


async def _s2_list(listing: Listing, args: GetCitationsInput | GetReferencesInput, key: str,
                   cache: Cache) -> GetCitationsResult | GetReferencesResult:
    """One page of S2's own list (the graph reads S2 alone, or the offset is past the merged window)."""
    kind = listing.kind
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
    items = [listing.item(paper, None) for _, paper in kept]
    return listing.result(
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


def _fit(kept: list[tuple[int, Paper]], listing: Listing) -> tuple[list[tuple[int, Paper]], int | None]:
    """Keep the rows that fit the size budget; return them and the row index to continue from when cut."""
    budget = MAX_RESULT_CHARS - 2_000  # paging fields and the note
    total = 0
    for position, (index, paper) in enumerate(kept):
        total += len(paper.model_dump_json()) + len(listing.nested) + 8
        if total > budget:
            return kept[:position], index
    return kept, None


async def graph_key(raw: str, field: str, *, tool: str, merged: bool) -> str | None:
    """The S2 form of ``raw``; with the merged graph, None for a paper S2 cannot be asked about (the others may
    list it).

    Raises:
        as ``s2_key_of`` (UnavailableError ``data_not_in_sources`` only when S2 is the graph's one source).
    """
    try:
        return await s2_key_of(raw, field, tool=tool)
    except UnavailableError as err:
        if merged and err.reason == DATA_NOT_IN_SOURCES:
            return None
        raise


async def merged_page(listing: Listing, args: GetCitationsInput | GetReferencesInput, key: str | None,
                      cache: Cache) -> GetCitationsResult | GetReferencesResult:
    """One page of the merged list (scholar.families.papers.citation_window; offsets past it continue S2's)."""
    filtering = has_filters(args)
    wanted = FIELDS[args.fields]
    asked = tuple(dict.fromkeys((*wanted, *filter_fields(args), "externalIds")))
    win = await window(listing.kind, args.identifier, key, asked, tool=listing.tool, cache=cache)
    if args.offset >= len(win.papers) and win.s2_more:
        shift = len(win.papers) - win.s2_rows
        moved = args.model_copy(update={"offset": win.s2_offset(args.offset)})
        s2_page = await _s2_list(listing, moved, key or "", cache)
        return s2_page.model_copy(update={"offset": args.offset, "next_offset": None if s2_page.next_offset is None
                                          else s2_page.next_offset + shift})
    rows = win.papers[args.offset: args.offset + (MAX_SCAN if filtering else args.limit)]
    kept: list[tuple[int, Paper]] = []
    for index, paper in enumerate(rows):
        if len(kept) == args.limit:
            break
        if filtering and not passes(paper.model_dump(), args):
            continue
        kept.append((index, paper if args.fields == "full" else shorten_for_list(paper)))
    consumed = kept[-1][0] + 1 if len(kept) == args.limit else len(rows)
    end = args.offset + consumed
    next_offset = end if end < len(win.papers) or win.s2_more else None
    papers, failures = await autoenrich.enrich([p for _, p in kept], crossref=False, books=True, cache=cache)
    kept, cut_at = _fit([(i, p) for (i, _), p in zip(kept, papers, strict=True)], listing)
    if cut_at is not None:
        consumed, next_offset = cut_at, args.offset + cut_at
    sources_of = win.edge_sources[args.offset: args.offset + len(rows)]
    failed = [*win.failed_sources, *failures]
    return listing.result(
        data=[listing.item(paper, sources_of[i]) for i, paper in kept],
        offset=args.offset,
        next_offset=next_offset,
        scanned=consumed,
        filtered_out=consumed - len(kept) if filtering else 0,
        truncated=cut_at is not None or (filtering and len(kept) < args.limit and next_offset is not None),
        failed_sources=failed,
        partial=bool(failed),
        sources=[*win.sources, *(["openlibrary"] if any(p.book_metadata for _, p in kept) else [])],
    )
