"""generate_citations: resolve up to 100 papers, complete their metadata, write BibTeX / CSL-JSON / RIS.

Metadata order of preference: Crossref (volume, issue, pages, publisher, ISSN/ISBN, month, structured
names), then S2 / OpenAlex fields; OpenAlex fills the venue of DOIs Crossref lacks (asked beside Crossref, not
after it); ISBNs get Open Library's book metadata. Ids that fail are reported in ``errors`` and never written
into the text.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from scholar.core.catalogue import CallContext
from scholar.core.errors import (
    NOT_FOUND,
    RATE_LIMITED,
    TIMEOUT,
    TOO_LARGE,
    InvalidArgumentError,
    NotFoundError,
    RateLimitedError,
    ScholarError,
    UpstreamError,
    UpstreamTimeoutError,
)
from scholar.core.id_forms import wrong_form
from scholar.core.ids import PAPER_KINDS, InvalidIdError, PaperId, parse_paper_id
from scholar.core.records import FailedSource, Paper
from scholar.families.papers import autoenrich, biblio
from scholar.families.papers.budget import MAX_RESULT_CHARS, failed
from scholar.families.papers.resolve import resolve_papers
from scholar.families.papers.spec_export import CitationError, GenerateCitationsInput, GenerateCitationsResult
from scholar.services.cite import Entry, build_entries, to_bibtex, to_csl, to_ris
from scholar.services.paper_lookup import free_text, item_paper, match_many, outcome_pid
from scholar.sources import openalex
from scholar.store.cache import Cache

CITE_FIELDS = ("paperId", "title", "year", "venue", "authors", "externalIds", "publicationTypes", "publicationDate",
               "journal", "url")


TOOL = "generate_citations"
# Besides papers: books by ISBN (Open Library) and, when the caller is known, items of the caller's library.
_CITABLE = PAPER_KINDS | {"isbn", "library_item"}
# A per-id code beside the error codes of scholar.core.errors: the id is not one this tool cites.
INVALID_ID = "invalid_id"


def _parse(raw: str, index: int) -> PaperId | CitationError:
    try:
        pid = parse_paper_id(raw)
    except InvalidIdError as exc:
        return CitationError(id=raw, code=INVALID_ID, message=exc.message)
    if pid.kind not in _CITABLE:
        refusal = wrong_form(raw, pid.kind, tool=TOOL, field=f"paper_ids[{index}]",
                             takes="paper identifiers, ISBNs or your library's item ids")
        return CitationError(id=raw, code=INVALID_ID, message=refusal.message)
    return pid


async def _book(pid: PaperId, cache: Cache) -> Paper | None:
    meta = await autoenrich.book_metadata(pid.value, cache)
    if meta is None:
        return None
    return Paper(title=meta.get("title"), year=meta.get("year"), externalIds={"ISBN": pid.value},
                 book_metadata=meta, sources=["openlibrary"])


def _lacking_venue(papers: list[Paper]) -> dict[str, int]:
    """DOI → index of the papers with a DOI whose venue is still unknown."""
    return {doi: i for i, p in enumerate(papers)
            if (doi := autoenrich.doi_of(p)) and not (p.biblio and p.biblio.container_title) and not p.venue}


async def _openalex_venues(papers: list[Paper]) -> tuple[dict[str, Any], FailedSource | None]:
    """OpenAlex's works (by lower-case DOI) for the papers lacking a venue (one request per 50)."""
    lacking = _lacking_venue(papers)
    if not lacking:
        return {}, None
    try:
        works = await openalex.get_works_by_filter("doi", list(lacking))
    except ScholarError as err:
        return {}, failed(err, "openalex")
    return {(w.get("doi") or "").removeprefix("https://doi.org/").lower(): w for w in works}, None


def _fill_venues(papers: list[Paper], works: dict[str, Any]) -> list[Paper]:
    """The venue from OpenAlex for the papers whose venue Crossref left unknown."""
    out = list(papers)
    for doi, i in _lacking_venue(papers).items():
        if (work := works.get(doi)) is None:
            continue
        found = biblio.from_openalex(work)
        if (known := out[i].biblio) is not None:
            found = known.model_copy(update={"container_title": found.container_title})
        out[i] = out[i].model_copy(update={"biblio": found, "sources": [*out[i].sources, "openalex"]})
    return out


