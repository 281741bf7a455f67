"""From ranked candidates to compact results: identifiers every tool accepts, filters, sort, the size budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scholar.core import budget
from scholar.core.ids import written_ids
from scholar.core.paper_pool import Candidate
from scholar.core.records import Paper
from scholar.families.research.search.rank import Scored
from scholar.families.research.search.spec import SearchHit, SearchInput, Signals

ABSTRACT_CHARS = 300
AUTHORS = 3
# DESIGN §4: a result stays under 80,000 characters; the rest of the answer needs a little room.
_RESERVE = 3_000


def accepted_ids(candidate: Candidate) -> list[str]:
    """The candidate's identifiers in forms every tool accepts (checked with scholar.core.ids), S2 id first."""
    return [*([candidate.external["S2"]] if candidate.external.get("S2") else []), *written_ids(candidate.external)]


def to_hit(candidate: Candidate, paper: Paper, scored: Scored) -> SearchHit:
    ids = accepted_ids(candidate)
    names = [a.name for a in paper.authors or [] if a.name]
    abstract = paper.abstract
    if abstract and len(abstract) > ABSTRACT_CHARS:
        abstract = abstract[:ABSTRACT_CHARS].rsplit(" ", 1)[0] + "…"
    total_authors = paper.authorCount or len(names)
    return SearchHit(
        id=ids[0] if ids else (paper.url or ""),
        ids=ids,
        title=paper.title,
        authors=names[:AUTHORS] or None,
        author_count=total_authors if total_authors > AUTHORS else None,
        year=paper.year,
        venue=paper.venue,
        citation_count=paper.citationCount,
        abstract=abstract,
        pdf_url=paper.openAccessPdf.url if paper.openAccessPdf else None,
        is_open_access=paper.isOpenAccess,
        url=paper.url or paper.landing_url(),
        found_by=sorted(candidate.found_by),
        via=sorted(candidate.via) or None,
        provenance=dict(sorted(candidate.provenance.items())),
        signals=Signals(score=round(scored.score, 4), **scored.signals),
    )


def passes(paper: Paper, args: SearchInput) -> bool:
    """Whether a record passes the filters (an unknown value fails a filter on it)."""
    if args.year_start is not None and (paper.year is None or paper.year < args.year_start):
        return False
    if args.year_end is not None and (paper.year is None or paper.year > args.year_end):
        return False
    if args.min_citations is not None and (paper.citationCount or 0) < args.min_citations:
        return False
    if args.venue:
        venues = " ".join(v for v in (paper.venue, paper.journal.name if paper.journal else None) if v)
        if args.venue.casefold() not in venues.casefold():
            return False
    if args.open_access_only and not (paper.isOpenAccess or (paper.openAccessPdf and paper.openAccessPdf.url)):
        return False
    if args.fields_of_study:
        wanted = {f.casefold() for f in args.fields_of_study}
        if not wanted & {f.casefold() for f in paper.fieldsOfStudy or []}:
            return False
    return True


def order(hits: list[SearchHit], sort: str) -> list[SearchHit]:
    """``relevance`` keeps the ranking; ``citations`` and ``date`` replace it (ties keep the ranking)."""
    if sort == "citations":
        return sorted(hits, key=lambda h: -(h.citation_count if h.citation_count is not None else -1))
    if sort == "date":
        return sorted(hits, key=lambda h: -(h.year or 0))
    return hits


def fit(hits: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The leading hits whose JSON fits the size budget, and whether any were cut."""
    return budget.fit(hits, reserve=_RESERVE)
