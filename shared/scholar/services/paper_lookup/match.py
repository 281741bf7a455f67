"""A checked bibliographic match: a citation string or a title → the one paper it names, or an honest "not sure".

Sources, in waves (a later wave only when the earlier ones found no candidate that passes the check):

    1  crossref   ``query.bibliographic`` (the whole citation, or title + first author + year + venue)
    2  openalex   title search (a title) or full-text search (a citation)
       europepmc  title search (biomedicine)
       s2         ``/paper/search/match`` (its best title match)

A DOI or arXiv id written in the citation is looked up directly instead (check ``identifier_in_text``). Every
candidate is judged by scholar.services.paper_lookup.match_check; the answer is ``matched`` (one candidate passed,
clearly ahead of any other), ``ambiguous`` (several passed, or near misses only: ranked ``candidates``) or
``not_found`` (``tried`` names the sources asked). A source that failed is listed in ``failed_sources`` and never read
as "no such paper"; only complete answers (no failed source) are cached.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Sequence

from scholar.core.errors import InvalidArgumentError, RateLimitedError, ScholarError
from scholar.core.ids import InvalidIdError, parse_paper_id, written_ids
from scholar.core.matching import Candidate, MatchedBy, MatchOutcome, MatchStatus
from scholar.core.paper_mapping import from_crossref, from_europepmc, from_openalex, from_s2
from scholar.core.records import FailedSource, Paper
from scholar.services.paper_lookup import chain
from scholar.services.paper_lookup.match_check import Reference, Verdict, judge, normalise
from scholar.sources import crossref, europepmc, openalex, s2
from scholar.store.cache import Cache
from scholar.store.limiter import PACED_PAST_DEADLINE

WAVES: tuple[tuple[str, ...], ...] = (("crossref",), ("openalex", "europepmc", "s2"))
ROWS = 5
# A near miss worth showing as a candidate (below the check's bar, so never accepted).
NEAR_MISS = 0.75
# Two accepted candidates closer than this are a tie: the answer is ambiguous.
TIE = 0.02
MAX_CANDIDATES = 5
CACHE_NAMESPACE = "search"
_S2_FIELDS = ("paperId", "title", "year", "venue", "authors", "externalIds", "journal", "publicationTypes")
_DOI_IN_TEXT = re.compile(r"(?:doi\.org/|doi:\s*)?(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf)/|:\s*)(\d{4}\.\d{4,5}|[a-z-]+/\d{7})", re.IGNORECASE)


_Found = tuple[Paper, tuple[str, ...]]  # a record and its journal's other names


async def _crossref(ref: Reference) -> list[_Found]:
    items = await crossref.search_bibliographic(ref.query()[:1000], rows=ROWS)
    return [(from_crossref(i), tuple(i.get("short-container-title") or ())) for i in items]


def _title_guess(ref: Reference) -> str:
    """The title, or the longest sentence of a citation that is not a list of names (for title-only searches)."""
    if ref.title:
        return ref.title
    parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+|\s*[\u201c\u201d\"]\s*", ref.text or "") if p.strip()]
    prose = [p for p in parts if not re.search(r"(?:\b[A-Z]\.\s*){1,3}(?:,|&|and|$)", p)] or parts
    return max(prose, key=lambda p: len(p.split()), default="")[:300]


async def _openalex(ref: Reference) -> list[_Found]:
    works = await (openalex.search_titles(ref.title, limit=ROWS) if ref.title
                   else openalex.search_works(ref.query()[:500], limit=ROWS))
    return [(from_openalex(w), ()) for w in works]


async def _europepmc(ref: Reference) -> list[_Found]:
    title = normalise(_title_guess(ref))
    if not title:
        return []
    return [(from_europepmc(r), ()) for r in await europepmc.search_core(f'TITLE:"{title}"', page_size=ROWS)]


async def _s2(ref: Reference) -> list[_Found]:
    title = _title_guess(ref)
    return [(from_s2(row, _S2_FIELDS), ()) for row in await s2.match_title(title, _S2_FIELDS)] if title else []


_ASK: dict[str, Callable[[Reference], Awaitable[list[_Found]]]] = {
    "crossref": _crossref, "openalex": _openalex, "europepmc": _europepmc, "s2": _s2,
}


def _identity(paper: Paper) -> str:
    doi = (paper.externalIds or {}).get("DOI")
    return f"doi:{doi.lower()}" if doi else f"title:{normalise(paper.title)}:{paper.year}"


def _candidate(paper: Paper, verdict: Verdict) -> Candidate:
    names = [a.name for a in paper.authors or [] if a.name]
    return Candidate(title=paper.title, year=paper.year, first_author=names[0] if names else None,
                     venue=paper.venue, identifiers=written_ids(paper.externalIds or {}),
                     source=paper.sources[0] if paper.sources else "?", confidence=verdict.confidence,
                     accepted=verdict.accepted)


class _Pool:
    """The candidates so far, one per paper (the first source's record), each with its verdict."""

    def __init__(self, ref: Reference) -> None:
        self.ref = ref
        self.judged: dict[str, tuple[Paper, Verdict]] = {}

    def add(self, found: list[_Found]) -> None:
        for paper, venues in found:
            key = _identity(paper)
            if key not in self.judged:
                self.judged[key] = (paper, judge(self.ref, paper, venues))

    def ranked(self) -> list[tuple[Paper, Verdict]]:
        return sorted(self.judged.values(), key=lambda pv: (pv[1].accepted, pv[1].confidence), reverse=True)

    def decision(self) -> MatchStatus | None:
        """matched / ambiguous when candidates passed the check, else None (ask further)."""
        ranked = [pv for pv in self.ranked() if pv[1].accepted]
        if not ranked:
            return None
        if len(ranked) > 1 and ranked[0][1].confidence - ranked[1][1].confidence < TIE:
            return "ambiguous"
        return "matched"


async def _by_identifier(ref: Reference) -> MatchOutcome | None:
    """The record a DOI or arXiv id written in the citation names, checked against the rest of the citation."""
    text = ref.text or ""
    written = _DOI_IN_TEXT.search(text) or _ARXIV_IN_TEXT.search(text)
    if written is None:
        return None
    raw = written.group(1) if written.re is _DOI_IN_TEXT else f"arXiv:{written.group(1)}"
    try:
        pid = parse_paper_id(raw)
    except InvalidIdError:
        return None
    try:
        found = await chain.look_up(pid)
    except ScholarError as err:
        return MatchOutcome(status="not_found", tried=[err.source or "?"], failed_sources=[_failed(err)])
    if found.paper is None:
        return None  # a DOI nobody knows (mistyped): match the rest of the citation instead
    verdict = judge(ref, found.paper)
    return MatchOutcome(status="matched", paper=found.paper, confidence=1.0, tried=found.asked,
                        matched_by=MatchedBy(source=found.source or "?", check="identifier_in_text"),
                        disagreements=verdict.disagreements)


def _failed(err: ScholarError) -> FailedSource:
    return FailedSource(source=err.source or "?", code=err.code, status=err.status, message=err.message)


def _cache_key(ref: Reference) -> str:
    blob = json.dumps([ref.text, ref.title, list(ref.authors), ref.year, ref.venue], ensure_ascii=False)
    return "match:" + hashlib.sha256(blob.encode()).hexdigest()[:32]


async def match_reference(text: str | None = None, *, title: str | None = None, authors: Sequence[str] = (),
                          year: int | None = None, venue: str | None = None, cache: Cache | None = None,
                          waves: tuple[tuple[str, ...], ...] = WAVES) -> MatchOutcome:
    """Match a citation string, or a title with optional authors/year/venue, to one checked record.

    Args:
        text: a citation as written in a reference list (or a bare title).
        title: the title, when the parts are known apart (BibTeX, RIS); ``text`` is then not needed.
        authors: author names as written ("Vaswani, A." or "Ashish Vaswani"); the first is checked.
        year: publication year (accepted within one).
        venue: journal or proceedings name, compared for ``disagreements``.
        cache: the cache to use (default: the configured one).
        waves: the sources to ask, wave by wave (module docstring).

    Returns:
        The outcome; ``failed_sources`` names any source that failed (then nothing was cached).

    Raises:
        InvalidArgumentError: neither ``text`` nor ``title`` holds any word.
    """
    ref = Reference(text=(text or "").strip() or None, title=(title or "").strip() or None,
                    authors=tuple(a for a in authors if a and a.strip()), year=year, venue=venue)
    if not normalise(ref.text) and not normalise(ref.title):
        raise InvalidArgumentError("a reference needs a citation text or a title with at least one word",
                                   field="text")
    if (direct := await _by_identifier(ref)) is not None:
        return direct
    cache = cache or Cache()
    key = _cache_key(ref)
    if isinstance(kept := await cache.aget(CACHE_NAMESPACE, key), dict):
        return MatchOutcome.model_validate(kept)
    outcome = await _ask(ref, waves)
    if not outcome.failed_sources:
        await cache.aput(CACHE_NAMESPACE, key, outcome.model_dump(mode="json", exclude_none=True))
    return outcome


async def _ask(ref: Reference, waves: tuple[tuple[str, ...], ...]) -> MatchOutcome:
    pool, tried, failures = _Pool(ref), [], []
    for wave in waves:
        results = await asyncio.gather(*(_ASK[name](ref) for name in wave), return_exceptions=True)
        for name, result in zip(wave, results, strict=True):
            tried.append(name)
            if isinstance(result, RateLimitedError) and result.reason == PACED_PAST_DEADLINE:
                raise result  # no slot before the call's deadline: the tool queues the whole call
            if isinstance(result, ScholarError):
                result.source = result.source or name
                failures.append(_failed(result))
            elif isinstance(result, BaseException):
                raise result
            else:
                pool.add(result)
        if pool.decision() == "matched":
            break
    return _outcome(pool, tried, failures)


def _outcome(pool: _Pool, tried: list[str], failures: list[FailedSource]) -> MatchOutcome:
    ranked = pool.ranked()
    decision = pool.decision()
    shown = [_candidate(p, v) for p, v in ranked if v.accepted or v.title_similarity >= NEAR_MISS][:MAX_CANDIDATES]
    base = {"tried": tried, "failed_sources": failures}
    if decision == "matched":
        paper, verdict = ranked[0]
        return MatchOutcome(status="matched", paper=paper, confidence=verdict.confidence,
                            matched_by=MatchedBy(source=paper.sources[0] if paper.sources else "?",
                                                 check=verdict.check),
                            disagreements=verdict.disagreements, candidates=shown[1:], **base)
    if shown:
        return MatchOutcome(status="ambiguous", candidates=shown, confidence=shown[0].confidence, **base)
    return MatchOutcome(status="not_found", **base)
