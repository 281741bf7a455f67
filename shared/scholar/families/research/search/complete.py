"""Completing records with the fields a filter needs, in one S2 batch request, before the filters apply.

A keyword source may not carry what a filter reads (Europe PMC has no fields of study, Crossref no
open-access flag). Rather than fail those papers for an unknown value, the candidates that lack a field
a filter needs are looked up once in ``/paper/batch`` (500 ids a request). Only those, and only when a
filter is set: a lookup completes a record, it never counts as another source agreeing.
"""

from __future__ import annotations

from scholar.core.errors import ScholarError
from scholar.core.paper_mapping import from_s2
from scholar.core.paper_pool import Pool
from scholar.core.records import FailedSource
from scholar.families.research.search.expand import s2_key
from scholar.families.research.search.fanout import Queues
from scholar.families.research.search.spec import SearchInput
from scholar.sources import s2
from scholar.sources.paper_search import S2_FIELDS

MAX_LOOKUPS = s2.BATCH_SIZE


def needed_fields(args: SearchInput) -> tuple[str, ...]:
    """The record fields the filters of ``args`` read."""
    needed: list[str] = []
    if args.year_start is not None or args.year_end is not None:
        needed.append("year")
    if args.min_citations is not None:
        needed.append("citationCount")
    if args.fields_of_study:
        needed.append("fieldsOfStudy")
    if args.venue:
        needed.append("venue")
    if args.open_access_only:
        needed.append("isOpenAccess")
    return tuple(needed)


async def complete_for_filters(pool: Pool, args: SearchInput, queues: Queues) -> FailedSource | None:
    """Look up, in one request, the candidates missing a field the filters need; the failure, if any."""
    needed = needed_fields(args)
    if not needed:
        return None
    keys = [k for c in pool.alive() if any(c.fields.get(f) is None for f in needed) and (k := s2_key(c))]
    keys = list(dict.fromkeys(keys))[:MAX_LOOKUPS]
    if not keys:
        return None
    try:
        rows = await queues.call("s2", lambda: s2.get_papers(keys, S2_FIELDS))
    except ScholarError as err:
        return FailedSource(source=err.source or "s2", code=err.code, status=err.status,
                            message=f"completing records for the filters: {err.message}")
    for row in rows:
        if isinstance(row, dict):
            pool.add(from_s2(row, S2_FIELDS), "s2", finding=False)
    return None
