"""A title or citation text where a tool takes a paper identifier: the identifier of the one paper it matches.

The match and its check are scholar.services.paper_lookup.match; this module turns its outcome into what an
identifier-taking tool needs: the matched paper's identifier, or the error that says why there is none (several
candidates: ``not_found`` with reason ``ambiguous_reference`` and the candidates; none: ``not_found`` naming the
sources asked; a failed source: that source's error, so the call is retried or queued, never "no such paper").
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable, Mapping
from typing import Any, TypeVar

from scholar.core.errors import NotFoundError, ScholarError, from_envelope
from scholar.core.ids import PaperId, parse_paper_id, written_ids
from scholar.core.records import Paper
from scholar.services.paper_lookup.match import WAVES, MatchOutcome, match_reference
from scholar.store.cache import Cache

AMBIGUOUS = "ambiguous_reference"
# References matched at once: enough to overlap the sources' answers, while each source keeps its own pace.
CONCURRENCY = 10
Key = TypeVar("Key", bound=Hashable)
_WRITTEN = {"doi": "{}", "arxiv": "arXiv:{}", "pmid": "PMID:{}", "pmcid": "PMCID:{}", "s2": "{}",
            "corpus": "CorpusId:{}", "openalex": "{}", "inspire": "INSPIRE:{}", "acm": "ACM:{}", "mag": "MAG:{}"}


def written_form(pid: PaperId) -> str:
    """The form of ``pid`` every tool reads back (``arXiv:2104.12255``, ``PMID:123``, a bare DOI …)."""
    return _WRITTEN.get(pid.kind, "{}").format(pid.value)


def paper_pid(paper: Paper) -> PaperId | None:
    """The identifier a matched record is looked up by: its DOI, arXiv id, PMID … else its S2 id."""
    forms = written_ids(paper.externalIds or {}) + ([paper.paperId] if paper.paperId else [])
    return parse_paper_id(forms[0]) if forms else None


def refusal(text: str, outcome: MatchOutcome) -> ScholarError:
    """The error for a reference that did not match one paper (module docstring)."""
    shown = text if len(text) <= 80 else text[:77] + "..."
    if outcome.status == "not_found" and outcome.failed_sources:
        failed = outcome.failed_sources[0]
        return from_envelope({"error": {"code": failed.code, "message": f"matching {shown!r}: {failed.message}",
                                        "retryable": True, "source": failed.source, "status": failed.status}})
    details = {"tried": outcome.tried, "candidates": [c.model_dump(exclude_none=True) for c in outcome.candidates]}
    if outcome.status == "ambiguous":
        return NotFoundError(
            f"{shown!r} matches no paper for certain: {len(outcome.candidates)} candidates, none passed the check "
            "alone", reason=AMBIGUOUS, details=details,
            hint="Pass one of the candidates' identifiers, or add the year and first author to the reference.")
    return NotFoundError(f"no paper matches {shown!r}: asked {', '.join(outcome.tried)}", details=details,
                         hint="Check the title's spelling, or pass a DOI or arXiv id.")


def outcome_pid(text: str, outcome: MatchOutcome) -> PaperId | ScholarError:
    """The identifier of the paper ``outcome`` matched, else the error that says why there is none."""
    pid = paper_pid(outcome.paper) if outcome.status == "matched" and outcome.paper else None
    return pid if pid is not None else refusal(text, outcome)


async def match_many(refs: Mapping[Key, str | Mapping[str, Any]], cache: Cache | None = None, *,
                     waves: tuple[tuple[str, ...], ...] = WAVES) -> dict[Key, MatchOutcome]:
    """Match many references at once: ``CONCURRENCY`` in flight, each source at its own pace (the shared limiter).

    Args:
        refs: each a citation text, or ``match_reference``'s keyword arguments (title, authors, year, venue, text).
        cache: the cache to use.
        waves: the sources to ask (``match_reference``).
    """
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(ref: str | Mapping[str, Any]) -> MatchOutcome:
        async with gate:
            if isinstance(ref, str):
                return await match_reference(ref, cache=cache, waves=waves)
            return await match_reference(**ref, cache=cache, waves=waves)

    outcomes = await asyncio.gather(*(one(ref) for ref in refs.values()))
    return dict(zip(refs, outcomes, strict=True))


async def matched_id(text: str, cache: Cache | None = None) -> PaperId:
    """The identifier of the one paper ``text`` (a title or citation) names.

    Raises:
        NotFoundError: no paper, or several (reason ``ambiguous_reference``).
        RateLimitedError / UpstreamError: a source failed before any candidate passed the check.
    """
    found = outcome_pid(text, await match_reference(text, cache=cache))
    if isinstance(found, ScholarError):
        raise found
    return found