async def generate_citations_for(args: GenerateCitationsInput, ctx: CallContext) -> GenerateCitationsResult:
    """The tool's handler: ``generate_citations`` for this caller (whose library item ids it may cite)."""
    return await generate_citations(args, principal=ctx.principal)


async def generate_citations(args: GenerateCitationsInput, cache: Cache | None = None, *,
                             principal: str | None = None) -> GenerateCitationsResult:
    """Citations for the resolvable papers; the others in ``errors``.

    Raises:
        InvalidArgumentError: no id is one this tool cites (a patent, a standard …: each named in ``details``).
        NotFoundError: no paper resolved and every source answered (reason ``no_papers_resolved``).
        RateLimitedError / UpstreamError / UpstreamTimeoutError: none resolved while a source was throttling,
            failing or slow (retryable; the sources in ``details.failed_sources``).
    """
    cache = cache or Cache()
    found = await _look_up(args.paper_ids, cache, principal)
    papers = [paper for paper in found.papers if paper is not None]
    inputs = [raw for raw, paper in zip(args.paper_ids, found.papers, strict=True) if paper is not None]
    if not papers:
        raise _nothing_resolved(found.errors, found.failures)
    if args.enrich:
        papers = await _enriched(papers, cache, found.failures)
    entries = _fit(build_entries(papers), inputs, args.citation_format, found.errors)
    written = _written(entries, args.citation_format, found.errors)
    order = {raw: i for i, raw in enumerate(args.paper_ids)}
    return GenerateCitationsResult(
        format=args.citation_format, count=len(entries), **written,
        errors=sorted(found.errors, key=lambda e: order.get(e.id, 0)),
        failed_sources=found.failures, partial=bool(found.failures),
    )


@dataclass
class _Found:
    """What looking the ids up gave: a paper per position (None where there is none), per-id errors, failed sources."""

    papers: list[Paper | None]
    errors: list[CitationError] = field(default_factory=list)
    failures: list[FailedSource] = field(default_factory=list)

    def miss(self, raw: str, code: str, message: str) -> None:
        self.errors.append(CitationError(id=raw, code=code, message=message))


async def _look_up(raw_ids: list[str], cache: Cache, principal: str | None) -> _Found:
    """Each id's paper: the caller's library items, then books (Open Library), then papers (the resolver)."""
    found = _Found([None] * len(raw_ids))
    items: dict[int, PaperId] = {}
    books: dict[int, PaperId] = {}
    papers: dict[int, PaperId] = {}
    matched = await match_many({i: raw for i, raw in enumerate(raw_ids) if free_text(raw)}, cache)
    for index, raw in enumerate(raw_ids):
        parsed = _parse(raw, index) if index not in matched else outcome_pid(raw, matched[index])
        if isinstance(parsed, ScholarError):
            parsed = CitationError(id=raw, code=parsed.code, message=parsed.message)
        if isinstance(parsed, CitationError):
            found.errors.append(parsed)
        else:
            {"library_item": items, "isbn": books}.get(parsed.kind, papers)[index] = parsed
    await _items(found, raw_ids, items, principal)
    await _books(found, raw_ids, books, cache)
    await _papers(found, raw_ids, papers)
    return found


async def _items(found: _Found, raw_ids: list[str], items: dict[int, PaperId], principal: str | None) -> None:
    for index, pid in items.items():
        if not principal:
            found.miss(raw_ids[index], INVALID_ID, "a library item id names an item of the caller's library")
            continue
        try:
            found.papers[index] = await item_paper(principal, pid.value)
        except NotFoundError as err:
            found.miss(raw_ids[index], err.code, err.message)


async def _books(found: _Found, raw_ids: list[str], books: dict[int, PaperId], cache: Cache) -> None:
    gate = asyncio.Semaphore(autoenrich.CONCURRENCY)

    async def one(pid: PaperId) -> Paper | ScholarError | None:
        async with gate:
            try:
                return await _book(pid, cache)
            except ScholarError as err:
                return err

    answers = await asyncio.gather(*(one(pid) for pid in books.values()))
    for index, answer in zip(books, answers, strict=True):
        if isinstance(answer, ScholarError):
            found.failures.append(failed(answer, "openlibrary"))
            found.miss(raw_ids[index], answer.code, answer.message)
        elif answer is None:
            found.miss(raw_ids[index], NOT_FOUND, "Open Library has no such ISBN")
        else:
            found.papers[index] = answer


