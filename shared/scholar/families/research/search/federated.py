"""The federated search: fan out, merge, rank, expand, rank the whole pool once, filter, page.

1. Every source is asked at once (scholar.families.research.search.fanout), each with the query form it matches best,
under
   one deadline (``ANSWER_S``): a source whose pace has no slot in time, or that answers after it, never holds
   the answer back; it is named in ``sources_late`` (and in ``failed_sources`` when its papers missed the answer).
2. Answers merge into one pool (scholar.core.paper_pool) as they arrive; a first ranking picks the seeds.
3. The seeds' references / citations / related work join (scholar.families.research.search.expand), and so do the papers
   of sources that were late for the first ranking.
4. Candidates lacking a field a filter reads are completed in one S2 batch (scholar.families.research.search.complete).
5. One model scores the whole pool in one pass (BM25, or the remote reranker when configured and
   reachable); filters and the page limit apply only after that. The ranked set is stored for paging, and the
   merged records of the first page are kept by every id they list (scholar.services.paper_lookup.recent), so the
   follow-up calls by those ids resolve without an upstream request.
"""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, RateLimitedError, ScholarError, UpstreamError
from scholar.core.paper_pool import Candidate, Pool
from scholar.core.records import FailedSource, Paper
from scholar.families.research.search import rerank
from scholar.families.research.search.complete import complete_for_filters
from scholar.families.research.search.expand import SEEDS, expand
from scholar.families.research.search.fanout import Answer, FanOut, Queues
from scholar.families.research.search.hits import fit, order, passes, to_hit
from scholar.families.research.search.pages import ResultSets, decode_cursor, encode_cursor, new_set_id
from scholar.families.research.search.rank import Scored, bm25_scores, document, score
from scholar.families.research.search.spec import SearchInput, SearchResult
from scholar.services.paper_lookup import remember
from scholar.sources.registry import SOURCES, Source, searchable
from scholar.store.limiter import PACED_PAST_DEADLINE, answer_within

PER_SOURCE = 25


# The answer's deadline, counted from the start of the search: a source (or expansion hop) whose pace has no slot
# before it, or that has not answered by then, is named late and the answer goes out without it. It leaves ~0.2 s
# of the 1.5 s a search should take (issue #25) for what follows the gathering: ranking, storing the result set,
# remembering the records and the gateway's hop (0.1 s on a quiet machine, `python -m benchmarks review`).
ANSWER_S = 1.3


@dataclass(frozen=True)
class Budgets:
    """Time budgets of one search: per source, how long the seeds wait for it (default: the registry's
    ``search_budget_s``), and until when, counted from the start of the search, a late source's papers may still
    join the final ranking: the answer's deadline."""

    per_source: dict[str, float] = field(default_factory=dict)
    late_wait_s: float = ANSWER_S

    @classmethod
    def configured(cls) -> Budgets:
        """The default budgets times ``SCHOLAR_SEARCH_BUDGET_SCALE``."""
        scale = get_settings().search_budget_scale
        return cls(per_source={s.name: s.search_budget_s * scale for s in searchable()}, late_wait_s=ANSWER_S * scale)


def _check(args: SearchInput) -> None:
    if args.query is None and args.cursor is None:
        raise InvalidArgumentError("give a query (or the next_cursor of a previous answer)", field="query")
    if args.year_start is not None and args.year_end is not None and args.year_start > args.year_end:
        raise InvalidArgumentError(
            f"year_start ({args.year_start}) must not be after year_end ({args.year_end})", field="year_start"
        )


def _failed(answer: Answer) -> FailedSource:
    err = answer.error
    assert err is not None
    return FailedSource(source=answer.source, code=err.code, status=err.status, message=err.message)


def _paced_out(answer: Answer) -> bool:
    """The source was not asked: its pace had no slot before the answer's deadline."""
    return answer.error is not None and answer.error.reason == PACED_PAST_DEADLINE


def _all_failed(failures: list[FailedSource]) -> ScholarError:
    named = "; ".join(f"{f.source}: {f.code}" for f in failures)
    details = {"failed_sources": [f.model_dump(exclude_none=True) for f in failures]}
    if failures and all(f.code == "rate_limited" for f in failures):
        return RateLimitedError(f"every source is rate limiting us ({named})", details=details)
    return UpstreamError(f"every source failed ({named}); nothing to rank", retryable=True, details=details,
                         hint="Try again in a little while, or ask fewer sources with the sources argument.")


async def _relevance(question: str, papers: Sequence[Paper], queues: Queues) -> tuple[list[float], str, str | None]:
    """Relevance of every paper from one model: the remote reranker when usable, else BM25."""
    if rerank.configured():
        if rerank.paused():
            note = "the reranker failed recently and is paused for five minutes; ranked locally"
        else:
            try:
                texts = [document(p) for p in papers]
                scores = await queues.call(rerank.SOURCE, lambda: rerank.rerank(question, texts))
                return scores, f"rerank:{rerank.model_name()}", None
            except ScholarError as err:
                note = f"the reranker did not rank ({err.code}: {err.message}); ranked locally"
        return bm25_scores(question, papers), "bm25", note
    return bm25_scores(question, papers), "bm25", None


def _score_pool(question: str, candidates: list[Candidate], papers: list[Paper], relevance: list[float],
                intent: str | None, answering: int) -> list[Scored]:
    return score(question, papers, [len(c.found_by) for c in candidates], relevance=relevance, intent=intent,
                 this_year=datetime.date.today().year, answering=answering)


