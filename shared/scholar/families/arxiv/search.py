"""arxiv_search: build the effectiveQuery, fetch one page (briefly cached), explain empty or unreachable pages."""

from __future__ import annotations

import hashlib
import json

from scholar.core.budget import fit_papers
from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import UpstreamError
from scholar.families.arxiv import reasons
from scholar.families.arxiv.metadata import to_paper
from scholar.families.arxiv.query import build_query
from scholar.families.arxiv.spec import START_CEILING, SearchInput, SearchResult
from scholar.sources import arxiv
from scholar.store.cache import Cache

SEARCH_TTL_S = 3600
_SORT_BY = {"relevance": "relevance", "submitted": "submittedDate", "updated": "lastUpdatedDate"}


def _cache_key(params: dict[str, object]) -> str:
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()
    return f"arxiv:{digest}"


def _notice(effective: str, total: int, start: int, shown: int, cap: int) -> str | None:
    if total == 0:
        return (
            f"arXiv found no papers for {effective}. Loosen it: drop the category or date window, search all: "
            'instead of ti: or abs:, quote multi-word names (au:"hinton g"), and check category codes with '
            "arxiv_list_categories."
        )
    if shown == 0 and start >= total:
        return (
            f"start={start} is past the last match (totalFound={total}). "
            f"Use a start below {total}, e.g. start={max(0, total - cap)}."
        )
    remaining = total - (start + shown)
    if remaining > 0 and start + cap > START_CEILING:
        return (
            f"{remaining} more matches lie past offset {START_CEILING:,}, which paging cannot reach. Split the "
            "search into submitted_from / submitted_to windows (inclusive UTC dates) and page within each; "
            "de-duplicate by id where windows meet."
        )
    return None


async def search(args: SearchInput, cache: Cache | None = None) -> SearchResult:
    """Run one arxiv_search page.

    Raises:
        InvalidArgumentError: reasons unsupported_query_syntax, unknown_category, invalid_date_range,
            invalid_request (arXiv refused the query).
        RateLimitedError: reason rate_limited.
        UpstreamError: arXiv failed, or sent an empty page while reporting matches on it.
    """
    cache = cache or Cache()
    effective = build_query(args.query, args.category, args.submitted_from, args.submitted_to)
    params: dict[str, object] = {
        "search_query": effective,
        "start": args.start,
        "max_results": args.max_results,
        "sortBy": _SORT_BY[args.sort_by],
        "sortOrder": args.sort_order,
    }
    key = _cache_key(params)
    cached = await cache.aget("search", key)
    if cached is not None:
        feed = arxiv.Feed.model_validate(cached)
    else:
        feed = await arxiv.query(params, field="query")
        if not feed.entries and feed.total > args.start:
            # A known arXiv fault: a page that should hold matches comes back empty. Never "no results".
            raise UpstreamError(
                f"arXiv reported {feed.total} matches but returned an empty page at start={args.start}",
                source=arxiv.API,
                reason=reasons.EMPTY_PAGE,
                hint="arXiv sometimes drops a page; retry the same call in a few seconds.",
            )
        await cache.aput("search", key, feed.model_dump(mode="json"), ttl_s=SEARCH_TTL_S)
    # Fifty papers of a large collaboration (thousands of authors each) would pass the size budget: a record over
    # it alone is shortened (authorCount, abstractTruncated), then the page stops at the papers that fit, and the
    # notice says where the next one starts: never an empty page, never the same start again.
    papers, cut = fit_papers([to_paper(e) for e in feed.entries])
    shown = len(papers)
    notice = (f"This page was cut to {shown} papers to stay within {MAX_RESULT_CHARS:,} characters; "
              f"continue with start={args.start + shown}." if cut else None)
    return SearchResult(
        papers=papers,
        effectiveQuery=effective,
        totalFound=feed.total,
        pageStart=args.start,
        truncated=feed.total > args.start + shown,
        shown=shown,
        cap=args.max_results,
        notice=notice or _notice(effective, feed.total, args.start, shown, args.max_results),
    )