async def _papers(found: _Found, raw_ids: list[str], papers: dict[int, PaperId]) -> None:
    resolved, failures = await resolve_papers(papers, CITE_FIELDS)
    found.failures += failures
    for index, outcome in resolved.items():
        if outcome.paper is not None:
            found.papers[index] = outcome.paper
        else:
            found.miss(raw_ids[index], outcome.status, outcome.error or "")


async def _enriched(papers: list[Paper], cache: Cache, failures: list[FailedSource]) -> list[Paper]:
    """Crossref's metadata and OpenAlex's venues, asked at once; the sources that failed are added to ``failures``.

    OpenAlex's venue only fills what Crossref left unknown, and its failure counts only where it was needed.
    """
    (enriched, more), (works, venue_failure) = await asyncio.gather(
        autoenrich.enrich(papers, crossref=True, books=True, cache=cache), _openalex_venues(papers))
    failures += more
    if venue_failure is not None and _lacking_venue(enriched):
        failures.append(venue_failure)
    return _fill_venues(enriched, works)


def _written(entries: list[Entry], fmt: str, errors: list[CitationError]) -> dict[str, Any]:
    """The citations in the asked format: BibTeX (with a comment per failed id) and RIS as text, CSL-JSON as data."""
    if fmt == "bibtex":
        return {"content": to_bibtex(entries, [(e.id, e.code) for e in errors])}
    if fmt == "ris":
        return {"content": to_ris(entries)}
    return {"citations": to_csl(entries)}


def _size(entry: Entry, fmt: str) -> int:
    if fmt == "bibtex":
        return len(to_bibtex([entry]))
    if fmt == "ris":
        return len(to_ris([entry]))
    return len(json.dumps(to_csl([entry]), ensure_ascii=False)) + 2


def _fit(entries: list[Entry], inputs: list[str], fmt: str, errors: list[CitationError]) -> list[Entry]:
    """Keep the entries that fit the size budget; the rest are listed in ``errors`` as too_large."""
    budget = MAX_RESULT_CHARS - 4_000 - 200 * len(errors)
    used = 0
    for position, entry in enumerate(entries):
        used += _size(entry, fmt)
        if used > budget:
            for raw in inputs[position:]:
                errors.append(CitationError(
                    id=raw, code=TOO_LARGE,
                    message="left out to keep the answer under the size budget; ask for it in a second call"))
            return entries[:position]
    return entries


# Per-id codes that are answers: the id is wrong, or every source said it has no such paper.
_ANSWERED = frozenset({NOT_FOUND, INVALID_ID})


def _nothing_resolved(errors: list[CitationError], failures: list[FailedSource]) -> ScholarError:
    """Why no paper resolved: ``not_found`` only when every id was answered; else the sources' failure."""
    details: dict[str, Any] = {"failed": [e.model_dump() for e in errors]}
    if errors and all(e.code == INVALID_ID for e in errors):  # nothing to look up: the call itself is wrong
        return InvalidArgumentError(errors[0].message, field="paper_ids", details=details)
    if all(e.code in _ANSWERED for e in errors):
        return NotFoundError(
            f"none of the {len(errors)} ids resolved", reason="no_papers_resolved", details=details,
            hint="Check the identifiers in details.failed; DOIs and arXiv ids resolve most reliably.",
        )
    details["failed_sources"] = [f.model_dump(exclude_none=True) for f in failures]
    names = ", ".join(dict.fromkeys(f.source for f in failures)) or "a source"
    message = f"no paper resolved: {names} failed while resolving them; the same call may succeed later"
    source = failures[0].source if len(failures) == 1 else None
    if any(e.code == RATE_LIMITED for e in errors):
        return RateLimitedError(message, source=source or "s2", details=details)
    if failures and all(f.code == TIMEOUT for f in failures):
        return UpstreamTimeoutError(message, source=source, details=details)
    return UpstreamError(message, source=source, details=details)