async def search(args: SearchInput, principal: str, *, sets: ResultSets | None = None,
                 budgets: Budgets | None = None) -> SearchResult:
    """Answer one research search, or the next page of a stored one.

    Raises:
        InvalidArgumentError: an inverted year range, no query, or a cursor this tool did not write.
        NotFoundError: the cursor's result set expired or belongs to another caller.
        UpstreamError / RateLimitedError: every source failed (each is named in ``details``).
    """
    _check(args)
    sets = sets or ResultSets()
    if args.cursor is not None:
        set_id, offset = decode_cursor(args.cursor)
        return _page(sets.load(principal, set_id), set_id, offset, args.limit)
    budgets = budgets or Budgets.configured()
    question = " ".join((args.query or "").split())
    sources = [SOURCES[name] for name in dict.fromkeys(args.sources)] if args.sources else list(searchable())
    queues = Queues()
    # Every request of this search (fan-out, expansion, completion, rerank) goes out only if its source's pace has a
    # slot early enough to answer before the deadline (scholar.store.limiter); the others are named late.
    with answer_within(budgets.late_wait_s):
        gathered = await _gather(question, sources, args, queues, budgets)
        answered = sorted(a.source for a in gathered.answers if a.error is None)
        failed = [_failed(a) for a in gathered.answers if a.error is not None]
        if not answered:
            raise _all_failed(failed)
        if (incomplete := await complete_for_filters(gathered.pool, args, queues)) is not None:
            gathered.followup_failures.append(incomplete)
        candidates = gathered.pool.alive()
        papers = [c.record() for c in candidates]
        relevance, ranker, note = await _relevance(question, papers, queues)
    ranked = _score_pool(question, candidates, papers, relevance, args.intent, len(answered))
    kept = [s for s in ranked if passes(papers[s.index], args)]
    hits = [to_hit(candidates[s.index], papers[s.index], s) for s in kept]
    record_of = {id(hit): papers[s.index] for hit, s in zip(hits, kept, strict=True)}
    failed += gathered.followup_failures
    meta: dict[str, Any] = {
        "query": question,
        "ranker": ranker,
        "ranker_note": note,
        "intent": args.intent,
        "sort": args.sort,
        "sources_answered": answered,
        "sources_late": sorted(a.source for a in gathered.answers if a.late or _paced_out(a)),
        "partial": bool(failed),
        "failed_sources": [f.model_dump(exclude_none=True) for f in failed],
        "expansion": gathered.hops,
        "upstream_requests": queues.total,
    }
    ordered = order(hits, args.sort)
    stored = {"meta": meta, "hits": [h.model_dump(mode="json", exclude_none=True) for h in ordered]}
    set_id = new_set_id()
    sets.save(principal, set_id, stored)
    page = _page(stored, set_id, 0, args.limit)
    # Follow-up calls by any id of these results (get_paper, read_paper, library_add …) start from these records.
    await remember(record_of[id(hit)] for hit in ordered[: len(page.results)])
    return page


@dataclass
class _Gathered:
    pool: Pool
    answers: list[Answer]
    hops: list[str]
    followup_failures: list[FailedSource]


async def _gather(question: str, sources: Sequence[Source], args: SearchInput, queues: Queues,
                  budgets: Budgets) -> _Gathered:
    """Ask every source, merge, pick seeds by a first ranking, expand them, and take the late answers."""
    fan = FanOut(question, sources, per_source=PER_SOURCE, queues=queues, budgets=budgets.per_source)
    fan.start()
    began = time.monotonic()
    pool = Pool()
    answers = await fan.on_time()
    _absorb(pool, answers)
    hops: list[str] = []
    failures: list[FailedSource] = []
    if args.expand and pool.alive():
        first = pool.alive()
        papers = [c.record() for c in first]
        ranked = _score_pool(question, first, papers, bm25_scores(question, papers), args.intent,
                             sum(1 for a in answers if a.error is None))
        seeds = [first[s.index] for s in ranked[:SEEDS]]
        left = budgets.late_wait_s - (time.monotonic() - began)
        try:
            expansion = await asyncio.wait_for(expand(pool, seeds, intent=args.intent, queues=queues), max(0.0, left))
            hops, failures = expansion.hops, list(expansion.failed)
        except TimeoutError:
            hops = []
            failures = [FailedSource(source="s2", code="timeout", message=f"expansion did not answer within the "
                                     f"{budgets.late_wait_s:g} s deadline of this search")]
    # Late sources had until now (the expansion ran meanwhile) and may take what is left of the deadline.
    late = await fan.collect_late(budgets.late_wait_s - (time.monotonic() - began) if fan.late else 0.0)
    _absorb(pool, late)
    return _Gathered(pool, answers + late, hops, failures)


def _absorb(pool: Pool, answers: Sequence[Answer]) -> None:
    for answer in answers:
        for paper in answer.papers:
            pool.add(paper, answer.source)


def _page(stored: dict[str, Any], set_id: str, offset: int, limit: int) -> SearchResult:
    hits = stored.get("hits") or []
    page, truncated = fit(hits[offset : offset + limit])
    end = offset + len(page)
    return SearchResult.model_validate({
        **stored["meta"],
        "results": page,
        "total": len(hits),
        "offset": offset,
        "next_cursor": encode_cursor(set_id, end) if end < len(hits) else None,
        "truncated": truncated or None,
    })


